import { Panel, Widget } from '@lumino/widgets';
import type { ChatModel } from '../../model/conversation/chat-model';
import type {
  ChatEntry,
  ITurnUpdate,
  IUserEntry
} from '../../model/conversation/chat/chat-entries';
import { AutoScroller } from './autoscroll';
import { ToolCalls } from './tool-calls';
import { TurnView, ITurnViewContext } from './turn-view';
import { userContextView } from './user-context';
import { UserMessageView } from './user-message';

/**
 * The conversation: user messages and assistant turns, in order. Listens to
 * the model and forwards each turn change to that turn's view only. It is a
 * `role="log"` whose own live updates are off: `TurnAnnouncer` says when a
 * turn starts and ends instead of every delta being read out.
 *
 * A long conversation opens with its last `OPENING_ENTRIES` entries only:
 * the earlier ones are built when the reader scrolls up to the "Show
 * earlier messages" button at the top (or presses it), a batch at a time,
 * so opening a 1,000-turn conversation costs what opening its tail does.
 * A conversation that grows while the reader follows its end keeps at most
 * `LIVE_ENTRIES` entries built: the oldest group is let go (the button
 * builds it again), so a long agent run (one turn per review answered)
 * costs every later change the same, not more and more.
 */
export class TranscriptView extends Panel {
  constructor(
    private readonly _model: ChatModel,
    context: ITurnViewContext
  ) {
    super();
    // The calls of this conversation: a result after a review goes to its call's card.
    this._context = { ...context, calls: new ToolCalls() };
    this.addClass('jp-AgentPanel-transcript');
    this.node.setAttribute('role', 'log');
    this.node.setAttribute('aria-live', 'off');
    this.node.setAttribute('aria-label', context.trans.__('Conversation'));
    this.node.tabIndex = 0;
    this._scroller = new AutoScroller(this.node);
    this._earlier = earlierButton(context.trans.__('Show earlier messages'));
    this._earlier.node.addEventListener('click', this);
    if (typeof IntersectionObserver !== 'undefined') {
      // Reaching the top shows the batch before it.
      this._observer = new IntersectionObserver(
        changes => {
          if (changes.some(change => change.isIntersecting)) {
            this.showEarlier();
          }
        },
        { root: this.node, rootMargin: '200px 0px 0px 0px' }
      );
      this._observer.observe(this._earlier.node);
    }
    this._rebuild();
    _model.entryAdded.connect(this._onEntryAdded, this);
    _model.turnChanged.connect(this._onTurnChanged, this);
    _model.cleared.connect(this._rebuild, this);
  }

  get scroller(): AutoScroller {
    return this._scroller;
  }

  /** The view of turn entry `key`, if shown. */
  turnView(key: string): TurnView | undefined {
    return this._turns.get(key);
  }

  /** How many of the model's entries are not built yet (before the first shown). */
  get hiddenEntries(): number {
    return this._first;
  }

  /**
   * Build the batch of entries before the first one shown, keeping what
   * the reader sees where it is.
   */
  showEarlier(): void {
    if (this._first === 0 || this.isDisposed) {
      return;
    }
    const from = Math.max(0, this._first - EARLIER_BATCH);
    const entries = this._model.entries.slice(from, this._first);
    const height = this.node.scrollHeight;
    const groups: IEntryGroup[] = [];
    for (const entry of entries) {
      let group = groups[groups.length - 1];
      if (!group || group.entries >= ENTRIES_PER_GROUP) {
        group = { panel: transcriptGroup(), entries: 0 };
        groups.push(group);
      }
      group.entries += 1;
      for (const widget of this._viewsOf(entry)) {
        if (widget instanceof TurnView) {
          // Only the latest turn offers Retry.
          widget.setLatest(false);
        }
        group.panel.addWidget(widget);
      }
    }
    // After the button, before what is shown.
    groups.forEach((group, index) => this.insertWidget(index + 1, group.panel));
    this._groups.unshift(...groups);
    this._first = from;
    this._placeEarlier();
    this.node.scrollTop += this.node.scrollHeight - height;
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      this.showEarlier();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.entryAdded.disconnect(this._onEntryAdded, this);
    this._model.turnChanged.disconnect(this._onTurnChanged, this);
    this._model.cleared.disconnect(this._rebuild, this);
    this._earlier.node.removeEventListener('click', this);
    this._observer?.disconnect();
    this._earlier.dispose();
    this._scroller.dispose();
    this._turns.clear();
    super.dispose();
  }

  private _onEntryAdded(_: ChatModel, entry: ChatEntry): void {
    this._append(entry);
    this._trim();
  }

  private _append(entry: ChatEntry): void {
    const group = this._groupForNext();
    group.entries += 1;
    for (const widget of this._viewsOf(entry)) {
      if (widget instanceof TurnView) {
        this._latestTurn?.setLatest(false);
        this._latestTurn = widget;
      }
      group.panel.addWidget(widget);
    }
  }

  /**
   * While the reader follows the end, let the oldest groups go once more
   * than `LIVE_ENTRIES` entries are built: what is far above the view is
   * built again when the reader scrolls up to it. (A reader who scrolled up
   * keeps everything built, so nothing moves under them.)
   */
  private _trim(): void {
    if (!this._scroller.following) {
      return;
    }
    const first = this._first;
    const built = () => this._model.entries.length - this._first;
    while (built() > LIVE_ENTRIES && this._groups.length > 1) {
      const group = this._groups.shift()!;
      for (const widget of group.panel.widgets) {
        if (widget instanceof TurnView) {
          this._turns.delete(widget.node.dataset.turn!);
        }
      }
      group.panel.dispose();
      this._first += group.entries;
    }
    if (this._first !== first) {
      this._placeEarlier();
      // What was above the view went: the view moved up, not the reader.
      this._scroller.jumpToLatest();
    }
  }

  /** The widgets that show `entry`: a message and its context, or a turn. */
  private _viewsOf(entry: ChatEntry): Widget[] {
    if (entry.kind === 'user') {
      // What context went with it, under it.
      const record =
        entry.context && userContextView(entry.context, this._context.trans);
      const message = this._userMessage(entry);
      return record ? [message, record] : [message];
    }
    const view = new TurnView(entry, this._context);
    this._turns.set(entry.key, view);
    return [view];
  }

  private _userMessage(entry: IUserEntry): UserMessageView {
    return new UserMessageView(
      entry,
      this._context.trans,
      this._context.branches ?? null
    );
  }

  /**
   * Entries go in groups of `ENTRIES_PER_GROUP`: a change in the streaming
   * turn then lays out the groups and the last group's entries, where one
   * flat list would lay out every entry of a long conversation.
   */
  private _groupForNext(): IEntryGroup {
    const last = this._groups[this._groups.length - 1];
    if (last && last.entries < ENTRIES_PER_GROUP) {
      return last;
    }
    const group = { panel: transcriptGroup(), entries: 0 };
    this._groups.push(group);
    this.addWidget(group.panel);
    return group;
  }

  /** The "Show earlier messages" button is first while entries are not built. */
  private _placeEarlier(): void {
    if (this._first > 0) {
      this.insertWidget(0, this._earlier);
    } else if (this._earlier.parent) {
      this._earlier.parent = null;
    }
  }

  private _onTurnChanged(_: ChatModel, update: ITurnUpdate): void {
    this._turns.get(update.entry.key)?.apply(update.entry, update.changes);
    // Whether a message can be gone back to is known once its turn ended.
    if (update.changes.some(change => change.type === 'ended')) {
      for (const group of this._groups) {
        for (const widget of group.panel.widgets) {
          if (widget instanceof UserMessageView) {
            widget.refresh();
          }
        }
      }
    }
  }

  /** Show the model's entries from scratch (new conversation, restore). */
  private _rebuild(): void {
    this._turns.clear();
    this._latestTurn = null;
    this._groups = [];
    for (const widget of [...this.widgets]) {
      if (widget !== this._earlier) {
        widget.dispose();
      }
    }
    const entries = this._model.entries;
    this._first = Math.max(0, entries.length - OPENING_ENTRIES);
    this._placeEarlier();
    for (const entry of entries.slice(this._first)) {
      this._append(entry);
    }
    this._scroller.jumpToLatest();
  }

  private readonly _context: ITurnViewContext;
  private readonly _scroller: AutoScroller;
  private readonly _turns = new Map<string, TurnView>();
  private _latestTurn: TurnView | null = null;
  /** The groups shown, in order. */
  private _groups: IEntryGroup[] = [];
  /** The index of the first entry shown; those before it are not built. */
  private _first = 0;
  private readonly _earlier: Widget;
  private readonly _observer: IntersectionObserver | null = null;
}

/** Entries per group of the transcript (see `_addToGroup`). */
const ENTRIES_PER_GROUP = 32;

/** Entries built when a conversation opens (the latest ones). */
export const OPENING_ENTRIES = 60;

/** Entries built each time the reader reaches the top. */
const EARLIER_BATCH = 60;

/** Entries kept built while the conversation grows under a reader at its end. */
export const LIVE_ENTRIES = OPENING_ENTRIES + 2 * ENTRIES_PER_GROUP;

/** A group of the transcript and how many entries it shows. */
interface IEntryGroup {
  readonly panel: Panel;
  entries: number;
}

function transcriptGroup(): Panel {
  const group = new Panel();
  group.addClass('jp-AgentPanel-transcriptGroup');
  return group;
}

function earlierButton(label: string): Widget {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = 'jp-Button jp-mod-styled jp-AgentPanel-earlier';
  node.textContent = label;
  return new Widget({ node });
}
