/**
 * Restoring a session: a live conversation from what was read of it (the
 * store, the unload copy, the old snapshot, or an agent's thread).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { ChatModel } from '../conversation/chat-model';
import type { ClientToolRegistry } from '../conversation/chat/client-tools';
import { ConversationSession, titleOf } from '../conversation/session';
import type { IReadConversation } from '../persistence/reading';

/**
 * Conversation `id` as `read` (`runningElsewhere`: another tab answers in
 * it), offering the `clientTools` every conversation offers.
 */
export function restoredSession(
  id: string,
  read: IReadConversation,
  clientTools: ClientToolRegistry,
  trans: TranslationBundle,
  runningElsewhere = false
): ConversationSession {
  const model = new ChatModel(
    read.restore.threadId || undefined,
    trans,
    clientTools
  );
  if (read.restore.entries.length > 0 || read.restore.threadId) {
    model.restore({
      ...read.restore,
      threadId: model.threadId,
      runningElsewhere
    });
  }
  const first = model.entries.find(entry => entry.kind === 'user');
  const title =
    read.title || (first?.kind === 'user' ? titleOf(first.text) : '');
  const session = new ConversationSession(id, model, trans, title);
  if (read.queue.length > 0) {
    session.queue.restore(read.queue);
  }
  return session;
}
