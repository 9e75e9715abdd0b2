import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { approve, edit, reject, respond } from '../../wire/decisions';
import { errorMessage } from '../../wire/json';
import type { Decision, DecisionVerb, IActionRequest } from '../../wire/types';
import { fileToolPath } from '../../wire/file-change';
import { questionOf } from '../../wire/interrupts';
import { createArgsEditor, IArgsEditor } from './args-editor';
import { FileChangeView, type ReadFile } from './file-change-view';
import type { CodeHighlighter } from './line-diff';
import { CappedBlock } from '../common/capped-block';
import { describeDecision, verbLabel } from './decision-text';
import {
  ARG_VALUE_PREVIEW_CHARS,
  capLongStrings,
  prettyJson
} from '../common/format';

/**
 * - `waiting`: the turn has not paused yet, nothing can be chosen;
 * - `choosing`: the allowed verbs are offered;
 * - `form`: the reviewer fills in an edit, a reason or an answer;
 * - `decided`: a decision is held until the card is submitted;
 * - `sent`: submitted, waiting for the model to record it;
 * - `answered`: the recorded decision; `expired`: it can no longer be answered.
 */
export type ReviewRowState =
  'waiting' | 'choosing' | 'form' | 'decided' | 'sent' | 'answered' | 'expired';

export interface IReviewRowOptions {
  /** The only row of its card: a decision is sent at once. */
  single: boolean;
  /** A decision was made or withdrawn. */
  onDecided(): void;
  /** Reads a file an agent's file tool would change, for its diff (docs/protocol.md §16.6). */
  readFile?: ReadFile;
  /** Colours that diff's text by the file's language. */
  highlight?: CodeHighlighter;
  /** Approve the tool's later reviews in this conversation without asking (docs/protocol.md §16.6). */
  alwaysAllow?(tool: string): void;
}

/**
 * One action request of a review, with buttons for exactly its allowed
 * verbs; or, when an answer is all it takes, its question and the answer box.
 */
export class ReviewRow implements IDisposable {
  constructor(
    private readonly _trans: TranslationBundle,
    readonly action: IActionRequest,
    index: number,
    private readonly _options: IReviewRowOptions
  ) {
    const trans = _trans;
    this.question = questionOf(action);
    this.node = document.createElement('div');
    this.node.className = 'jp-AgentPanel-reviewRow';
    this.node.dataset.row = String(index);
    if (this.question !== null) {
      this.node.classList.add('jp-mod-question');
      this.node.appendChild(
        textElement('jp-AgentPanel-reviewQuestion', this.question)
      );
    } else {
      this.node.appendChild(
        textElement(
          'jp-AgentPanel-reviewAction',
          action.synthetic
            ? trans.__('The agent paused')
            : (action.name ?? trans.__('an action'))
        )
      );
    }
    if (action.description && this.question === null) {
      this.node.appendChild(
        textElement('jp-AgentPanel-reviewDescription', action.description)
      );
    }
    this._args = new CappedBlock(trans, 'jp-AgentPanel-reviewArgs');
    if (this._showsArgs()) {
      const short = capLongStrings(action.args, ARG_VALUE_PREVIEW_CHARS);
      this._args.set(
        prettyJson(action.args),
        short.capped ? prettyJson(short.value) : null
      );
      this.node.appendChild(this._args.node);
    }
    const path = fileToolPath(action.name, action.args);
    if (path !== null && _options.readFile) {
      this._fileChange = new FileChangeView(
        trans,
        action.name!,
        action.args,
        path,
        _options.readFile,
        _options.highlight
      );
      this.node.appendChild(this._fileChange.node);
    }
    this._buttons = document.createElement('div');
    this._buttons.className = 'jp-AgentPanel-reviewButtons';
    // A question's answer box opens by itself: it needs no Respond button.
    for (const verb of this.question === null ? action.allowed : []) {
      const button = makeButton(
        verbLabel(trans, verb),
        `jp-AgentPanel-decide jp-AgentPanel-decide-${verb}`
      );
      button.dataset.verb = verb;
      this._buttons.appendChild(button);
    }
    this._form = document.createElement('div');
    this._form.className = 'jp-AgentPanel-reviewForm';
    this._outcome = document.createElement('div');
    this._outcome.className = 'jp-AgentPanel-reviewOutcome';
    this._alwaysAllow = this._alwaysAllowBox();
    this.node.append(
      ...(this._alwaysAllow ? [this._alwaysAllow.parentElement!] : []),
      this._buttons,
      this._form,
      this._outcome
    );
    this.node.addEventListener('click', this);
    this.node.addEventListener('input', this);
    this._setState('waiting');
  }

  readonly node: HTMLDivElement;

  /** What the row asks when an answer is all it takes (`questionOf`), else null. */
  readonly question: string | null;

  get state(): ReviewRowState {
    return this._state;
  }

  /** The decision held for this row, once made. */
  get decision(): Decision | null {
    return this._decision;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** The turn paused (true) or is still running (false). */
  setAnswerable(answerable: boolean): void {
    if (answerable && this._state === 'waiting') {
      this._offer(false);
    } else if (!answerable && this._state === 'choosing') {
      this._setState('waiting');
    }
  }

  /** Hold `decision` for this row (e.g. from "Approve all"). */
  decide(decision: Decision): void {
    this._closeForm();
    this._decision = decision;
    if (decision.type === 'approve' && this._alwaysAllow?.checked) {
      this._options.alwaysAllow!(this.action.name!);
    } else if (decision.type === 'edit') {
      this._fileChange?.update(decision.edited_action.args);
    }
    this._showOutcome(
      this._trans.__(
        'Your decision: %1',
        describeDecision(this._trans, decision)
      ),
      !this._options.single
    );
    this._setState('decided');
    this._options.onDecided();
  }

  /** Submitted: nothing can change any more (unless `unlock`). */
  lock(): void {
    if (this._decision) {
      this._showOutcome(
        this._trans.__(
          'Your decision: %1',
          describeDecision(this._trans, this._decision)
        ),
        false
      );
    }
    this._setState('sent');
  }

  /** The submit was refused: the decision can be changed again. */
  unlock(): void {
    if (this._state === 'sent' && this._decision) {
      this.decide(this._decision);
    }
  }

  /** Show the decision that was sent for this row. */
  showAnswered(decision: Decision): void {
    this._closeForm();
    this._decision = decision;
    this._showOutcome(
      this._trans.__('Sent: %1', describeDecision(this._trans, decision)),
      false
    );
    this._setState('answered');
  }

  /** The turn ended without a pause that could be answered. */
  expire(): void {
    this._closeForm();
    this._showOutcome(this._trans.__('Not answered.'), false);
    this._setState('expired');
  }

  handleEvent(event: Event): void {
    const target = (event.target as Element).closest<HTMLElement>(
      '[data-verb], [data-action]'
    );
    if (event.type === 'input') {
      this._updateConfirm();
      return;
    }
    if (!target || (target as HTMLButtonElement).disabled) {
      return;
    }
    if (target.dataset.verb) {
      this._choose(target.dataset.verb as DecisionVerb);
      return;
    }
    switch (target.dataset.action) {
      case 'confirm':
        this._confirm();
        break;
      case 'cancel':
        this._closeForm();
        this._setState('choosing');
        break;
      case 'change':
        this._decision = null;
        this._outcome.replaceChildren();
        this._offer(true);
        this._options.onDecided();
        break;
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._closeForm();
    this._args.dispose();
    this._fileChange?.dispose();
    this.node.removeEventListener('click', this);
    this.node.removeEventListener('input', this);
  }

  /**
   * "Always allow <tool> in this conversation", for a row that can be
   * approved (docs/protocol.md §16.6): kept when it is approved.
   */
  private _alwaysAllowBox(): HTMLInputElement | null {
    const { name, allowed, synthetic } = this.action;
    if (!this._options.alwaysAllow || !name || synthetic) {
      return null;
    }
    if (!allowed.includes('approve')) {
      return null;
    }
    const label = document.createElement('label');
    label.className = 'jp-AgentPanel-alwaysAllowReview';
    const box = document.createElement('input');
    box.type = 'checkbox';
    label.append(
      box,
      ' ' + this._trans.__('Always allow %1 in this conversation', name)
    );
    return box;
  }

  /** Offer the allowed verbs, or a question's answer box (`focus`: put the cursor there). */
  private _offer(focus: boolean): void {
    this._setState('choosing');
    if (this.question !== null) {
      this._choose('respond', focus);
    }
  }

  /** Not the arguments that hold nothing but the question shown above them. */
  private _showsArgs(): boolean {
    const args = this.action.args;
    if (args === undefined || args === null) {
      return false;
    }
    return !(
      this.question !== null &&
      this.action.description === null &&
      Object.keys(args).every(key => key === 'question')
    );
  }

  private _choose(verb: DecisionVerb, focus = true): void {
    if (this._state !== 'choosing') {
      return;
    }
    if (verb === 'approve') {
      this.decide(approve());
      return;
    }
    const trans = this._trans;
    this._verb = verb;
    const single = this._options.single;
    let confirmLabel: string;
    const parts: HTMLElement[] = [];
    if (verb === 'edit') {
      this._editor = createArgsEditor(trans, this.action, () =>
        this._updateConfirm()
      );
      parts.push(this._editor.node);
      confirmLabel = single
        ? trans.__('Send edited arguments')
        : trans.__('Use these arguments');
    } else {
      const input = document.createElement('textarea');
      input.className = 'jp-AgentPanel-reviewInput';
      input.rows = 2;
      input.placeholder =
        verb === 'reject'
          ? trans.__('Reason (optional)')
          : trans.__('Your answer (required)');
      input.setAttribute('aria-label', input.placeholder);
      this._text = input;
      parts.push(input);
      confirmLabel =
        verb === 'reject'
          ? single
            ? trans.__('Send rejection')
            : trans.__('Reject')
          : single
            ? trans.__('Send answer')
            : trans.__('Use this answer');
    }
    this._formError = textElement('jp-AgentPanel-reviewError', '');
    this._formError.setAttribute('aria-live', 'polite');
    this._formHint = textElement('jp-AgentPanel-reviewHint', '');
    const confirm = makeButton(
      confirmLabel,
      'jp-mod-accept jp-AgentPanel-confirm'
    );
    confirm.dataset.action = 'confirm';
    this._confirmButton = confirm;
    const actions = document.createElement('div');
    actions.className = 'jp-AgentPanel-reviewFormActions';
    actions.append(confirm);
    if (this.question === null) {
      // A question has no other verb to go back to.
      const cancel = makeButton(trans.__('Cancel'), 'jp-AgentPanel-cancel');
      cancel.dataset.action = 'cancel';
      actions.append(cancel);
    }
    this._form.replaceChildren(
      ...parts,
      this._formHint,
      this._formError,
      actions
    );
    this._setState('form');
    this._updateConfirm();
    if (!focus) {
      return;
    }
    if (this._editor) {
      this._editor.focus();
    } else {
      this._text?.focus();
    }
  }

  /** Confirm is enabled only for a decision that can be sent. */
  private _updateConfirm(): void {
    const confirm = this._confirmButton;
    if (!confirm) {
      return;
    }
    if (this._verb === 'edit' && this._editor) {
      confirm.disabled = !this._editor.read().ok;
    } else if (this._verb === 'respond' && this._text) {
      const empty = !this._text.value.trim();
      confirm.disabled = empty;
      this._formHint!.textContent = empty
        ? this._trans.__('An answer is required.')
        : '';
    }
  }

  private _confirm(): void {
    try {
      this.decide(this._buildDecision());
    } catch (error) {
      this._formError!.textContent = errorMessage(error);
    }
  }

  private _buildDecision(): Decision {
    switch (this._verb) {
      case 'edit': {
        const reading = this._editor!.read();
        if (!reading.ok) {
          throw new Error(reading.error);
        }
        return edit(this.action.name ?? '', reading.args);
      }
      case 'reject':
        return reject(this._text!.value.trim() || undefined);
      case 'respond':
        return respond(this._text!.value);
      default:
        return approve();
    }
  }

  private _closeForm(): void {
    this._editor?.dispose();
    this._editor = null;
    this._text = null;
    this._formError = null;
    this._formHint = null;
    this._confirmButton = null;
    this._verb = null;
    this._form.replaceChildren();
  }

  private _showOutcome(text: string, canChange: boolean): void {
    const children: HTMLElement[] = [
      textElement('jp-AgentPanel-decision', text)
    ];
    if (canChange) {
      const change = makeButton(
        this._trans.__('Change'),
        'jp-mod-minimal jp-AgentPanel-change'
      );
      change.dataset.action = 'change';
      children.push(change);
    }
    this._outcome.replaceChildren(...children);
  }

  private _setState(state: ReviewRowState): void {
    this._state = state;
    this.node.dataset.state = state;
    const offering = state === 'choosing' || state === 'waiting';
    this._buttons.hidden = !offering;
    for (const button of this._buttons.querySelectorAll('button')) {
      button.disabled = state !== 'choosing';
    }
    this._form.hidden = state !== 'form';
    this._outcome.hidden = offering || state === 'form';
  }

  private readonly _args: CappedBlock;
  private readonly _fileChange: FileChangeView | null = null;
  private readonly _alwaysAllow: HTMLInputElement | null;
  private readonly _buttons: HTMLDivElement;
  private readonly _form: HTMLDivElement;
  private readonly _outcome: HTMLDivElement;
  private _state: ReviewRowState = 'waiting';
  private _decision: Decision | null = null;
  private _verb: DecisionVerb | null = null;
  private _editor: IArgsEditor | null = null;
  private _text: HTMLTextAreaElement | null = null;
  private _formError: HTMLElement | null = null;
  private _formHint: HTMLElement | null = null;
  private _confirmButton: HTMLButtonElement | null = null;
  private _isDisposed = false;
}

function textElement(className: string, text: string): HTMLDivElement {
  const element = document.createElement('div');
  element.className = className;
  element.textContent = text;
  return element;
}

export function makeButton(
  label: string,
  className: string
): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = `jp-Button jp-mod-styled ${className}`;
  element.textContent = label;
  return element;
}
