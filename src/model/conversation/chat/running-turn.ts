/**
 * The turn that streams: it starts a request on the transport (with the
 * conversation's memory, model, offered tools and the client-tool results
 * still owed) or adopts a run another client started, applies what arrives
 * to its entry, and ends it.
 */
import { UUID } from '@lumino/coreutils';
import type { IForeignRun } from '../../../contracts/transport';
import type { JsonObject } from '../../../wire/json';
import { applyLocalEvent } from '../../../wire/local-events';
import { TurnReducer } from '../../../wire/reduce';
import type {
  IClientToolCall,
  ITurnHandle,
  ITurnSink,
  TurnRefusal,
  TurnRequest
} from '../../../wire/turn';
import type { WireFrame } from '../../../wire/frame-types';
import type { IInterruptCard, TurnChange } from '../../../wire/types';
import type { ITurnEntry } from './chat-entries';
import {
  type ClientToolRegistry,
  type IOwedResult,
  owedResults
} from './client-tools';
import type { ChatStatusKeeper } from './chat-status';
import {
  applyLocal,
  assertTransport,
  type IConversationState
} from './conversation-state';

/** For a resume: the review cards it answers and their turn. */
export interface IAnswering {
  readonly entry: ITurnEntry;
  readonly cards: IInterruptCard[];
}

/** What the running turn reads of the conversation and tells it. */
export interface ITurnRunnerHost {
  readonly state: IConversationState;
  readonly clientTools: ClientToolRegistry;
  readonly status: ChatStatusKeeper;
  /** A completed run left `calls` of client tools for the panel to run. */
  runClientTools(entry: ITurnEntry, calls: IClientToolCall[]): void;
}

export class TurnRunner {
  constructor(private readonly _host: ITurnRunnerHost) {}

  /** The turn entry that is streaming, if any. */
  get entry(): ITurnEntry | null {
    return this._running?.entry ?? null;
  }

  /**
   * Start `request` (kept on its entry as it is); the transport also gets
   * the conversation's memory, its model, the offered tools and the
   * client-tool results the agent has not been given yet.
   */
  start(request: TurnRequest, answering?: IAnswering): void {
    const { state, clientTools } = this._host;
    const transport = assertTransport(state);
    const fork = request.fork ?? state.branch.forkPoint();
    const owed = owedResults(
      state.branch.entries.filter(
        (entry): entry is ITurnEntry => entry.kind === 'turn'
      )
    );
    const results = owed.map(({ result }) => result);
    const running = this._open(
      request.kind === 'tool_results'
        ? { ...request, toolResults: results }
        : request
    );
    running.answering = answering;
    running.carried = owed;
    const tools = clientTools.offered();
    const sent: TurnRequest = {
      ...request,
      ...(state.memory ? { memory: state.memory } : {}),
      ...(state.chosenModel !== null ? { model: state.chosenModel } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(results.length > 0 ? { toolResults: results } : {}),
      ...(fork ? { fork } : {})
    };
    running.handle = transport.startTurn(sent, this._sinkFor(running));
  }

  /** Show `run`, which another client started on this thread, as the running turn. */
  adopt(run: IForeignRun): ITurnSink {
    const running = this._open(null);
    running.handle = run;
    return this._sinkFor(running);
  }

  /** Ask the running turn to stop; it ends when the transport says so. */
  stop(): void {
    if (this._running) {
      this._running.stopRequested = true;
      this._running.handle.stop();
    }
  }

  /** The conversation moved on (new, restored, disposed): stop and ignore the running turn. */
  detach(): void {
    const running = this._running;
    this._running = null;
    if (running) {
      running.detached = true;
      running.handle.stop();
    }
  }

  /** Add a turn entry and make it the running turn; its handle comes next. */
  private _open(request: TurnRequest | null): IRunningTurn {
    const { state, status } = this._host;
    state.reviewOfAnotherTab = false;
    const reducer = new TurnReducer();
    const entry: ITurnEntry = {
      kind: 'turn',
      key: UUID.uuid4(),
      request,
      state: reducer.state,
      startedAt: Date.now(),
      endedAt: null
    };
    state.branch.add(entry);
    const running: IRunningTurn = {
      entry,
      reducer,
      stopRequested: false,
      detached: false,
      carried: [],
      handle: null!
    };
    this._running = running;
    status.set('running');
    return running;
  }

  private _sinkFor(running: IRunningTurn): ITurnSink {
    return {
      frame: (frame: WireFrame) =>
        this._applyTo(running, running.reducer.apply(frame)),
      diagnostic: (message: string) =>
        this._applyTo(running, running.reducer.diagnostic(message)),
      remember: memory => this._remember(running, memory),
      clientToolCalls: calls => {
        // Another client's run: that client runs its tools.
        if (running.entry.request !== null) {
          running.clientCalls = calls;
        }
      },
      end: (failure?: string, refusal?: TurnRefusal) =>
        this._end(running, failure, refusal)
    };
  }

  /** The run finished: its memory is the conversation's, its results delivered. */
  private _remember(running: IRunningTurn, memory: JsonObject): void {
    if (running.detached) {
      return;
    }
    const { state } = this._host;
    state.memory = memory;
    for (const { entry, card } of running.carried) {
      applyLocal(state, entry, {
        type: 'client_tools_delivered',
        cards: [card]
      });
    }
    running.carried = [];
  }

  private _applyTo(running: IRunningTurn, changes: TurnChange[]): void {
    // A turn that ended still reports what arrives late (as diagnostics).
    if (running.detached || changes.length === 0) {
      return;
    }
    this._host.state.turnChanged({ entry: running.entry, changes });
    if (changes.some(change => change.type === 'ended')) {
      this._finish(running);
    }
  }

  private _end(
    running: IRunningTurn,
    failure?: string,
    refusal?: TurnRefusal
  ): void {
    if (this._running !== running) {
      return;
    }
    const { trans } = this._host.state;
    if (refusal && running.answering) {
      this._markAnsweredElsewhere(running.answering);
    }
    if (refusal === 'busy') {
      failure = trans.__(
        'The agent is already answering in this conversation, in another tab or window: wait for that answer, then send again.'
      );
    }
    const { reducer } = running;
    const changes =
      running.stopRequested && !failure && reducer.state.outcome === null
        ? reducer.cancelLocally(trans.__('Stopped before the agent confirmed.'))
        : reducer.endOfStream(failure);
    this._applyTo(running, changes);
    this._finish(running);
  }

  /**
   * The review was answered in another tab (nothing waits, or another review
   * replaced it): these cards' decisions did nothing.
   */
  private _markAnsweredElsewhere({ entry, cards }: IAnswering): void {
    this._host.state.turnChanged({
      entry,
      changes: applyLocalEvent(entry.state, {
        type: 'answered_elsewhere',
        cards
      })
    });
  }

  private _finish(running: IRunningTurn): void {
    if (this._running !== running) {
      return;
    }
    running.entry.endedAt = Date.now();
    this._running = null;
    const calls = running.clientCalls ?? [];
    if (
      calls.length > 0 &&
      running.entry.state.outcome === 'complete' &&
      !running.stopRequested
    ) {
      this._host.runClientTools(running.entry, calls);
      return;
    }
    this._host.status.settle();
  }

  private _running: IRunningTurn | null = null;
}

interface IRunningTurn {
  readonly entry: ITurnEntry;
  readonly reducer: TurnReducer;
  stopRequested: boolean;
  /** The conversation moved on (new or restored); ignore this turn. */
  detached: boolean;
  handle: Pick<ITurnHandle, 'stop'>;
  answering?: IAnswering;
  /** Client-tool results the request carried: delivered once the run finishes. */
  carried: IOwedResult<ITurnEntry>[];
  /** Calls of client tools the run left for the panel to run. */
  clientCalls?: IClientToolCall[];
}
