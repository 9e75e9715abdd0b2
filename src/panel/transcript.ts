import { Panel, Widget } from '@lumino/widgets';
import type {
  ChatEntry,
  ChatModel,
  ITurnUpdate,
  IUserEntry
} from '../model/chat-model';
import { TurnView, ITurnViewContext } from './turn-view';

/**
 * The conversation: user messages and assistant turns, in order. Listens to
 * the model and forwards each turn change to that turn's view only.
 */
export class TranscriptView extends Panel {
  constructor(
    model: ChatModel,
    private readonly _context: ITurnViewContext
  ) {
    super();
    this.addClass('jp-AgentPanel-transcript');
    this.node.setAttribute('role', 'log');
    this.node.setAttribute('aria-live', 'polite');
    for (const entry of model.entries) {
      this._onEntryAdded(model, entry);
    }
    model.entryAdded.connect(this._onEntryAdded, this);
    model.turnChanged.connect(this._onTurnChanged, this);
    model.cleared.connect(this._onCleared, this);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._turns.clear();
    super.dispose();
  }

  private _onEntryAdded(_: ChatModel, entry: ChatEntry): void {
    const widget =
      entry.kind === 'user'
        ? userMessage(entry)
        : new TurnView(entry, this._context);
    if (entry.kind === 'turn') {
      this._turns.set(entry.key, widget as TurnView);
    }
    this.addWidget(widget);
  }

  private _onTurnChanged(_: ChatModel, update: ITurnUpdate): void {
    this._turns.get(update.entry.key)?.apply(update.entry, update.changes);
  }

  private _onCleared(): void {
    this._turns.clear();
    for (const widget of [...this.widgets]) {
      widget.dispose();
    }
  }

  private readonly _turns = new Map<string, TurnView>();
}

function userMessage(entry: IUserEntry): Widget {
  const widget = new Widget();
  widget.addClass('jp-AgentPanel-user');
  widget.node.textContent = entry.text;
  return widget;
}
