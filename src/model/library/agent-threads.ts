/**
 * The user's threads on a deployment as conversations, listed beside the
 * store's and read back to open (docs/protocol.md §15.5). Each past turn
 * is the user's message and a turn built by the reducer from the frames the
 * server made of the agent's messages, as a live turn is built from its
 * stream.
 */
import { UUID } from '@lumino/coreutils';
import type { IEndpointSettings } from '../../contracts/settings';
import type {
  ConversationStatus,
  IConversationSummary
} from '../../transport/server/conversation-store';
import type {
  IAgentThread,
  IAgentThreads,
  IThreadHistory
} from '../../transport/server/agent-threads';
import { errorMessage } from '../../wire/json';
import { reduceFrames } from '../../wire/replay';
import type { ChatEntry } from '../conversation/chat/chat-entries';
import type { IReadConversation } from '../persistence/reading';
import { CONVERSATION_ID } from '../conversation/session';

/**
 * The threads of `endpoints`' agents whose ids `stored` lacks; an endpoint
 * that cannot list them is left out, with a warning.
 */
export async function agentThreadSummaries(
  threads: IAgentThreads,
  endpoints: readonly IEndpointSettings[],
  stored: Set<string>
): Promise<IConversationSummary[]> {
  const lists = await Promise.all(
    endpoints.map(async endpoint => {
      try {
        const found = await threads.list(endpoint);
        return found.map(thread => agentThreadSummary(thread, endpoint.name));
      } catch (error) {
        console.warn(
          `Agent Panel: could not list the threads of ${endpoint.name}: ${errorMessage(error)}`
        );
        return [];
      }
    })
  );
  const listed = new Set(stored);
  return lists.flat().filter(summary => {
    const again =
      listed.has(summary.threadId) || !CONVERSATION_ID.test(summary.id);
    listed.add(summary.threadId);
    return !again;
  });
}

/** A deployment's thread as the list shows a conversation: its id is the thread's. */
function agentThreadSummary(
  thread: IAgentThread,
  endpointName: string
): IConversationSummary {
  const status: ConversationStatus =
    thread.status === 'interrupted'
      ? 'review'
      : thread.status === 'busy'
        ? 'running'
        : 'idle';
  return {
    id: thread.threadId,
    title: thread.title,
    threadId: thread.threadId,
    endpointName,
    status,
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
    revision: 0,
    entryCount: 0
  };
}

/** `history` as a conversation of `endpointName`; the store lacks it, so all of it is saved. */
export function historyConversation(
  history: IThreadHistory,
  endpointName: string | null
): IReadConversation {
  const { threadId, updatedAt } = history;
  const time = updatedAt || Date.now();
  const entries: ChatEntry[] = [];
  for (const turn of history.turns) {
    if (turn.message) {
      entries.push({
        kind: 'user',
        key: UUID.uuid4(),
        text: turn.message,
        context: null,
        time
      });
    }
    if (turn.frames.length === 0) {
      continue; // the run in flight: it is joined once shown (docs/protocol.md §15.4)
    }
    const reducer = reduceFrames(turn.frames);
    entries.push({
      kind: 'turn',
      key: UUID.uuid4(),
      request: { kind: 'chat', threadId, message: turn.message },
      state: reducer.state,
      startedAt: time,
      endedAt: time
    });
  }
  return {
    restore: { threadId, entries, endpointName, transportMemory: null },
    title: history.title,
    queue: [],
    storedKeys: [],
    sendAll: true,
    problems: []
  };
}
