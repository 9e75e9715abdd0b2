/**
 * The memory check: opening a conversation with turns, say so when its
 * agent no longer remembers it (a kernel restarted, a server's checkpointer
 * lost it).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IEndpointSettings } from '../../contracts/settings';
import type { IAgentThreads } from '../../transport/server/agent-threads';
import { errorMessage } from '../../wire/json';
import type { ITurnEntry } from '../conversation/chat/chat-entries';
import type { ConversationSession } from '../conversation/session';

export interface IMemoryCheckOptions {
  /** The thread routes of this server's agents, asked when the transport cannot say. */
  threads: IAgentThreads | null;
  /** The conversation shown, and its endpoint. */
  shown: {
    readonly current: ConversationSession;
    readonly endpoint: IEndpointSettings;
  };
  trans: TranslationBundle;
}

/** Ask `session`'s agent whether it remembers it; its notice says when not. */
export async function checkMemory(
  session: ConversationSession,
  { threads, shown, trans }: IMemoryCheckOptions
): Promise<void> {
  const { model } = session;
  const last = [...model.entries]
    .reverse()
    .find((entry): entry is ITurnEntry => entry.kind === 'turn');
  if (!last) {
    return;
  }
  let known: boolean | null = null;
  try {
    if (model.transport?.threadMemory) {
      known = await model.transport.threadMemory({
        threadId: model.threadId,
        memory: model.transportMemory,
        lastTurnAt: last.endedAt ?? last.startedAt
      });
    } else if (threads && shown.current === session) {
      known = await threads.known(shown.endpoint, model.threadId);
    }
  } catch (error) {
    console.warn(
      `Agent Panel: could not ask the agent about the conversation: ${errorMessage(error)}`
    );
  }
  if (known === false && !session.isDisposed) {
    session.notice = trans.__(
      'The agent no longer remembers this conversation: its next message starts afresh (the transcript stays here).'
    );
  }
}
