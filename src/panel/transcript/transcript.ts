import { Panel, Widget } from '@lumino/widgets';
import type {
  ChatEntry,
  ChatModel,
  ITurnUpdate,
  IUserEntry
} from '../../model/conversation/chat-model';
import { AutoScroller } from './autoscroll';
import { TurnView, ITurnViewContext } from './turn-view';
import { userContextView } from './user-context';

/**
 * The conversation: user messages and assistant turns, in order. Listens to
 * the model and forwards each turn change to that turn's view only. It is a
 * `role="log"` whose own live updates are off: `TurnAnnouncer` says when a
 * turn starts and ends instead of every delta being read out.
 */
export class TranscriptView extends Panel {
  constructor(
    private readonly _model: ChatModel,
    private readonly _context: ITurnViewContext
  ) {
    super();
    this.addClass('jp-AgentPanel-transcript');
    this.node.setAttribute('role', 'log');
    this.node.setAttribute('aria-live', 'off');
    this.node.setAttribute('aria-label', _context.trans.__('Conversation'));
    this.node.tabIndex = 0;
    this._scroller = new AutoScroller(this.node);
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

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.entryAdded.disconnect(this._onEntryAdded, this);
    this._model.turnChanged.disconnect(this._onTurnChanged, this);
    this._model.cleared.disconnect(this._rebuild, this);
    this._scroller.dispose();
    this._turns.clear();
    super.dispose();
  }

  private _onEntryAdded(_: ChatModel, entry: ChatEntry): void {
    this._append(entry);
  }

  private _append(entry: ChatEntry): void {
    if (entry.kind === 'user') {
      this._addToGroup(
        userMessage(entry, this._context.trans.__('Your message'))
      );
      // What context went with it, under it.
      const record =
        entry.context && userContextView(entry.context, this._context.trans);
      if (record) {
        this._addToGroup(record);
      }
      return;
    }
    const view = new TurnView(entry, this._context);
    this._latestTurn?.setLatest(false);
    this._latestTurn = view;
    this._turns.set(entry.key, view);
    this._addToGroup(view);
  }

  /**
   * Entries go in groups of `ENTRIES_PER_GROUP`: a change in the streaming
   * turn then lays out the groups and the last group's entries, where one
   * flat list would lay out every entry of a long conversation.
   */
  private _addToGroup(widget: Widget): void {
    if (
      !this._lastGroup ||
      this._lastGroup.widgets.length >= ENTRIES_PER_GROUP
    ) {
      this._lastGroup = new Panel();
      this._lastGroup.addClass('jp-AgentPanel-transcriptGroup');
      this.addWidget(this._lastGroup);
    }
    this._lastGroup.addWidget(widget);
  }

  private _onTurnChanged(_: ChatModel, update: ITurnUpdate): void {
    this._turns.get(update.entry.key)?.apply(update.entry, update.changes);
  }

  /** Show the model's entries from scratch (new conversation, restore). */
  private _rebuild(): void {
    this._turns.clear();
    this._latestTurn = null;
    this._lastGroup = null;
    for (const widget of [...this.widgets]) {
      widget.dispose();
    }
    for (const entry of this._model.entries) {
      this._append(entry);
    }
    this._scroller.jumpToLatest();
  }

  private readonly _scroller: AutoScroller;
  private readonly _turns = new Map<string, TurnView>();
  private _latestTurn: TurnView | null = null;
  private _lastGroup: Panel | null = null;
}

/** Entries per group of the transcript (see `_addToGroup`). */
const ENTRIES_PER_GROUP = 32;

function userMessage(entry: IUserEntry, label: string): Widget {
  const widget = new Widget();
  widget.addClass('jp-AgentPanel-user');
  widget.node.setAttribute('role', 'article');
  widget.node.setAttribute('aria-label', label);
  widget.node.textContent = entry.text;
  return widget;
}
