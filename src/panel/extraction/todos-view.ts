import { Panel, Widget } from '@lumino/widgets';
import { readTodos, type ITodo } from '../../model/conversation/plan';
import type { IExtractionCard, TranscriptItem } from '../../wire/types';
import { ActionBar } from '../common/action-bar';
import { doneCount, renderChecklist } from '../plan/checklist';
import type {
  IItemAddress,
  IItemView,
  IItemViewContext
} from '../common/item-view';

/**
 * A `todos` extraction in the transcript: the list as it was at that point
 * of the turn, folded to one line ("Plan updated · 1 of 3 done"); the
 * latest list is also pinned at the top of the panel.
 */
export class TodosView implements IItemView {
  /** A view of `card`, or null when its data is not a to-do list. */
  static create(
    context: IItemViewContext,
    address: IItemAddress,
    card: IExtractionCard
  ): TodosView | null {
    const read = readTodos(card.data);
    return read && read.problems.length === 0
      ? new TodosView(context, address, read.todos)
      : null;
  }

  private constructor(
    private readonly _context: IItemViewContext,
    address: IItemAddress,
    private _todos: ITodo[]
  ) {
    this.widget = new Panel();
    this.widget.addClass('jp-AgentPanel-extraction');
    this.widget.addClass('jp-AgentPanel-todos');
    this._details = document.createElement('details');
    this._summary = document.createElement('summary');
    this._summary.className = 'jp-AgentPanel-extractionHeader';
    this._details.append(this._summary);
    this._actions = new ActionBar(
      _context.commands,
      _context.itemActions(),
      'extraction',
      { turn: address.turn, item: address.item }
    );
    this.widget.addWidget(new Widget({ node: this._details }));
    this.widget.addWidget(new Widget({ node: this._actions.node }));
  }

  readonly widget: Panel;

  update(item: TranscriptItem): void {
    const read = readTodos((item as IExtractionCard).data);
    if (read) {
      this._todos = read.todos;
    }
    const trans = this._context.trans;
    this._summary.textContent = trans.__(
      'Plan updated · %1',
      doneCount(this._todos, trans)
    );
    this._details.replaceChildren(
      this._summary,
      renderChecklist(this._todos, trans)
    );
  }

  dispose(): void {
    this._actions.dispose();
    this.widget.dispose();
  }

  private readonly _details: HTMLDetailsElement;
  private readonly _summary: HTMLElement;
  private readonly _actions: ActionBar;
}
