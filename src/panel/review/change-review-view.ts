/**
 * The reviews of notebook changes the agent proposes
 * (docs/protocol.md §12.9), above the message box: per change the notebook and cell, a line
 * diff of the proposed source against the current one, and Apply, Edit
 * (change the proposed source, then apply) and Reject (with an optional
 * reason). Also which tools are always allowed in this conversation, each
 * with a button that turns it off.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type {
  IChangeProposal,
  IChangeReviews,
  IPendingReview
} from '../../model/conversation/change-reviews';
import {
  type CodeHighlighter,
  highlightDiff,
  lineDiff,
  renderDiff,
  renderStats
} from './line-diff';
import { makeButton } from './review-row';

export class ChangeReviewsView extends Widget {
  constructor(
    private readonly _reviews: IChangeReviews,
    private readonly _trans: TranslationBundle,
    private readonly _highlight?: CodeHighlighter
  ) {
    super();
    this.addClass('jp-AgentPanel-changeReviews');
    this._allowed = document.createElement('div');
    this._allowed.className = 'jp-AgentPanel-alwaysAllowed';
    this._cardsNode = document.createElement('div');
    this.node.append(this._cardsNode, this._allowed);
    // Capture: the click is seen before a card's decision re-renders.
    this.node.addEventListener('click', this, true);
    _reviews.changed.connect(this._render, this);
    this._render();
  }

  handleEvent(event: Event): void {
    // Enter or Space on a button clicks it with no pointer count.
    this._byKeyboard = (event as MouseEvent).detail === 0;
    const target = (event.target as Element).closest<HTMLButtonElement>(
      '[data-revoke]'
    );
    if (target) {
      this._reviews.setAlwaysAllowed(target.dataset.revoke!, false);
    }
  }

  /** Bring the first pending review into view, its main button focused. */
  showFirst(): void {
    const first = this._cardsNode.querySelector<HTMLElement>(
      '.jp-AgentPanel-changeReview'
    );
    first?.scrollIntoView({ block: 'nearest' });
    first
      ?.querySelector<HTMLButtonElement>('.jp-AgentPanel-changeApply')
      ?.focus();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.node.removeEventListener('click', this, true);
    this._reviews.changed.disconnect(this._render, this);
    this._cards.forEach(card => card.dispose());
    this._cards.clear();
    super.dispose();
  }

  private _render(): void {
    const pending = this._reviews.pending;
    const ids = new Set(pending.map(review => review.id));
    for (const [id, card] of this._cards) {
      if (!ids.has(id)) {
        // A decision made with the keyboard took the focus with its card: the
        // next review gets it. Not after a mouse click, where a key pressed
        // to scroll would decide a change not yet seen.
        this._refocus ||=
          this._byKeyboard && card.node.contains(document.activeElement);
        card.dispose();
        this._cards.delete(id);
      }
    }
    for (const review of pending) {
      if (!this._cards.has(review.id)) {
        const card = new ChangeReviewCard(
          review,
          this._reviews,
          this._trans,
          this._highlight
        );
        this._cards.set(review.id, card);
        this._cardsNode.appendChild(card.node);
      }
    }
    this._renderAllowed();
    this.node.hidden = pending.length === 0 && this._allowed.hidden;
    if (this._refocus && pending.length > 0) {
      this._refocus = false;
      // Unless the user put the focus somewhere meanwhile.
      if (!document.activeElement || document.activeElement === document.body) {
        this.showFirst();
      }
    }
  }

  private _renderAllowed(): void {
    const trans = this._trans;
    const tools = this._reviews.alwaysAllowed();
    this._allowed.hidden = tools.length === 0;
    const label = document.createElement('span');
    label.textContent = trans.__('Always allowed in this conversation:');
    const chips = tools.map(tool => {
      const chip = makeButton(
        trans.__('%1 ×', tool),
        'jp-mod-minimal jp-AgentPanel-alwaysAllowedTool'
      );
      chip.dataset.revoke = tool;
      chip.title = trans.__('Review %1 again before it runs', tool);
      chip.setAttribute('aria-label', chip.title);
      return chip;
    });
    this._allowed.replaceChildren(label, ...chips);
  }

  private readonly _allowed: HTMLDivElement;
  private readonly _cardsNode: HTMLDivElement;
  private readonly _cards = new Map<string, ChangeReviewCard>();
  private _byKeyboard = false;
  private _refocus = false;
}

/** One proposed change, until it is decided. */
class ChangeReviewCard {
  constructor(
    private readonly _review: IPendingReview,
    private readonly _reviews: IChangeReviews,
    private readonly _trans: TranslationBundle,
    private readonly _highlight?: CodeHighlighter
  ) {
    const trans = _trans;
    const proposal = _review.proposal;
    this.node = document.createElement('div');
    this.node.className = 'jp-AgentPanel-changeReview';
    this.node.dataset.tool = proposal.tool;
    this.node.dataset.kind = proposal.kind;
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', proposal.description);
    const heading = document.createElement('div');
    heading.className = 'jp-AgentPanel-changeReviewHeading';
    heading.textContent = headingText(trans, proposal);
    const where = document.createElement('div');
    where.className = 'jp-AgentPanel-changeReviewWhere';
    where.textContent = whereText(trans, proposal);
    where.title = proposal.path;
    this._diff = document.createElement('div');
    this._diff.className = 'jp-AgentPanel-changeReviewDiff';
    this._form = document.createElement('div');
    this._form.className = 'jp-AgentPanel-changeReviewForm';
    this._buttons = document.createElement('div');
    this._buttons.className = 'jp-AgentPanel-reviewButtons';
    const apply = makeButton(
      applyLabel(trans, proposal),
      'jp-mod-accept jp-AgentPanel-changeApply'
    );
    apply.dataset.change = 'apply';
    this._buttons.appendChild(apply);
    if (proposal.kind !== 'delete' && proposal.kind !== 'read') {
      const edit = makeButton(trans.__('Edit'), 'jp-AgentPanel-changeEdit');
      edit.dataset.change = 'edit';
      this._buttons.appendChild(edit);
    }
    const reject = makeButton(
      trans.__('Reject'),
      'jp-mod-warn jp-AgentPanel-changeReject'
    );
    reject.dataset.change = 'reject';
    const always = document.createElement('label');
    always.className = 'jp-AgentPanel-changeAlways';
    this._always = document.createElement('input');
    this._always.type = 'checkbox';
    always.append(
      this._always,
      document.createTextNode(
        ' ' + trans.__('Always allow %1 in this conversation', proposal.tool)
      )
    );
    this._buttons.append(reject, always);
    this.node.append(heading, where, this._diff, this._form, this._buttons);
    this._showDiff(proposal.proposed);
    this.node.addEventListener('click', this);
    this.node.addEventListener('input', this);
  }

  readonly node: HTMLDivElement;

  handleEvent(event: Event): void {
    if (event.type === 'input') {
      if (this._editor && event.target === this._editor) {
        this._showDiff(this._editor.value);
      }
      return;
    }
    const target = (event.target as Element).closest<HTMLButtonElement>(
      '[data-change]'
    );
    if (!target || target.disabled) {
      return;
    }
    switch (target.dataset.change) {
      case 'apply':
        this._decide({ verdict: 'apply', editedSource: null });
        break;
      case 'edit':
        this._openEditor();
        break;
      case 'apply-edited':
        this._decide({
          verdict: 'apply',
          editedSource: this._editor ? this._editor.value : null
        });
        break;
      case 'reject':
        this._openReason();
        break;
      case 'send-reject':
        this._decide({
          verdict: 'reject',
          reason: this._reason?.value.trim() || null
        });
        break;
      case 'cancel':
        this._closeForm();
        break;
    }
  }

  dispose(): void {
    this.node.removeEventListener('click', this);
    this.node.removeEventListener('input', this);
    this.node.remove();
  }

  private _decide(outcome: Parameters<IChangeReviews['decide']>[1]): void {
    const proposal = this._review.proposal;
    if (this._always.checked && outcome.verdict === 'apply') {
      this._reviews.setAlwaysAllowed(proposal.tool, true);
    }
    this._reviews.decide(this._review.id, outcome);
  }

  private _showDiff(proposed: string): void {
    const proposal = this._review.proposal;
    if (proposal.kind === 'read') {
      this._diff.replaceChildren();
      return;
    }
    const before = proposal.kind === 'run' ? proposed : proposal.current;
    const after = proposal.kind === 'delete' ? '' : proposed;
    const lines = lineDiff(before, after);
    const diff = renderDiff(lines);
    // What runs, as it will run: no change to count.
    this._diff.replaceChildren(
      ...(proposal.kind === 'run' ? [] : [renderStats(lines, this._trans)]),
      diff
    );
    if (this._highlight) {
      const language = { mimeType: proposal.mimeType };
      void highlightDiff(diff, before, after, language, this._highlight);
    }
  }

  private _openEditor(): void {
    const trans = this._trans;
    const editor = document.createElement('textarea');
    editor.className = 'jp-AgentPanel-changeEditor';
    editor.value = this._review.proposal.proposed;
    editor.rows = Math.min(
      Math.max(editor.value.split('\n').length + 1, 3),
      16
    );
    editor.setAttribute('aria-label', trans.__('The source to apply'));
    this._editor = editor;
    const confirm = makeButton(
      trans.__('Apply edited'),
      'jp-mod-accept jp-AgentPanel-changeApplyEdited'
    );
    confirm.dataset.change = 'apply-edited';
    this._openForm(editor, confirm);
  }

  private _openReason(): void {
    const trans = this._trans;
    const reason = document.createElement('textarea');
    reason.className = 'jp-AgentPanel-reviewInput';
    reason.rows = 2;
    reason.placeholder = trans.__('Reason (optional)');
    reason.setAttribute('aria-label', reason.placeholder);
    this._reason = reason;
    const confirm = makeButton(
      trans.__('Send rejection'),
      'jp-mod-warn jp-AgentPanel-changeSendReject'
    );
    confirm.dataset.change = 'send-reject';
    this._openForm(reason, confirm);
  }

  private _openForm(
    input: HTMLTextAreaElement,
    confirm: HTMLButtonElement
  ): void {
    const cancel = makeButton(this._trans.__('Cancel'), 'jp-AgentPanel-cancel');
    cancel.dataset.change = 'cancel';
    const actions = document.createElement('div');
    actions.className = 'jp-AgentPanel-reviewFormActions';
    actions.append(confirm, cancel);
    this._form.replaceChildren(input, actions);
    this._buttons.hidden = true;
    input.focus();
  }

  private _closeForm(): void {
    this._editor = null;
    this._reason = null;
    this._form.replaceChildren();
    this._buttons.hidden = false;
    this._showDiff(this._review.proposal.proposed);
  }

  private readonly _diff: HTMLDivElement;
  private readonly _form: HTMLDivElement;
  private readonly _buttons: HTMLDivElement;
  private readonly _always: HTMLInputElement;
  private _editor: HTMLTextAreaElement | null = null;
  private _reason: HTMLTextAreaElement | null = null;
}

function headingText(
  trans: TranslationBundle,
  proposal: IChangeProposal
): string {
  switch (proposal.kind) {
    case 'insert':
      return trans.__('The agent wants to insert a %1 cell', proposal.cellType);
    case 'edit':
      return trans.__('The agent wants to change a cell');
    case 'delete':
      return trans.__('The agent wants to delete a cell');
    case 'run':
      return trans.__('The agent wants to run a cell');
    default:
      return trans.__('The agent wants to read: %1', proposal.description);
  }
}

/** The notebook by its name (the path is the tooltip), the cell as JupyterLab numbers it. */
function whereText(
  trans: TranslationBundle,
  proposal: IChangeProposal
): string {
  const notebook = proposal.path.split('/').pop() ?? proposal.path;
  if (proposal.kind === 'read') {
    return notebook;
  }
  return proposal.kind === 'insert'
    ? trans.__('%1, new cell %2', notebook, proposal.index + 1)
    : trans.__('%1, cell %2', notebook, proposal.index + 1);
}

function applyLabel(
  trans: TranslationBundle,
  proposal: IChangeProposal
): string {
  switch (proposal.kind) {
    case 'delete':
      return trans.__('Delete');
    case 'run':
      return trans.__('Run');
    case 'read':
      return trans.__('Allow');
    default:
      return trans.__('Apply');
  }
}
