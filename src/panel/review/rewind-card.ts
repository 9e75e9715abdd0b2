/**
 * The rewind card (docs/protocol.md §12.11), above the message box: every
 * cell that bringing the notebooks back to before a turn would change, each
 * with its diff (the source now against the source before) and a checkbox —
 * a cell the user changed since the agent is shown unchecked, a cell they
 * deleted is reported — then Apply or "Keep my notebook as it is", and
 * afterwards what happened, in words.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { IRewindCell } from '../../contracts/notebook-changes';
import type {
  IRewindOffer,
  NotebookRewinds
} from '../../model/conversation/rewinds';
import {
  type CodeHighlighter,
  highlightDiff,
  lineDiff,
  renderDiff,
  renderStats
} from './line-diff';
import { makeButton } from './review-row';
import { cellNote, cellWhere, outcomeText } from './rewind-text';

export class RewindView extends Widget {
  constructor(
    private readonly _rewinds: NotebookRewinds,
    private readonly _trans: TranslationBundle,
    private readonly _highlight?: CodeHighlighter
  ) {
    super();
    this.addClass('jp-AgentPanel-rewinds');
    this.node.addEventListener('click', this);
    _rewinds.changed.connect(this._render, this);
    this._render();
  }

  /** Bring the card into view, Apply focused. */
  showCard(): void {
    const card = this.node.querySelector<HTMLElement>('.jp-AgentPanel-rewind');
    card?.scrollIntoView({ block: 'nearest' });
    card
      ?.querySelector<HTMLButtonElement>(
        '.jp-AgentPanel-rewindApply, .jp-AgentPanel-rewindClose'
      )
      ?.focus();
  }

  handleEvent(event: Event): void {
    const button = (event.target as Element).closest<HTMLButtonElement>(
      '[data-rewind]'
    );
    const offer = this._rewinds.offer;
    if (!button || button.disabled || !offer) {
      return;
    }
    switch (button.dataset.rewind) {
      case 'apply':
        void this._rewinds.apply(offer.id, this._selected());
        break;
      case 'keep':
        this._rewinds.keep(offer.id);
        break;
      case 'close':
        this._rewinds.dismiss(offer.id);
        break;
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.node.removeEventListener('click', this);
    this._rewinds.changed.disconnect(this._render, this);
    super.dispose();
  }

  private _render(): void {
    const offer = this._rewinds.offer;
    this.node.hidden = offer === null;
    if (!offer) {
      this._shown = null;
      this.node.replaceChildren();
      return;
    }
    if (this._shown?.id !== offer.id) {
      this.node.replaceChildren(this._card(offer));
    } else {
      this._settle(offer);
    }
    this._shown = offer;
  }

  /** The card of a new offer: its cells, checked unless in conflict. */
  private _card(offer: IRewindOffer): HTMLElement {
    const trans = this._trans;
    const card = document.createElement('div');
    card.className = 'jp-AgentPanel-rewind';
    card.setAttribute('role', 'group');
    const heading = document.createElement('div');
    heading.className = 'jp-AgentPanel-rewindHeading';
    heading.textContent = trans.__('Rewind the notebook');
    card.setAttribute('aria-label', heading.textContent);
    const summary = document.createElement('div');
    summary.className = 'jp-AgentPanel-rewindSummary';
    const changing = offer.plan.cells.filter(cell => cell.action !== null);
    summary.textContent =
      offer.plan.cells.length === 0
        ? trans.__(
            'Nothing to restore: the notebook is as it was before this turn.'
          )
        : trans._n(
            '%1 cell would change. Check the ones to restore.',
            '%1 cells would change. Check the ones to restore.',
            changing.length
          );
    const cells = document.createElement('div');
    cells.className = 'jp-AgentPanel-rewindCells';
    cells.append(...offer.plan.cells.map(cell => this._cell(cell)));
    const outcome = document.createElement('div');
    outcome.className = 'jp-AgentPanel-rewindOutcome';
    outcome.setAttribute('role', 'status');
    const buttons = document.createElement('div');
    buttons.className = 'jp-AgentPanel-reviewButtons';
    card.append(heading, summary, cells, outcome, buttons);
    this._fillButtons(buttons, offer);
    return card;
  }

  private _cell(cell: IRewindCell): HTMLElement {
    const row = document.createElement('div');
    row.className = 'jp-AgentPanel-rewindCell';
    row.dataset.status = cell.status;
    row.dataset.key = cell.key;
    const label = document.createElement('label');
    label.className = 'jp-AgentPanel-rewindWhere';
    label.title = cell.path;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.className = 'jp-AgentPanel-rewindCheck';
    box.disabled = cell.action === null;
    box.checked = cell.action !== null && cell.status === 'ready';
    label.append(
      box,
      document.createTextNode(' ' + cellWhere(this._trans, cell))
    );
    row.appendChild(label);
    const note = cellNote(this._trans, cell);
    if (note) {
      const text = document.createElement('div');
      text.className = 'jp-AgentPanel-rewindNote';
      text.textContent = note;
      row.appendChild(text);
    }
    if (cell.action !== null) {
      const lines = lineDiff(cell.current, cell.target);
      const diff = renderDiff(lines);
      row.append(renderStats(lines, this._trans), diff);
      if (this._highlight) {
        const language = { mimeType: cell.mimeType };
        void highlightDiff(
          diff,
          cell.current,
          cell.target,
          language,
          this._highlight
        );
      }
    }
    return row;
  }

  /** Apply and Keep while pending; Close once answered. */
  private _fillButtons(buttons: HTMLElement, offer: IRewindOffer): void {
    const trans = this._trans;
    const actionable = offer.plan.cells.some(cell => cell.action !== null);
    if (offer.state === 'pending' && actionable) {
      const apply = makeButton(
        trans.__('Apply'),
        'jp-mod-accept jp-AgentPanel-rewindApply'
      );
      apply.dataset.rewind = 'apply';
      const keep = makeButton(
        trans.__('Keep my notebook as it is'),
        'jp-AgentPanel-rewindKeep'
      );
      keep.dataset.rewind = 'keep';
      buttons.replaceChildren(apply, keep);
    } else if (offer.state !== 'applying') {
      const close = makeButton(trans.__('Close'), 'jp-AgentPanel-rewindClose');
      close.dataset.rewind = 'close';
      buttons.replaceChildren(close);
    } else {
      buttons.replaceChildren();
    }
  }

  /** The offer was answered: the choice frozen, the outcome said. */
  private _settle(offer: IRewindOffer): void {
    const card = this.node.querySelector<HTMLElement>('.jp-AgentPanel-rewind');
    if (!card) {
      return;
    }
    card.dataset.state = offer.state;
    card
      .querySelectorAll<HTMLInputElement>('.jp-AgentPanel-rewindCheck')
      .forEach(box => (box.disabled = true));
    const outcome = card.querySelector('.jp-AgentPanel-rewindOutcome');
    if (outcome) {
      outcome.textContent = outcomeText(this._trans, offer);
    }
    const buttons = card.querySelector<HTMLElement>(
      '.jp-AgentPanel-reviewButtons'
    );
    if (buttons) {
      this._fillButtons(buttons, offer);
    }
  }

  /** The keys of the checked cells. */
  private _selected(): string[] {
    const rows = this.node.querySelectorAll<HTMLElement>(
      '.jp-AgentPanel-rewindCell'
    );
    return [...rows]
      .filter(
        row =>
          row.querySelector<HTMLInputElement>('.jp-AgentPanel-rewindCheck')
            ?.checked
      )
      .map(row => row.dataset.key!);
  }

  private _shown: IRewindOffer | null = null;
}
