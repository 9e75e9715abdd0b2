import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { INotebookChange } from '../../contracts/notebook-changes';
import { translated } from '../../contracts/problems';
import type { IAgentTransport, IForeignRun } from '../../contracts/transport';
import type {
  IClientToolCall,
  ITurnContext,
  ITurnHandle,
  ITurnSink,
  TurnRefusal,
  TurnRequest
} from '../../wire/turn';
import type { InterruptResponse } from '../../wire/types';
import type { WireFrame } from '../../wire/frame-types';
import { buildResume, reviewRowCount } from '../../wire/decisions';
import { expiryOf, isExpired } from '../../wire/interrupts';
import type { JsonObject } from '../../wire/json';
import { validateJson } from '../../wire/json-schema';
import { applyLocalEvent, type LocalTurnEvent } from '../../wire/local-events';
import { TurnReducer } from '../../wire/reduce';
import type {
  Decision,
  IInterruptCard,
  IToolCard,
  ITokenUsage,
  ITurnState,
  TranscriptItem,
  TurnChange
} from '../../wire/types';
import { BranchTree, type IBranchLinks, type ISiblings } from './branches';
import {
  ClientToolRegistry,
  failInterruptedTools,
  type IOwedResult,
  owedResults
} from './client-tools';
import { logChange, turnOfCall } from './change-log';

export interface IUserEntry extends IBranchLinks {
  readonly kind: 'user';
  readonly key: string;
  readonly text: string;
  readonly context: ITurnContext | null;
  readonly time: number;
}

export interface ITurnEntry extends IBranchLinks {
  readonly kind: 'turn';
  readonly key: string;
  /** What this panel sent; null for a run another client started (AG-UI). */
  readonly request: TurnRequest | null;
  readonly state: ITurnState;
  readonly startedAt: number;
  endedAt: number | null;
  /** The page was reloaded while this turn streamed; it was ended locally. */
  interruptedByReload?: boolean;
  /**
   * Another tab or window runs this turn: shown as far as that tab saved it
   * (the library follows the store until it ends). Never saved.
   */
  runningElsewhere?: boolean;
  /**
   * The transport memory of the branch this turn ends, kept while another
   * branch is shown (docs/protocol.md §13.8).
   */
  branchMemory?: JsonObject | null;
  /** The notebook changes the agent applied in this turn (`change-log.ts`). */
  notebookChanges?: INotebookChange[];
}

export type ChatEntry = IUserEntry | ITurnEntry;

/** Another branch is shown (docs/protocol.md §13.8). */
export interface IBranchMove {
  /** The entries whose saved fields changed (the one chosen, the last of the branch left). */
  readonly saved: readonly ChatEntry[];
  /** The turns of the branch left that the branch shown does not have, oldest first. */
  readonly left: readonly ITurnEntry[];
}

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
  /** The model it chose (`ChatModel.chosenModel`); absent or null: the endpoint's default. */
  model?: string | null;
  /** What its transport asked to remember (`ChatModel.transportMemory`). */
  transportMemory?: JsonObject | null;
  /** Another tab or window runs its last turn (`ITurnEntry.runningElsewhere`). */
  runningElsewhere?: boolean;
  /**
   * Shown as another tab or window saved it: a review it waits for is that
   * tab's to answer (`ChatModel.reviewOfAnotherTab`).
   */
  fromAnotherTab?: boolean;
}

/**
 * How many runs in a row may continue by themselves after client tools
 * before the panel waits for the user: an agent that calls tools forever
 * must not run forever.
 */
export const MAX_TOOL_FOLLOW_UPS = 10;

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
  /** Entry `key` among those in its place on other branches. */
  siblings(key: string): ISiblings<ChatEntry>;
}

/**
 * The conversation: its entries, the running turn and the review that may be
 * pending. Views read it through signals; transports feed it frames.
 */
export class ChatModel implements IConversation, IDisposable {
  constructor(
    threadId: string = UUID.uuid4(),
    trans: TranslationBundle = nullTranslator.load('jupyterlab_agent_panel'),
    clientTools: ClientToolRegistry = new ClientToolRegistry(trans)
  ) {
    this._threadId = threadId;
    this._trans = trans;
    this.clientTools = clientTools;
  }

  /**
   * The tools offered to the agent on every run, run here when it calls
   * them; the panel's conversations share one registry.
   */
  readonly clientTools: ClientToolRegistry;

  /**
   * What the transport asked to remember of this conversation (AG-UI: the
   * thread's messages, state and open interrupts), handed back with every
   * request and saved with the conversation; null until it asks.
   */
  get transportMemory(): JsonObject | null {
    return this._memory;
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

  /**
   * The model this conversation chose of those its endpoint offers
   * (docs/protocol.md §16.3), sent with each of its requests and saved with
   * it; null: the endpoint's default.
   */
  get chosenModel(): string | null {
    return this._chosenModel;
  }

  set chosenModel(model: string | null) {
    if (this._chosenModel !== model) {
      this._chosenModel = model;
      this._chosenModelChanged.emit(model);
    }
  }

  get chosenModelChanged(): ISignal<this, string | null> {
    return this._chosenModelChanged;
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
  /**
   * A turn of another tab or window runs on this conversation's thread,
   * which its transport cannot show: the library follows the store.
   */
  /**
   * The review pending was shown as another tab or window saved it: that
   * tab's handlers (a notebook change's diff) answer it, not this tab's,
   * which would apply the change a second time.
   */
  get reviewOfAnotherTab(): boolean {
    return this._reviewOfAnotherTab;
  }

  get runsElsewhere(): ISignal<this, void> {
    return this._runsElsewhere;
  }

  get cleared(): ISignal<this, void> {
    return this._cleared;
  }

  /** Another branch is shown (an edit, a regenerate, a switch); `cleared` follows. */
  get branchMoved(): ISignal<this, IBranchMove> {
    return this._branchMoved;
  }

  /** Every entry of every branch, in the order they were added (what is saved). */
  get allEntries(): readonly ChatEntry[] {
    return this._tree.all;
  }

  /** Entry `key` among those in its place on other branches (`‹ n / m ›`). */
  siblings(key: string): ISiblings<ChatEntry> {
    return this._tree.siblings(key);
  }

  /** The turn entry that is streaming, if any. */
  get runningTurn(): ITurnEntry | null {
    return this._running?.entry ?? null;
  }

  /**
   * The interrupt cards a resume must answer, when a review is pending (an
   * AG-UI request past its `expiresAt` no longer is).
   */
  get pendingInterrupts(): IInterruptCard[] {
    const last = this._lastTurn();
    if (!last || last.state.outcome !== 'interrupted') {
      return [];
    }
    const now = Date.now();
    return last.state.items.filter(
      (item): item is IInterruptCard =>
        item.kind === 'interrupt' &&
        item.answered === null &&
        !isExpired(item.request, now)
    );
  }

  /** The tokens its turns reported, summed; null when none reported any. */
  get tokenUsage(): ITokenUsage | null {
    const used = this._entries.flatMap(entry =>
      entry.kind === 'turn' && entry.state.usage ? [entry.state.usage] : []
    );
    if (used.length === 0) {
      return null;
    }
    const sum = (key: keyof ITokenUsage): number | null => {
      const counts = used
        .map(usage => usage[key])
        .filter((count): count is number => count !== null);
      return counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : null;
    };
    return {
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens')
    };
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
    const entry = this._userEntry(text, context);
    this._add(entry);
    this._followUps = 0;
    this._startTurn(this._chat(entry));
  }

  /**
   * Why the conversation cannot go back to before message `key` (edit it,
   * or generate its answer again), or null when it can.
   */
  forkRefusal(key: string): string | null {
    const trans = this._trans;
    const index = this._entries.findIndex(entry => entry.key === key);
    if (this._entries[index]?.kind !== 'user') {
      return trans.__('This message is not on the branch shown.');
    }
    const transport = this._transport;
    if (!transport) {
      return trans.__('No agent endpoint is configured.');
    }
    if (transport.forkRefusal) {
      return transport.forkRefusal;
    }
    if (transport.memoryBefore) {
      return transport.memoryBefore(this._memory, this._messageIdAt(index))
        ? null
        : trans.__(
            'This message was sent before the panel kept what it needs to go back to it.'
          );
    }
    const next = this._entries[index + 1];
    return next?.kind === 'turn' && next.state.startCheckpoint !== undefined
      ? null
      : trans.__(
          'This agent keeps no checkpoints of its memory, so it cannot go back to before this message.'
        );
  }

  /**
   * Send `text` in place of the earlier message `key`: the agent goes on
   * from where it was before that message, on a new branch; the branch left
   * keeps everything, its pending review included. A running turn is
   * stopped first.
   */
  edit(key: string, text: string, context?: ITurnContext): void {
    const refusal = this.forkRefusal(key);
    if (refusal !== null) {
      throw new Error(refusal);
    }
    const entry = this._userEntry(text, context);
    if (this._whenStopped(() => this.edit(key, text, context))) {
      return;
    }
    const index = this._entries.findIndex(found => found.key === key);
    const next = this._entries[index + 1];
    const start =
      next?.kind === 'turn' ? next.state.startCheckpoint : undefined;
    const messageId = this._messageIdAt(index);
    const memory = this._transport?.memoryBefore
      ? this._transport.memoryBefore(this._memory, messageId)
      : this._memory;
    const moved = this._leaveBranch();
    const left = this._entries.slice(index);
    this._entries = this._entries.slice(0, index);
    this._tree.append(entry, this._tree.parentOf(key));
    this._tree.choose(entry.key);
    this._memory = memory;
    this._showMoved([...moved, entry], left);
    this._entries.push(entry);
    this._entryAdded.emit(entry);
    this._followUps = 0;
    // The message keeps its id: a server that keeps the thread itself
    // (ag-ui-langgraph) sees the message edited, and goes back to before it.
    this._startTurn({
      ...this._chat(entry, messageId),
      ...(start !== undefined ? { fork: { checkpointId: start } } : {})
    });
  }

  /** Generate the answer of turn `key` again, from its message, on a new branch. */
  regenerate(key: string): void {
    const message = this._messageBefore(key);
    const refusal = this.regenerateRefusal(key);
    if (refusal !== null) {
      throw new Error(refusal);
    }
    if (!message) {
      throw new Error(
        this._trans.__('This answer has no message to answer again.')
      );
    }
    this.edit(message.key, message.text, message.context ?? undefined);
  }

  /** Why the answer of turn `key` cannot be generated again, or null. */
  regenerateRefusal(key: string): string | null {
    const message = this._messageBefore(key);
    if (!message) {
      return this._trans.__('This answer has no message to answer again.');
    }
    return this._transport?.regenerateRefusal || this.forkRefusal(message.key);
  }

  /** Show the branch of entry `key` (one of the siblings at a fork). */
  showBranch(key: string): void {
    if (!this._tree.get(key)) {
      throw new Error(this._trans.__('This conversation has no such branch.'));
    }
    if (this._whenStopped(() => this.showBranch(key))) {
      return;
    }
    const moved = this._leaveBranch();
    const old = this._entries;
    this._tree.choose(key);
    this._entries = this._tree.path();
    let same = 0;
    while (same < old.length && old[same] === this._entries[same]) {
      same += 1;
    }
    const leaf = this._entries[this._entries.length - 1];
    if (leaf?.kind === 'turn' && leaf.branchMemory !== undefined) {
      this._memory = leaf.branchMemory;
    }
    this._showMoved([...moved, this._tree.get(key)!], old.slice(same));
    this._settleStatus();
  }

  /**
   * Answer the pending review: one decision per action row of its LangGraph
   * review cards, in order. The resume is sent once: a second call (a
   * double click) finds the turn running and is refused, and nothing is
   * marked answered unless it is sent. AG-UI requests of the same turn
   * (`respond`) must be answered first.
   */
  answer(decisions: Decision[]): void {
    const cards = this._pendingCards();
    const reviews = cards.filter(card => !card.request);
    if (reviews.length === 0) {
      throw new Error(
        this._trans.__('The agent asks for an answer here, not a decision.')
      );
    }
    if (cards.some(card => card.request && !this._held.has(card))) {
      throw new Error(
        this._trans.__(
          'Answer the other request of the agent in this turn first.'
        )
      );
    }
    this._resume(cards, buildResume(reviews, decisions).decisions);
  }

  /**
   * Answer an AG-UI request card (docs/protocol.md §8.9): a payload that
   * validates against its response schema, or `cancelled`. Sent with the
   * resume once every pending card of the turn is answered.
   */
  respond(card: IInterruptCard, response: InterruptResponse): void {
    const trans = this._trans;
    if (card.request && isExpired(card.request, Date.now())) {
      throw new Error(
        trans.__(
          'This request expired at %1: it can no longer be answered.',
          String(card.request.expiresAt)
        )
      );
    }
    const cards = this._pendingCards();
    if (!card.request || !cards.includes(card)) {
      throw new Error(trans.__('There is no pending review to answer.'));
    }
    if (response.status === 'resolved') {
      const problems = validateJson(
        response.payload,
        card.request.responseSchema
      );
      if (problems.length > 0) {
        throw new Error(
          trans.__(
            'The answer does not match what the agent asked for: %1',
            problems.map(found => translated(found, trans)).join('; ')
          )
        );
      }
    }
    this._held.set(card, response);
    if (cards.every(pending => this._held.has(pending))) {
      this._resume(cards, []);
    }
  }

  /** Ask the running turn (or the running client tools) to stop. */
  stop(): void {
    if (this._running) {
      this._running.stopRequested = true;
      this._running.handle.stop();
    }
    this._toolPhase?.abort();
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

  /**
   * Show a saved conversation instead of this one (only while nothing runs).
   * A turn that was still streaming when it was saved cannot be resumed: it
   * ends here as cancelled and is marked `interruptedByReload`, or, when
   * another tab or window runs it (`runningElsewhere`), `runningElsewhere`.
   */
  restore({
    threadId,
    entries,
    endpointName,
    model,
    transportMemory,
    runningElsewhere,
    fromAnotherTab
  }: IChatRestore): void {
    if (this._running || this._toolPhase) {
      throw new Error(
        this._trans.__(
          'A turn is running; the saved conversation was not restored.'
        )
      );
    }
    const now = Date.now();
    for (const entry of entries) {
      if (entry.kind !== 'turn') {
        continue;
      }
      const cut =
        applyLocalEvent(entry.state, { type: 'ended_by_reload' }).length > 0;
      if (cut && runningElsewhere) {
        entry.runningElsewhere = true;
      } else if (cut) {
        entry.endedAt = entry.endedAt ?? now;
        entry.interruptedByReload = true;
      }
      failInterruptedTools(
        entry.state,
        runningElsewhere
          ? this._trans.__('Runs in another tab or window.')
          : this._trans.__('Interrupted by a page reload.')
      );
    }
    const sameThread = threadId === this._threadId;
    this._reviewOfAnotherTab = fromAnotherTab === true;
    this._tree = new BranchTree(entries);
    this._entries = this._tree.path();
    this._threadId = threadId;
    this._memory = transportMemory ?? null;
    this._held.clear();
    this.endpointName = endpointName ?? null;
    this.chosenModel = model ?? null;
    // Shown again from the store as another tab saves it: the thread is
    // already followed (a join per save would be refused as busy each time).
    if (!sameThread || this._following === null) {
      this._followThread();
    }
    this._cleared.emit();
    this._settleStatus();
  }

  /**
   * Log a notebook change the agent applied, on the turn of its call (else
   * the latest turn), and save it with that turn; false when there is none.
   */
  logNotebookChange(change: INotebookChange): boolean {
    const entry = turnOfCall(this._entries, change.callId) ?? this._lastTurn();
    if (entry) {
      logChange(entry, change);
      this._turnChanged.emit({ entry, changes: [] });
    }
    return entry !== undefined;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._detachRunning();
    this._following?.dispose();
    this._following = null;
    clearTimeout(this._expiryTimer);
    Signal.clearData(this);
  }

  private _assertTransport(): IAgentTransport {
    if (!this._transport) {
      throw new Error(this._trans.__('No agent endpoint is configured.'));
    }
    return this._transport;
  }

  /**
   * Start `request` (kept on its entry as it is); the transport also gets
   * the conversation's memory, its model, the offered tools and the
   * client-tool results the agent has not been given yet.
   */
  private _startTurn(request: TurnRequest, answering?: IAnswering): void {
    const transport = this._assertTransport();
    const fork = request.fork ?? this._forkToShownBranch();
    const owed = owedResults(
      this._entries.filter(
        (entry): entry is ITurnEntry => entry.kind === 'turn'
      )
    );
    const results = owed.map(({ result }) => result);
    const running = this._openTurn(
      request.kind === 'tool_results'
        ? { ...request, toolResults: results }
        : request
    );
    running.answering = answering;
    running.carried = owed;
    const tools = this.clientTools.offered();
    const sent: TurnRequest = {
      ...request,
      ...(this._memory ? { memory: this._memory } : {}),
      ...(this._chosenModel !== null ? { model: this._chosenModel } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(results.length > 0 ? { toolResults: results } : {}),
      ...(fork ? { fork } : {})
    };
    running.handle = transport.startTurn(sent, this._sinkFor(running));
  }

  /** Add a turn entry and make it the running turn; its handle comes next. */
  private _openTurn(request: TurnRequest | null): IRunningTurn {
    this._reviewOfAnotherTab = false;
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
      carried: [],
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
      remember: memory => this._remember(running, memory),
      clientToolCalls: calls => {
        // Another client's run: that client runs its tools.
        if (running.entry.request !== null) {
          running.clientCalls = calls;
        }
      },
      end: (failure?: string, refusal?: TurnRefusal) =>
        this._endTurn(running, failure, refusal)
    };
  }

  /** The run finished: its memory is the conversation's, its results delivered. */
  private _remember(running: IRunningTurn, memory: JsonObject): void {
    if (running.detached) {
      return;
    }
    this._memory = memory;
    for (const { entry, card } of running.carried) {
      this._applyLocal(entry, {
        type: 'client_tools_delivered',
        cards: [card]
      });
    }
    running.carried = [];
  }

  /**
   * Show the runs other clients start on this thread (another tab, or a
   * run still going after a reload), when the transport can see them.
   */
  private _followThread(): void {
    this._following?.dispose();
    this._following =
      this._transport?.followThread?.(
        this._threadId,
        run => this._adoptForeignRun(run),
        () => this._memory ?? undefined,
        () => this._runsElsewhere.emit()
      ) ?? null;
  }

  private _adoptForeignRun(run: IForeignRun): ITurnSink | null {
    if (this._running || this._toolPhase) {
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
    if (refusal && running.answering) {
      this._markAnsweredElsewhere(running.answering);
    }
    if (refusal === 'busy') {
      failure = this._trans.__(
        'The agent is already answering in this conversation, in another tab or window: wait for that answer, then send again.'
      );
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

  /**
   * The review was answered in another tab (nothing waits, or another review
   * replaced it): these cards' decisions did nothing.
   */
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
    const calls = running.clientCalls ?? [];
    if (
      calls.length > 0 &&
      running.entry.state.outcome === 'complete' &&
      !running.stopRequested
    ) {
      void this._runClientTools(running.entry, calls);
      return;
    }
    this._settleStatus();
  }

  /**
   * Run the client tools a finished run left for the panel, one after the
   * other, then continue with their results (docs/protocol.md §8.11). Stop
   * cancels them: the cancelled results go with the next message instead.
   */
  private async _runClientTools(
    entry: ITurnEntry,
    calls: IClientToolCall[]
  ): Promise<void> {
    const phase = new AbortController();
    this._toolPhase = phase;
    this._setStatus('running');
    const cards = calls.map(call => this._clientCard(entry, call.id));
    this._applyLocal(entry, {
      type: 'client_tools_running',
      cards: cards.filter((card): card is IToolCard => card !== undefined)
    });
    for (const [index, call] of calls.entries()) {
      const started = Date.now();
      const result = await this.clientTools.run(call, phase.signal);
      if (this._toolPhase !== phase) {
        // The conversation moved on (a new one, a restore, disposed).
        return;
      }
      const card = cards[index];
      if (card) {
        this._applyLocal(entry, {
          type: 'client_tool_finished',
          card,
          result,
          durationMs: Date.now() - started
        });
      }
    }
    this._toolPhase = null;
    if (phase.signal.aborted || !this._transport) {
      this._settleStatus();
      return;
    }
    if (this._followUps >= MAX_TOOL_FOLLOW_UPS) {
      this._applyLocal(entry, {
        type: 'note',
        message: this._trans.__(
          'The agent called client tools %1 times in a row: their results go with your next message.',
          MAX_TOOL_FOLLOW_UPS
        )
      });
      this._settleStatus();
      return;
    }
    this._followUps += 1;
    this._startTurn({
      kind: 'tool_results',
      threadId: this._threadId,
      toolResults: []
    });
  }

  /** The tool card of call `callId` in `entry`. */
  private _clientCard(
    entry: ITurnEntry,
    callId: string
  ): IToolCard | undefined {
    return entry.state.items.find(
      (item): item is IToolCard =>
        item.kind === 'tool' && item.callId === callId
    );
  }

  /** The unexpired pending cards, when a review waits; else a refusal. */
  private _pendingCards(): IInterruptCard[] {
    const cards = this.pendingInterrupts;
    if (this._status !== 'awaiting-decision' || cards.length === 0) {
      throw new Error(this._trans.__('There is no pending review to answer.'));
    }
    this._assertTransport();
    return cards;
  }

  /** Mark the cards answered and send the resume that answers them. */
  private _resume(cards: IInterruptCard[], decisions: Decision[]): void {
    const last = this._lastTurn()!;
    const reviews = cards.filter(card => !card.request);
    if (reviews.length > 0) {
      this._applyLocal(last, {
        type: 'review_answered',
        cards: reviews,
        decisions
      });
    }
    for (const card of cards) {
      const response = this._held.get(card);
      if (card.request && response) {
        this._applyLocal(last, { type: 'request_answered', card, response });
      }
    }
    const answers = cards.map(card => ({
      interruptIds: [...card.interruptIds],
      rows: card.request ? 0 : reviewRowCount(card),
      ...(card.request ? { response: this._held.get(card) } : {})
    }));
    this._held.clear();
    this._followUps = 0;
    this._startTurn(
      {
        kind: 'resume',
        threadId: this._threadId,
        decisions,
        reviews: answers
      },
      { entry: last, cards }
    );
  }

  private _applyLocal(entry: ITurnEntry, event: LocalTurnEvent): void {
    this._applyLocalChanges(entry, applyLocalEvent(entry.state, event));
  }

  private _applyLocalChanges(
    entry: ITurnEntry,
    changes: readonly TurnChange[]
  ): void {
    if (changes.length > 0) {
      this._turnChanged.emit({ entry, changes });
    }
  }

  /**
   * Idle, or waiting for a review, once nothing runs; an AG-UI request that
   * expires later is looked at again then.
   */
  private _settleStatus(): void {
    if (this._running || this._toolPhase) {
      return;
    }
    const after = this._afterStop;
    if (after) {
      this._afterStop = null;
      after();
      return;
    }
    const pending = this.pendingInterrupts;
    this._setStatus(pending.length > 0 ? 'awaiting-decision' : 'idle');
    clearTimeout(this._expiryTimer);
    const expiries = pending
      .map(card => expiryOf(card.request))
      .filter((at): at is number => at !== null);
    if (expiries.length > 0) {
      const delay = Math.min(Math.min(...expiries) - Date.now(), MAX_TIMER_MS);
      this._expiryTimer = setTimeout(
        () => {
          const last = this._lastTurn();
          if (last) {
            this._applyLocalChanges(
              last,
              pending.map(card => ({ type: 'updated', item: card }))
            );
          }
          this._settleStatus();
        },
        Math.max(0, delay)
      );
    }
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
    this._toolPhase?.abort();
    this._toolPhase = null;
    this._afterStop = null;
    this._held.clear();
  }

  private _add(entry: ChatEntry): void {
    const last = this._entries[this._entries.length - 1];
    this._tree.append(entry, last?.key ?? null);
    this._entries.push(entry);
    this._entryAdded.emit(entry);
  }

  /** The id the message at `index` of the branch shown was sent with. */
  private _messageIdAt(index: number): string {
    const next = this._entries[index + 1];
    const request = next?.kind === 'turn' ? next.request : null;
    return request?.kind === 'chat' && request.messageId
      ? request.messageId
      : this._entries[index].key;
  }

  /** The user message that turn `key` (on the branch shown) answers. */
  private _messageBefore(key: string): IUserEntry | undefined {
    const index = this._entries.findIndex(entry => entry.key === key);
    for (let i = index - 1; i >= 0; i--) {
      const entry = this._entries[i];
      if (entry.kind === 'user') {
        return entry;
      }
    }
    return undefined;
  }

  private _userEntry(text: string, context?: ITurnContext): IUserEntry {
    if (!text.trim()) {
      throw new Error(this._trans.__('The message is empty.'));
    }
    return {
      kind: 'user',
      key: UUID.uuid4(),
      text,
      context: context ?? null,
      time: Date.now()
    };
  }

  private _chat(entry: IUserEntry, messageId = entry.key): TurnRequest {
    return {
      kind: 'chat',
      threadId: this._threadId,
      message: entry.text,
      context: entry.context ?? undefined,
      messageId
    };
  }

  /**
   * Run `action` once the running turn (or client tools) stopped: true when
   * it waits for that, false when nothing runs.
   */
  private _whenStopped(action: () => void): boolean {
    if (!this._running && !this._toolPhase) {
      return false;
    }
    this._afterStop = action;
    this.stop();
    return true;
  }

  /** The branch shown is left: its memory stays with its last turn. */
  private _leaveBranch(): ChatEntry[] {
    const leaf = this._entries[this._entries.length - 1];
    this._held.clear();
    this._reviewOfAnotherTab = false;
    if (leaf?.kind !== 'turn') {
      return [];
    }
    leaf.branchMemory = this._memory;
    return [leaf];
  }

  private _showMoved(saved: ChatEntry[], left: readonly ChatEntry[]): void {
    this._branchMoved.emit({
      saved,
      left: left.filter((entry): entry is ITurnEntry => entry.kind === 'turn')
    });
    this._cleared.emit();
  }

  /**
   * Where the agent's thread goes back to before the next run, when another
   * branch than the one the thread last ran on is shown: the checkpoint the
   * branch's last turn ended at (docs/protocol.md §5.10).
   */
  private _forkToShownBranch(): { checkpointId: string | null } | undefined {
    const last = this._lastTurn();
    let ran: ITurnEntry | undefined;
    for (const entry of this._tree.all) {
      if (entry.kind === 'turn' && (!ran || entry.startedAt >= ran.startedAt)) {
        ran = entry;
      }
    }
    if (!last || last === ran) {
      return undefined;
    }
    // A turn stopped before it reported its end goes back to its start.
    const at = last.state.endCheckpoint ?? last.state.startCheckpoint;
    return at !== undefined ? { checkpointId: at } : undefined;
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
  /** The branch shown; `_tree` has every branch. */
  private _entries: ChatEntry[] = [];
  private _tree = new BranchTree<ChatEntry>();
  /** What to do once the running turn stopped (an edit or a switch asked for it). */
  private _afterStop: (() => void) | null = null;
  private _status: ChatStatus = 'idle';
  private _transport: IAgentTransport | null = null;
  private _endpointName: string | null = null;
  private _chosenModel: string | null = null;
  private _running: IRunningTurn | null = null;
  /** The client tools a finished run left are running; Stop aborts it. */
  private _toolPhase: AbortController | null = null;
  /** Runs that continued by themselves since the user last sent or answered. */
  private _followUps = 0;
  /** Answers to AG-UI requests, held until the whole turn is answered. */
  private readonly _held = new Map<IInterruptCard, InterruptResponse>();
  private _memory: JsonObject | null = null;
  private _expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private _following: IDisposable | null = null;
  private _isDisposed = false;
  private readonly _entryAdded = new Signal<this, ChatEntry>(this);
  private readonly _turnChanged = new Signal<this, ITurnUpdate>(this);
  private readonly _statusChanged = new Signal<this, ChatStatus>(this);
  private readonly _cleared = new Signal<this, void>(this);
  private readonly _branchMoved = new Signal<this, IBranchMove>(this);
  private readonly _runsElsewhere = new Signal<this, void>(this);
  private _reviewOfAnotherTab = false;
  private readonly _endpointChanged = new Signal<this, string | null>(this);
  private readonly _chosenModelChanged = new Signal<this, string | null>(this);
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
  /** Client-tool results the request carried: delivered once the run finishes. */
  carried: IOwedResult<ITurnEntry>[];
  /** Calls of client tools the run left for the panel to run. */
  clientCalls?: IClientToolCall[];
}

/** The longest delay `setTimeout` takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface IAnswering {
  readonly entry: ITurnEntry;
  readonly cards: IInterruptCard[];
}
