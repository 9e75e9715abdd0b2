import { Panel, Widget } from '@lumino/widgets';
import type { ITurnEntry } from '../model/chat-model';
import type { Decision, TranscriptItem, TurnChange } from '../wire/types';
import { createItemView, IItemView, IItemViewContext } from './item-views';
import { ReviewCardView } from './review-card';

export interface ITurnViewContext extends IItemViewContext {
  /** The reviewer answered an interrupt of this turn. */
  onDecisions(decisions: Decision[]): void;
  /** The user asked to send the last message again. */
  onRetry(): void;
}

/**
 * One assistant turn. Each change touches only the item it names: a delta
 * re-renders its own block, never the turn or the transcript.
 */
export class TurnView extends Panel {
  constructor(entry: ITurnEntry, context: ITurnViewContext) {
    super();
    this._context = context;
    this._turnKey = entry.key;
    this.addClass('jp-AgentPanel-turn');
    this.node.dataset.turn = entry.key;
    this._footer = new Widget();
    this._footer.addClass('jp-AgentPanel-turnFooter');
    this.addWidget(this._footer);
    for (const item of entry.state.items) {
      this._add(item);
    }
    this._renderFooter(entry);
  }

  apply(entry: ITurnEntry, changes: readonly TurnChange[]): void {
    for (const change of changes) {
      if (change.type === 'added') {
        this._add(change.item);
      } else if (change.type === 'updated') {
        this._views.get(change.item.key)?.update(change.item);
      } else if (change.type === 'ended') {
        this._views.forEach(view => view.settle?.());
      }
    }
    if (changes.some(c => c.type === 'ended' || c.type === 'diagnostic')) {
      this._renderFooter(entry);
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._views.forEach(view => view.dispose?.());
    this._views.clear();
    super.dispose();
  }

  private _add(item: TranscriptItem): void {
    const view =
      item.kind === 'interrupt'
        ? new ReviewCardView(this._context.trans, this._context.onDecisions)
        : createItemView(item, this._context, {
            turn: this._turnKey,
            item: item.key
          });
    if (!view) {
      return;
    }
    view.widget.node.dataset.item = String(item.key);
    this._views.set(item.key, view);
    this.insertWidget(this.widgets.length - 1, view.widget);
    view.update(item);
  }

  private _renderFooter(entry: ITurnEntry): void {
    const { state } = entry;
    const trans = this._context.trans;
    const node = this._footer.node;
    node.replaceChildren();
    for (const message of state.diagnostics) {
      node.appendChild(
        note('jp-AgentPanel-diagnostic', trans.__('Note: %1', message))
      );
    }
    if (state.outcome === 'error' && state.error) {
      const banner = note('jp-AgentPanel-error', state.error.message);
      banner.setAttribute('role', 'alert');
      if (state.error.traceback) {
        const details = document.createElement('details');
        const summary = document.createElement('summary');
        summary.textContent = trans.__('Traceback');
        const pre = document.createElement('pre');
        pre.textContent = state.error.traceback;
        details.append(summary, pre);
        banner.appendChild(details);
      }
      banner.appendChild(this._retryButton());
      node.appendChild(banner);
    } else if (state.outcome === 'cancelled') {
      const cancelled = note(
        'jp-AgentPanel-cancelled',
        state.cancelMessage ?? trans.__('Stopped.')
      );
      cancelled.appendChild(this._retryButton());
      node.appendChild(cancelled);
    }
  }

  private _retryButton(): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-Button jp-mod-styled jp-AgentPanel-retry';
    button.textContent = this._context.trans.__('Retry');
    button.addEventListener('click', () => this._context.onRetry());
    return button;
  }

  private readonly _context: ITurnViewContext;
  private readonly _turnKey: string;
  private readonly _footer: Widget;
  private readonly _views = new Map<number, IItemView>();
}

function note(className: string, text: string): HTMLDivElement {
  const element = document.createElement('div');
  element.className = className;
  element.textContent = text;
  return element;
}
