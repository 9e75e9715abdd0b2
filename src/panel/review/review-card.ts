import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import { approve, reject } from '../../wire/decisions';
import type {
  Decision,
  DecisionVerb,
  IActionRequest,
  IInterruptCard,
  Outcome,
  TranscriptItem
} from '../../wire/types';
import type { IItemView } from '../common/item-view';
import type { ReadFile } from './file-change-view';
import type { CodeHighlighter } from './line-diff';
import { ReviewRow } from './review-row';

/** Hands the decisions to the model; false when it refused them. */
export type SubmitDecisions = (decisions: Decision[]) => boolean;

/**
 * The review of one interrupt: a row per action request. With one row its
 * decision is sent at once; with several, each row is decided and the card
 * is submitted once ("Approve all" / "Reject all" when every row allows
 * it). Submitting locks the card; it then shows the decisions sent.
 */
/** What a review card needs besides its decisions' destination. */
export interface IReviewCardOptions {
  /** Whether a plugin answers this row in the panel's place (docs/protocol.md §12.3). */
  answeredByPlugin?(action: IActionRequest): boolean;
  /** Whether the row's tool is always allowed: the panel approves it (docs/protocol.md §16.6). */
  isAlwaysAllowed?(action: IActionRequest): boolean;
  alwaysAllow?(tool: string): void;
  readFile?: ReadFile;
  highlight?: CodeHighlighter;
}

export class ReviewCardView implements IItemView {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _onSubmit: SubmitDecisions,
    private readonly _options: IReviewCardOptions = {}
  ) {
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-review');
    this._heading = document.createElement('div');
    this._heading.className = 'jp-AgentPanel-reviewHeading';
    this._footer = document.createElement('div');
    this._footer.className = 'jp-AgentPanel-reviewFooter';
    this._progress = document.createElement('span');
    this._progress.className = 'jp-AgentPanel-reviewProgress';
    this.widget.node.addEventListener('click', this);
  }

  readonly widget: Widget;

  get rows(): readonly ReviewRow[] {
    return this._rows;
  }

  update(item: TranscriptItem): void {
    const card = item as IInterruptCard;
    if (this._rows.length === 0) {
      this._build(card);
    }
    if (card.answered) {
      this._elsewhere = card.answeredElsewhere === true;
      this._showAnswered(card.answered);
    }
  }

  /** The turn ended: answerable only if it paused for this review. */
  settle(outcome: Outcome): void {
    if (this._state !== 'open') {
      return;
    }
    if (outcome === 'interrupted' && this._delegated()) {
      // Answered by a plugin once the user reviewed it there (a notebook
      // change, below the conversation): the call's card says so, this card
      // would only repeat it.
      this._state = 'delegated';
      this.widget.setHidden(!this._allAlwaysAllowed());
      this._render();
    } else if (outcome === 'interrupted') {
      this._rows.forEach(row => row.setAnswerable(true));
      this._render();
    } else {
      this._state = 'expired';
      this._rows.forEach(row => row.expire());
      this._render();
    }
  }

  handleEvent(event: Event): void {
    const target = (event.target as Element).closest<HTMLButtonElement>(
      '[data-review]'
    );
    if (!target || target.disabled || this._state !== 'open') {
      return;
    }
    switch (target.dataset.review) {
      case 'approve-all':
        this._decideAll(approve());
        break;
      case 'reject-all':
        this._decideAll(reject());
        break;
      case 'submit':
        this._submit();
        break;
    }
  }

  dispose(): void {
    this.widget.node.removeEventListener('click', this);
    this._rows.forEach(row => row.dispose());
    this.widget.dispose();
  }

  private _build(card: IInterruptCard): void {
    const trans = this._trans;
    const single = card.actions.length === 1;
    this._rows = card.actions.map(
      (action, index) =>
        new ReviewRow(trans, action, index, {
          single,
          onDecided: () => this._onRowDecided(),
          readFile: this._options.readFile,
          highlight: this._options.highlight,
          alwaysAllow: this._options.alwaysAllow
        })
    );
    if (!single) {
      for (const verb of ['approve', 'reject'] as DecisionVerb[]) {
        if (this._rows.every(row => row.action.allowed.includes(verb))) {
          const all = button(
            verb === 'approve'
              ? trans.__('Approve all')
              : trans.__('Reject all'),
            `jp-AgentPanel-${verb}All`
          );
          all.dataset.review = `${verb}-all`;
          this._allButtons.push(all);
        }
      }
      this._submitButton = button(
        trans.__('Submit decisions'),
        'jp-mod-accept jp-AgentPanel-reviewSubmit'
      );
      this._submitButton.dataset.review = 'submit';
      this._footer.append(
        this._progress,
        ...this._allButtons,
        this._submitButton
      );
    }
    this.widget.node.append(
      this._heading,
      ...this._rows.map(row => row.node),
      this._footer
    );
    this._render();
  }

  private _delegated(): boolean {
    const handled = this._options.answeredByPlugin;
    return (
      handled !== undefined &&
      this._rows.length > 0 &&
      this._rows.every(row => handled(row.action))
    );
  }

  /** Every row's tool is always allowed: the panel approves the review itself. */
  private _allAlwaysAllowed(): boolean {
    const allowed = this._options.isAlwaysAllowed;
    return (
      allowed !== undefined && this._rows.every(row => allowed(row.action))
    );
  }

  private _onRowDecided(): void {
    if (this._state !== 'open') {
      return;
    }
    this._render();
    if (this._rows.length === 1 && this._rows[0].decision) {
      this._submit();
    }
  }

  private _decideAll(decision: Decision): void {
    this._rows.forEach(row => row.decide(decision));
    this._submit();
  }

  /** Hand the decisions over exactly once; unlock if they were refused. */
  private _submit(): void {
    const decisions = this._rows.map(row => row.decision);
    if (this._state !== 'open' || decisions.some(d => d === null)) {
      return;
    }
    this._state = 'sent';
    this._rows.forEach(row => row.lock());
    this._render();
    if (!this._onSubmit(decisions as Decision[]) && this._state === 'sent') {
      this._state = 'open';
      this._rows.forEach(row => row.unlock());
      this._render();
    }
  }

  private _showAnswered(decisions: Decision[]): void {
    this._approvedByPanel =
      this._state === 'delegated' && this._allAlwaysAllowed();
    this._state = 'answered';
    this._rows.forEach((row, index) => {
      if (decisions[index]) {
        row.showAnswered(decisions[index]);
      }
    });
    this._render();
  }

  private _render(): void {
    const trans = this._trans;
    const approvedByPanel = trans.__(
      'Approved by the panel: always allowed in this conversation.'
    );
    const count = this._rows.length;
    const decided = this._rows.filter(row => row.decision !== null).length;
    this.widget.node.dataset.state = this._elsewhere
      ? 'answered-elsewhere'
      : this._state;
    // Rows that each take only an answer are questions, not a review.
    const questions =
      count > 0 && this._rows.every(row => row.question !== null);
    switch (this._state) {
      case 'answered':
        this._heading.textContent = this._elsewhere
          ? trans.__(
              'Already answered elsewhere (in another tab or window): the decisions below were not applied.'
            )
          : this._approvedByPanel
            ? approvedByPanel
            : questions
              ? trans.__('Answer sent')
              : trans.__('Review sent');
        break;
      case 'delegated':
        this._heading.textContent = this._allAlwaysAllowed()
          ? approvedByPanel
          : trans.__(
              'Review the proposed notebook change below the conversation.'
            );
        break;
      case 'expired':
        this._heading.textContent = trans.__(
          'This review can no longer be answered: the turn did not pause cleanly.'
        );
        break;
      default:
        this._heading.textContent = questions
          ? trans._n(
              'The agent asks you a question',
              'The agent asks you %1 questions',
              count
            )
          : count > 1
            ? trans.__(
                'The agent is waiting for your review of %1 actions',
                count
              )
            : trans.__('The agent is waiting for your review');
    }
    this._progress.textContent = trans.__('%1 of %2 decided', decided, count);
    const open = this._state === 'open';
    const answerable = open && this._rows.every(row => row.state !== 'waiting');
    this._footer.hidden = !open || count < 2;
    for (const all of this._allButtons) {
      all.disabled = !answerable;
    }
    if (this._submitButton) {
      this._submitButton.disabled = !answerable || decided < count;
    }
  }

  private readonly _heading: HTMLDivElement;
  private readonly _footer: HTMLDivElement;
  private readonly _progress: HTMLSpanElement;
  private _rows: ReviewRow[] = [];
  private _allButtons: HTMLButtonElement[] = [];
  private _submitButton: HTMLButtonElement | null = null;
  private _state: 'open' | 'sent' | 'answered' | 'expired' | 'delegated' =
    'open';
  /** The producer said the review was answered elsewhere. */
  private _elsewhere = false;
  /** The panel approved it itself (its tools are always allowed). */
  private _approvedByPanel = false;
}

function button(label: string, className: string): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = `jp-Button jp-mod-styled ${className}`;
  element.textContent = label;
  return element;
}
