/**
 * The conversation as views and plugins use it (`ChatModel`): its entries,
 * the running turn and the review that may be pending, read through signals
 * and fed by the transport. Its parts do the work: the branch shown
 * (`shown-branch.ts`) and moves between branches (`branch-moves.ts`), the
 * running turn (`running-turn.ts`), the client-tool phase
 * (`client-tool-phase.ts`), runs of other clients (`foreign-runs.ts`),
 * review answers (`review-answers.ts`) and the status (`chat-status.ts`).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { INotebookChange } from '../../contracts/notebook-changes';
import type { IAgentTransport } from '../../contracts/transport';
import type { ITurnContext, TurnRequest } from '../../wire/turn';
import type { InterruptResponse } from '../../wire/types';
import type { JsonObject } from '../../wire/json';
import type {
  Decision,
  IInterruptCard,
  ITokenUsage,
  TranscriptItem
} from '../../wire/types';
import type { ISiblings } from './chat/branches';
import { BranchMoves, type IBranchMove } from './chat/branch-moves';
import {
  type ChatEntry,
  chatRequest,
  endUnfinishedTurns,
  findItem,
  type ITurnEntry,
  type ITurnUpdate,
  lastMessage,
  tokenUsage,
  userEntry
} from './chat/chat-entries';
import { logChange, turnOfCall } from './chat/change-log';
import { ClientToolPhase } from './chat/client-tool-phase';
import { ClientToolRegistry } from './chat/client-tools';
import { type ChatStatus, ChatStatusKeeper } from './chat/chat-status';
import type { IConversationState } from './chat/conversation-state';
import { ForeignRuns } from './chat/foreign-runs';
import { pendingInterrupts } from './chat/request-expiry';
import { ReviewAnswers } from './chat/review-answers';
import { type IAnswering, TurnRunner } from './chat/running-turn';
import { ShownBranch } from './chat/shown-branch';
import { panelStrings } from '../../contracts/translation';

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
    trans: TranslationBundle = panelStrings(),
    clientTools: ClientToolRegistry = new ClientToolRegistry(trans)
  ) {
    this.clientTools = clientTools;
    const state: IConversationState = {
      trans,
      threadId,
      transport: null,
      memory: null,
      chosenModel: null,
      reviewOfAnotherTab: false,
      branch: new ShownBranch(entry => this._entryAdded.emit(entry)),
      turnChanged: update => this._turnChanged.emit(update)
    };
    this._state = state;
    const status = new ChatStatusKeeper({
      state,
      busy: () => this._busy,
      stop: () => this.stop(),
      changed: value => this._statusChanged.emit(value)
    });
    this._status = status;
    this._runner = new TurnRunner({
      state,
      clientTools,
      status,
      runClientTools: (entry, calls) => void this._toolPhase.run(entry, calls)
    });
    const runner = this._runner;
    this._toolPhase = new ClientToolPhase({
      state,
      clientTools,
      status,
      runner
    });
    this._foreignRuns = new ForeignRuns({
      state,
      runner,
      busy: () => this._busy,
      runsElsewhere: () => this._runsElsewhere.emit()
    });
    const startByUser = (request: TurnRequest, answering?: IAnswering) =>
      this._startByUser(request, answering);
    const reviews = new ReviewAnswers({ state, status, startByUser });
    this._reviews = reviews;
    this._moves = new BranchMoves({
      state,
      status,
      reviews,
      startByUser,
      moved: move => {
        this._branchMoved.emit(move);
        this._cleared.emit();
      }
    });
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
    return this._state.memory;
  }

  get threadId(): string {
    return this._state.threadId;
  }

  get entries(): readonly ChatEntry[] {
    return this._state.branch.entries;
  }

  get status(): ChatStatus {
    return this._status.value;
  }

  get transport(): IAgentTransport | null {
    return this._state.transport;
  }

  set transport(transport: IAgentTransport | null) {
    this._state.transport = transport;
    this._foreignRuns.follow();
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
    return this._state.chosenModel;
  }

  set chosenModel(model: string | null) {
    if (this._state.chosenModel !== model) {
      this._state.chosenModel = model;
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

  /**
   * The review pending was shown as another tab or window saved it: that
   * tab's handlers (a notebook change's diff) answer it, not this tab's,
   * which would apply the change a second time.
   */
  get reviewOfAnotherTab(): boolean {
    return this._state.reviewOfAnotherTab;
  }

  /**
   * A turn of another tab or window runs on this conversation's thread,
   * which its transport cannot show: the library follows the store.
   */
  get runsElsewhere(): ISignal<this, void> {
    return this._runsElsewhere;
  }

  /** The conversation was emptied or replaced; views rebuild from `entries`. */
  get cleared(): ISignal<this, void> {
    return this._cleared;
  }

  /** Another branch is shown (an edit, a regenerate, a switch); `cleared` follows. */
  get branchMoved(): ISignal<this, IBranchMove> {
    return this._branchMoved;
  }

  /** Every entry of every branch, in the order they were added (what is saved). */
  get allEntries(): readonly ChatEntry[] {
    return this._state.branch.all;
  }

  /** Entry `key` among those in its place on other branches (`‹ n / m ›`). */
  siblings(key: string): ISiblings<ChatEntry> {
    return this._state.branch.siblings(key);
  }

  /** The turn entry that is streaming, if any. */
  get runningTurn(): ITurnEntry | null {
    return this._runner.entry;
  }

  /**
   * The interrupt cards a resume must answer, when a review is pending (an
   * AG-UI request past its `expiresAt` no longer is).
   */
  get pendingInterrupts(): IInterruptCard[] {
    return pendingInterrupts(this._state.branch.lastTurn());
  }

  /** The tokens its turns reported, summed; null when none reported any. */
  get tokenUsage(): ITokenUsage | null {
    return tokenUsage(this.entries);
  }

  findItem(turnKey: string, itemKey: number): TranscriptItem | undefined {
    return findItem(this.entries, turnKey, itemKey);
  }

  /** Send a message; refused (with the reason) while a turn runs or a review waits. */
  send(text: string, context?: ITurnContext): void {
    this._status.assertCanStart();
    const entry = userEntry(text, context, this._state.trans);
    this._state.branch.add(entry);
    this._startByUser(chatRequest(this._state.threadId, entry));
  }

  /**
   * Why the conversation cannot go back to before message `key` (edit it,
   * or generate its answer again), or null when it can.
   */
  forkRefusal(key: string): string | null {
    return this._moves.forkRefusal(key);
  }

  /**
   * Send `text` in place of the earlier message `key`: the agent goes on
   * from where it was before that message, on a new branch; the branch left
   * keeps everything, its pending review included. A running turn is
   * stopped first.
   */
  edit(key: string, text: string, context?: ITurnContext): void {
    this._moves.edit(key, text, context);
  }

  /** Generate the answer of turn `key` again, from its message, on a new branch. */
  regenerate(key: string): void {
    this._moves.regenerate(key);
  }

  /** Why the answer of turn `key` cannot be generated again, or null. */
  regenerateRefusal(key: string): string | null {
    return this._moves.regenerateRefusal(key);
  }

  /** Show the branch of entry `key` (one of the siblings at a fork). */
  showBranch(key: string): void {
    this._moves.show(key);
  }

  /**
   * Answer the pending review: one decision per action row of its LangGraph
   * review cards, in order. The resume is sent once: a second call (a
   * double click) finds the turn running and is refused, and nothing is
   * marked answered unless it is sent. AG-UI requests of the same turn
   * (`respond`) must be answered first.
   */
  answer(decisions: Decision[]): void {
    this._reviews.answer(decisions);
  }

  /**
   * Answer an AG-UI request card (docs/protocol.md §8.9): a payload that
   * validates against its response schema, or `cancelled`. Sent with the
   * resume once every pending card of the turn is answered.
   */
  respond(card: IInterruptCard, response: InterruptResponse): void {
    this._reviews.respond(card, response);
  }

  /** Ask the running turn (or the running client tools) to stop. */
  stop(): void {
    this._runner.stop();
    this._toolPhase.abort();
  }

  /** Send the last user message again (after an error or a stop). */
  retry(): void {
    const lastUser = lastMessage(this.entries);
    if (!lastUser) {
      throw new Error(this._state.trans.__('There is no message to retry.'));
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
    const state = this._state;
    if (this._busy) {
      throw new Error(
        state.trans.__(
          'A turn is running; the saved conversation was not restored.'
        )
      );
    }
    endUnfinishedTurns(entries, runningElsewhere === true, state.trans);
    const sameThread = threadId === state.threadId;
    state.reviewOfAnotherTab = fromAnotherTab === true;
    state.branch.reset(entries);
    state.threadId = threadId;
    state.memory = transportMemory ?? null;
    this._reviews.clear();
    this.endpointName = endpointName ?? null;
    this.chosenModel = model ?? null;
    // Shown again from the store as another tab saves it: the thread is
    // already followed (a join per save would be refused as busy each time).
    if (!sameThread || !this._foreignRuns.following) {
      this._foreignRuns.follow();
    }
    this._cleared.emit();
    this._status.settle();
  }

  /**
   * Log a notebook change the agent applied, on the turn of its call (else
   * the latest turn), and save it with that turn; false when there is none.
   */
  logNotebookChange(change: INotebookChange): boolean {
    const entry =
      turnOfCall(this.entries, change.callId) ?? this._state.branch.lastTurn();
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
    this._runner.detach();
    this._toolPhase.detach();
    this._status.forgetAfterStop();
    this._reviews.clear();
    this._foreignRuns.dispose();
    this._status.dispose();
    Signal.clearData(this);
  }

  /** Whether a turn streams or client tools run. */
  private get _busy(): boolean {
    return this._runner.entry !== null || this._toolPhase.active;
  }

  /** Start a turn the user asked for: runs may continue by themselves again. */
  private _startByUser(request: TurnRequest, answering?: IAnswering): void {
    this._toolPhase.resetFollowUps();
    this._runner.start(request, answering);
  }

  private readonly _state: IConversationState;
  private readonly _status: ChatStatusKeeper;
  private readonly _runner: TurnRunner;
  private readonly _toolPhase: ClientToolPhase;
  private readonly _foreignRuns: ForeignRuns;
  private readonly _reviews: ReviewAnswers;
  private readonly _moves: BranchMoves;
  private _endpointName: string | null = null;
  private _isDisposed = false;
  private readonly _entryAdded = new Signal<this, ChatEntry>(this);
  private readonly _turnChanged = new Signal<this, ITurnUpdate>(this);
  private readonly _statusChanged = new Signal<this, ChatStatus>(this);
  private readonly _cleared = new Signal<this, void>(this);
  private readonly _branchMoved = new Signal<this, IBranchMove>(this);
  private readonly _runsElsewhere = new Signal<this, void>(this);
  private readonly _endpointChanged = new Signal<this, string | null>(this);
  private readonly _chosenModelChanged = new Signal<this, string | null>(this);
}
