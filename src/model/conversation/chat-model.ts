import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { IAgentTransport, IForeignRun } from '../../contracts/transport';
import type {
  ITurnContext,
  ITurnHandle,
  ITurnSink,
  TurnRefusal,
  TurnRequest
} from '../../wire/turn';
import type { WireFrame } from '../../wire/frame-types';
import { buildResume, reviewRowCount } from '../../wire/decisions';
import { applyLocalEvent, TurnReducer } from '../../wire/reduce';
import type {
  Decision,
  IInterruptCard,
  ITurnState,
  TranscriptItem,
  TurnChange
} from '../../wire/types';

export interface IUserEntry {
  readonly kind: 'user';
  readonly key: string;
  readonly text: string;
  readonly context: ITurnContext | null;
  readonly time: number;
}

export interface ITurnEntry {
  readonly kind: 'turn';
  readonly key: string;
  /** What this panel sent; null for a run another client started (AG-UI). */
  readonly request: TurnRequest | null;
  readonly state: ITurnState;
  readonly startedAt: number;
  endedAt: number | null;
  /** The page was reloaded while this turn streamed; it was ended locally. */
  interruptedByReload?: boolean;
}

export type ChatEntry = IUserEntry | ITurnEntry;

/** `running`: a turn streams. `awaiting-decision`: an interrupt waits for review. */
export type ChatStatus = 'idle' | 'running' | 'awaiting-decision';

export interface ITurnUpdate {
  readonly entry: ITurnEntry;
  readonly changes: readonly TurnChange[];
}

/** A conversation to show again, e.g. after a page reload. */
export interface IChatRestore {
  threadId: string;
  entries: ChatEntry[];
  /** The endpoint the conversation belongs to; absent or null: the default. */
  endpointName?: string | null;
}

/**
 * The conversation as other plugins read it (`IAgentPanel.model`): what the
 * notebook commands put into notebooks. Read-only: sending, answering and
 * stopping stay with the panel.
 */
export interface IConversation {
  /** The thread its turns go to; inserted cells record it. */
  readonly threadId: string;
  readonly entries: readonly ChatEntry[];
  findItem(turnKey: string, itemKey: number): TranscriptItem | undefined;
}

/**
 * The conversation: its entries, the running turn and the review that may be
 * pending. Views read it through signals; transports feed it frames.
 */
export class ChatModel implements IConversation, IDisposable {
  constructor(
    threadId: string = UUID.uuid4(),
    trans: TranslationBundle = nullTranslator.load('jupyterlab_agent_panel')
  ) {
    this._threadId = threadId;
    this._trans = trans;
  }

  get threadId(): string {
    return this._threadId;
  }

  get entries(): readonly ChatEntry[] {
    return this._entries;
  }

  get status(): ChatStatus {
    return this._status;
  }

  get transport(): IAgentTransport | null {
    return this._transport;
  }

  set transport(transport: IAgentTransport | null) {
    this._transport = transport;
    this._followThread();
  }

  /**
   * The name of the endpoint this conversation belongs to (saved with it);
   * null until it is chosen or its first message is sent: it then follows
   * the default endpoint. The panel service connects to it.
   */
  get endpointName(): string | null {
    return this._endpointName;
  }

  set endpointName(name: string | null) {
    if (this._endpointName !== name) {
      this._endpointName = name;
      this._endpointChanged.emit(name);
    }
  }

  get endpointChanged(): ISignal<this, string | null> {
    return this._endpointChanged;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  get entryAdded(): ISignal<this, ChatEntry> {
    return this._entryAdded;
  }

  get turnChanged(): ISignal<this, ITurnUpdate> {
    return this._turnChanged;
  }

  get statusChanged(): ISignal<this, ChatStatus> {
    return this._statusChanged;
  }

  /** The conversation was emptied or replaced; views rebuild from `entries`. */
  get cleared(): ISignal<this, void> {
    return this._cleared;
  }

  /** The turn entry that is streaming, if any. */
  get runningTurn(): ITurnEntry | null {
    return this._running?.entry ?? null;
  }

  /** The interrupt cards a resume must answer, when a review is pending. */
  get pendingInterrupts(): IInterruptCard[] {
    const last = this._lastTurn();
    if (!last || last.state.outcome !== 'interrupted') {
      return [];
    }
    return last.state.items.filter(
      (item): item is IInterruptCard =>
        item.kind === 'interrupt' && item.answered === null
    );
  }

  findItem(turnKey: string, itemKey: number): TranscriptItem | undefined {
    const entry = this._entries.find(
      (e): e is ITurnEntry => e.kind === 'turn' && e.key === turnKey
    );
    return entry?.state.items.find(item => item.key === itemKey);
  }

  /** Send a message; refused (with the reason) while a turn runs or a review waits. */
  send(text: string, context?: ITurnContext): void {
    this._assertCanStart();
    if (!text.trim()) {
      throw new Error(this._trans.__('The message is empty.'));
    }
    this._add({
      kind: 'user',
      key: UUID.uuid4(),
      text,
      context: context ?? null,
      time: Date.now()
    });
    this._startTurn({
      kind: 'chat',
      threadId: this._threadId,
      message: text,
      context
    });
  }

  /**
   * Answer the pending review: one decision per action row, in order. The
   * resume is sent once: a second call (a double click) finds the turn
   * running and is refused, and nothing is marked answered unless it is sent.
   */
  answer(decisions: Decision[]): void {
    const cards = this.pendingInterrupts;
    if (this._status !== 'awaiting-decision' || cards.length === 0) {
      throw new Error(this._trans.__('There is no pending review to answer.'));
    }
    this._assertTransport();
    const envelope = buildResume(cards, decisions);
    const last = this._lastTurn()!;
    this._turnChanged.emit({
      entry: last,
      changes: applyLocalEvent(last.state, {
        type: 'review_answered',
        cards,
        decisions: envelope.decisions
      })
    });
    this._startTurn(
      {
        kind: 'resume',
        threadId: this._threadId,
        decisions: envelope.decisions,
        reviews: cards.map(card => ({
          interruptIds: [...card.interruptIds],
          rows: reviewRowCount(card)
        }))
      },
      { entry: last, cards }
    );
  }

  /** Ask the running turn to stop. */
  stop(): void {
    if (this._running) {
      this._running.stopRequested = true;
      this._running.handle.stop();
    }
  }

  /** Send the last user message again (after an error or a stop). */
  retry(): void {
    const lastUser = [...this._entries]
      .reverse()
      .find((entry): entry is IUserEntry => entry.kind === 'user');
    if (!lastUser) {
      throw new Error(this._trans.__('There is no message to retry.'));
    }
    this.send(lastUser.text, lastUser.context ?? undefined);
  }

  /** Forget this conversation and start a new thread. */
  newConversation(threadId: string = UUID.uuid4()): void {
    this._detachRunning();
    this._entries = [];
    this._threadId = threadId;
    this.endpointName = null;
    this._followThread();
    this._cleared.emit();
    this._setStatus('idle');
  }

  /**
   * Show a saved conversation instead of this one (only while nothing runs).
   * A turn that was still streaming when it was saved cannot be resumed: it
   * ends here as cancelled and is marked `interruptedByReload`.
   */
  restore({ threadId, entries, endpointName }: IChatRestore): void {
    if (this._running) {
      throw new Error(
        this._trans.__(
          'A turn is running; the saved conversation was not restored.'
        )
      );
    }
    const now = Date.now();
    for (const entry of entries) {
      const cut =
        entry.kind === 'turn' &&
        applyLocalEvent(entry.state, { type: 'ended_by_reload' }).length > 0;
      if (cut) {
        entry.endedAt = entry.endedAt ?? now;
        entry.interruptedByReload = true;
      }
    }
    this._entries = [...entries];
    this._threadId = threadId;
    this.endpointName = endpointName ?? null;
    this._followThread();
    this._cleared.emit();
    this._setStatus(
      this.pendingInterrupts.length > 0 ? 'awaiting-decision' : 'idle'
    );
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._detachRunning();
    this._following?.dispose();
    this._following = null;
    Signal.clearData(this);
  }

  private _assertTransport(): IAgentTransport {
    if (!this._transport) {
      throw new Error(this._trans.__('No agent endpoint is configured.'));
    }
    return this._transport;
  }

  private _startTurn(request: TurnRequest, answering?: IAnswering): void {
    const transport = this._assertTransport();
    const running = this._openTurn(request);
    running.answering = answering;
    running.handle = transport.startTurn(request, this._sinkFor(running));
  }

  /** Add a turn entry and make it the running turn; its handle comes next. */
  private _openTurn(request: TurnRequest | null): IRunningTurn {
    const reducer = new TurnReducer();
    const entry: ITurnEntry = {
      kind: 'turn',
      key: UUID.uuid4(),
      request,
      state: reducer.state,
      startedAt: Date.now(),
      endedAt: null
    };
    this._add(entry);
    const running: IRunningTurn = {
      entry,
      reducer,
      stopRequested: false,
      detached: false,
      handle: null!
    };
    this._running = running;
    this._setStatus('running');
    return running;
  }

  private _sinkFor(running: IRunningTurn): ITurnSink {
    return {
      frame: (frame: WireFrame) =>
        this._applyTo(running, running.reducer.apply(frame)),
      diagnostic: (message: string) =>
        this._applyTo(running, running.reducer.diagnostic(message)),
      end: (failure?: string, refusal?: TurnRefusal) =>
        this._endTurn(running, failure, refusal)
    };
  }

  /**
   * Show the runs other clients start on this thread (another tab, or a
   * run still going after a reload), when the transport can see them.
   */
  private _followThread(): void {
    this._following?.dispose();
    this._following =
      this._transport?.followThread?.(this._threadId, run =>
        this._adoptForeignRun(run)
      ) ?? null;
  }

  private _adoptForeignRun(run: IForeignRun): ITurnSink | null {
    if (this._running) {
      return null;
    }
    const running = this._openTurn(null);
    running.handle = run;
    return this._sinkFor(running);
  }

  private _applyTo(running: IRunningTurn, changes: TurnChange[]): void {
    // A turn that ended still reports what arrives late (as diagnostics).
    if (running.detached || changes.length === 0) {
      return;
    }
    this._turnChanged.emit({ entry: running.entry, changes });
    if (changes.some(change => change.type === 'ended')) {
      this._finish(running);
    }
  }

  private _endTurn(
    running: IRunningTurn,
    failure?: string,
    refusal?: TurnRefusal
  ): void {
    if (this._running !== running) {
      return;
    }
    if (refusal === 'nothing_pending' && running.answering) {
      this._markAnsweredElsewhere(running.answering);
    }
    const { reducer } = running;
    const changes =
      running.stopRequested && !failure && reducer.state.outcome === null
        ? reducer.cancelLocally(
            this._trans.__('Stopped before the agent confirmed.')
          )
        : reducer.endOfStream(failure);
    this._applyTo(running, changes);
    this._finish(running);
  }

  /** The review was answered in another tab: these cards' decisions did nothing. */
  private _markAnsweredElsewhere({ entry, cards }: IAnswering): void {
    this._turnChanged.emit({
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
    this._setStatus(
      this.pendingInterrupts.length > 0 ? 'awaiting-decision' : 'idle'
    );
  }

  private _assertCanStart(): void {
    if (this._status === 'running') {
      throw new Error(
        this._trans.__('The agent is still answering; wait or press Stop.')
      );
    }
    if (this._status === 'awaiting-decision') {
      throw new Error(
        this._trans.__(
          'The agent is waiting for your review; answer it before sending a new message.'
        )
      );
    }
  }

  private _detachRunning(): void {
    const running = this._running;
    this._running = null;
    if (running) {
      running.detached = true;
      running.handle.stop();
    }
  }

  private _add(entry: ChatEntry): void {
    this._entries.push(entry);
    this._entryAdded.emit(entry);
  }

  private _lastTurn(): ITurnEntry | undefined {
    for (let i = this._entries.length - 1; i >= 0; i--) {
      const entry = this._entries[i];
      if (entry.kind === 'turn') {
        return entry;
      }
    }
    return undefined;
  }

  private _setStatus(status: ChatStatus): void {
    if (this._status !== status) {
      this._status = status;
      this._statusChanged.emit(status);
    }
  }

  private _threadId: string;
  private readonly _trans: TranslationBundle;
  private _entries: ChatEntry[] = [];
  private _status: ChatStatus = 'idle';
  private _transport: IAgentTransport | null = null;
  private _endpointName: string | null = null;
  private _running: IRunningTurn | null = null;
  private _following: IDisposable | null = null;
  private _isDisposed = false;
  private readonly _entryAdded = new Signal<this, ChatEntry>(this);
  private readonly _turnChanged = new Signal<this, ITurnUpdate>(this);
  private readonly _statusChanged = new Signal<this, ChatStatus>(this);
  private readonly _cleared = new Signal<this, void>(this);
  private readonly _endpointChanged = new Signal<this, string | null>(this);
}

interface IRunningTurn {
  readonly entry: ITurnEntry;
  readonly reducer: TurnReducer;
  stopRequested: boolean;
  /** The conversation moved on (new or restored); ignore this turn. */
  detached: boolean;
  handle: Pick<ITurnHandle, 'stop'>;
  /** For a resume: the review cards it answers and their turn. */
  answering?: IAnswering;
}

interface IAnswering {
  readonly entry: ITurnEntry;
  readonly cards: IInterruptCard[];
}
