/**
 * The client-tool phase of a conversation: the calls a finished run left for
 * the panel run one after the other (`ClientToolRegistry`), then the run
 * continues with their results (docs/protocol.md §8.11), up to
 * `MAX_TOOL_FOLLOW_UPS` times in a row. Stop cancels them: the cancelled
 * results go with the next message instead.
 */
import type { IClientToolCall } from '../../../wire/turn';
import type { IToolCard } from '../../../wire/types';
import type { ITurnEntry } from './chat-entries';
import type { ClientToolRegistry } from './client-tools';
import type { ChatStatusKeeper } from './chat-status';
import { applyLocal, type IConversationState } from './conversation-state';
import type { TurnRunner } from './running-turn';

/**
 * How many runs in a row may continue by themselves after client tools
 * before the panel waits for the user: an agent that calls tools forever
 * must not run forever.
 */
export const MAX_TOOL_FOLLOW_UPS = 10;

/** What the phase reads of the conversation and tells it. */
export interface IClientToolPhaseHost {
  readonly state: IConversationState;
  readonly clientTools: ClientToolRegistry;
  readonly status: ChatStatusKeeper;
  readonly runner: TurnRunner;
}

export class ClientToolPhase {
  constructor(private readonly _host: IClientToolPhaseHost) {}

  /** Whether client tools run now. */
  get active(): boolean {
    return this._phase !== null;
  }

  /** The user sent or answered: runs may continue by themselves again. */
  resetFollowUps(): void {
    this._followUps = 0;
  }

  /** Stop the tools running; the conversation settles once they return. */
  abort(): void {
    this._phase?.abort();
  }

  /** The conversation moved on (a new one, a restore, disposed): forget the tools running. */
  detach(): void {
    this._phase?.abort();
    this._phase = null;
  }

  /** Run `calls`, which the finished run of `entry` left, then continue. */
  async run(entry: ITurnEntry, calls: IClientToolCall[]): Promise<void> {
    const { state, status, clientTools } = this._host;
    const phase = new AbortController();
    this._phase = phase;
    status.set('running');
    const cards = calls.map(call => clientCard(entry, call.id));
    applyLocal(state, entry, {
      type: 'client_tools_running',
      cards: cards.filter((card): card is IToolCard => card !== undefined)
    });
    for (const [index, call] of calls.entries()) {
      const started = Date.now();
      const result = await clientTools.run(call, phase.signal);
      if (this._phase !== phase) {
        // The conversation moved on (a new one, a restore, disposed).
        return;
      }
      const card = cards[index];
      if (card) {
        applyLocal(state, entry, {
          type: 'client_tool_finished',
          card,
          result,
          durationMs: Date.now() - started
        });
      }
    }
    this._phase = null;
    if (phase.signal.aborted || !state.transport) {
      status.settle();
      return;
    }
    this._continue(entry);
  }

  /** Continue with the results, unless runs continued too often in a row. */
  private _continue(entry: ITurnEntry): void {
    const { state, status, runner } = this._host;
    if (this._followUps >= MAX_TOOL_FOLLOW_UPS) {
      applyLocal(state, entry, {
        type: 'note',
        message: state.trans.__(
          'The agent called client tools %1 times in a row: their results go with your next message.',
          MAX_TOOL_FOLLOW_UPS
        )
      });
      status.settle();
      return;
    }
    this._followUps += 1;
    runner.start({
      kind: 'tool_results',
      threadId: state.threadId,
      toolResults: []
    });
  }

  /** The client tools a finished run left are running; Stop aborts it. */
  private _phase: AbortController | null = null;
  /** Runs that continued by themselves since the user last sent or answered. */
  private _followUps = 0;
}

/** The tool card of call `callId` in `entry`. */
function clientCard(entry: ITurnEntry, callId: string): IToolCard | undefined {
  return entry.state.items.find(
    (item): item is IToolCard => item.kind === 'tool' && item.callId === callId
  );
}
