import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import { approve, edit, reject, respond } from '../wire/decisions';
import type {
  Decision,
  DecisionVerb,
  IActionRequest,
  IInterruptCard,
  TranscriptItem
} from '../wire/types';
import type { IItemView } from './item-views';
import { pretty } from './item-views';

/**
 * The review of one interrupt: a row per action with buttons for exactly the
 * verbs that row allows. Decisions are collected per row and handed to
 * `onSubmit` once, when every row has one.
 */
export class ReviewCardView implements IItemView {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _onSubmit: (decisions: Decision[]) => void
  ) {
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-review');
  }

  readonly widget: Widget;

  update(item: TranscriptItem): void {
    const card = item as IInterruptCard;
    if (!this._rows) {
      this._build(card);
    }
    if (card.answered) {
      this._showAnswered(card.answered);
    }
  }

  private _build(card: IInterruptCard): void {
    const trans = this._trans;
    const heading = document.createElement('div');
    heading.className = 'jp-AgentPanel-reviewHeading';
    heading.textContent = trans.__('The agent is waiting for your review');
    this.widget.node.appendChild(heading);
    this._rows = card.actions.map((action, index) => {
      const row = new ReviewRow(trans, action, () => this._onRowDecided());
      row.node.dataset.row = String(index);
      this.widget.node.appendChild(row.node);
      return row;
    });
    this._submit = document.createElement('button');
    this._submit.type = 'button';
    this._submit.className =
      'jp-Button jp-mod-styled jp-mod-accept jp-AgentPanel-reviewSubmit';
    this._submit.textContent = trans.__('Submit review');
    this._submit.disabled = true;
    this._submit.hidden = this._rows.length < 2;
    this._submit.addEventListener('click', () => this._send());
    this.widget.node.appendChild(this._submit);
  }

  private _onRowDecided(): void {
    const rows = this._rows ?? [];
    const complete = rows.every(row => row.decision !== null);
    if (this._submit) {
      this._submit.disabled = !complete;
    }
    // A single question is answered by its button; several need a final submit.
    if (complete && rows.length === 1) {
      this._send();
    }
  }

  private _send(): void {
    if (this._sent || !this._rows) {
      return;
    }
    this._sent = true;
    for (const row of this._rows) {
      row.lock();
    }
    if (this._submit) {
      this._submit.disabled = true;
    }
    this._onSubmit(this._rows.map(row => row.decision!));
  }

  private _showAnswered(decisions: Decision[]): void {
    this._sent = true;
    this._rows?.forEach((row, index) => row.showAnswered(decisions[index]));
    if (this._submit) {
      this._submit.hidden = true;
    }
  }

  private _rows: ReviewRow[] | null = null;
  private _submit: HTMLButtonElement | null = null;
  private _sent = false;
}

/** One action request and its decision buttons. */
class ReviewRow {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _action: IActionRequest,
    private readonly _onDecided: () => void
  ) {
    const trans = _trans;
    this.node = document.createElement('div');
    this.node.className = 'jp-AgentPanel-reviewRow';
    const title = document.createElement('div');
    title.className = 'jp-AgentPanel-reviewAction';
    title.textContent = _action.name ?? trans.__('an action');
    this.node.appendChild(title);
    if (_action.description) {
      const description = document.createElement('div');
      description.className = 'jp-AgentPanel-reviewDescription';
      description.textContent = _action.description;
      this.node.appendChild(description);
    }
    if (_action.args !== undefined && _action.args !== null) {
      const args = document.createElement('pre');
      args.className = 'jp-AgentPanel-reviewArgs';
      args.textContent = pretty(_action.args);
      this.node.appendChild(args);
    }
    this._buttons = document.createElement('div');
    this._buttons.className = 'jp-AgentPanel-reviewButtons';
    for (const verb of _action.allowed) {
      this._buttons.appendChild(this._button(verb));
    }
    this._form = document.createElement('div');
    this._form.className = 'jp-AgentPanel-reviewForm';
    this._outcome = document.createElement('div');
    this._outcome.className = 'jp-AgentPanel-reviewOutcome';
    this.node.append(this._buttons, this._form, this._outcome);
  }

  readonly node: HTMLDivElement;
  decision: Decision | null = null;

  lock(): void {
    for (const control of this.node.querySelectorAll<
      HTMLButtonElement | HTMLTextAreaElement
    >('button, textarea')) {
      control.disabled = true;
    }
  }

  showAnswered(decision: Decision | undefined): void {
    this.lock();
    this._form.replaceChildren();
    if (decision) {
      this._outcome.textContent = describeDecision(this._trans, decision);
    }
  }

  private _button(verb: DecisionVerb): HTMLButtonElement {
    const labels: Record<DecisionVerb, string> = {
      approve: this._trans.__('Approve'),
      edit: this._trans.__('Edit'),
      reject: this._trans.__('Reject'),
      respond: this._trans.__('Respond')
    };
    const element = document.createElement('button');
    element.type = 'button';
    element.className = `jp-Button jp-mod-styled jp-AgentPanel-decide jp-AgentPanel-decide-${verb}`;
    element.textContent = labels[verb];
    element.dataset.verb = verb;
    element.addEventListener('click', () => this._choose(verb));
    return element;
  }

  private _choose(verb: DecisionVerb): void {
    if (verb === 'approve') {
      this._decide(approve());
      return;
    }
    const trans = this._trans;
    const input = document.createElement('textarea');
    input.className = 'jp-AgentPanel-reviewInput';
    input.rows = verb === 'edit' ? 6 : 2;
    const error = document.createElement('div');
    error.className = 'jp-AgentPanel-reviewError';
    error.setAttribute('role', 'alert');
    const confirm = document.createElement('button');
    confirm.type = 'button';
    confirm.className = 'jp-Button jp-mod-styled jp-mod-accept';
    if (verb === 'edit') {
      input.value = pretty(this._action.args ?? {});
      input.setAttribute(
        'aria-label',
        this._trans.__('Edited arguments (JSON)')
      );
      confirm.textContent = trans.__('Send edited arguments');
    } else if (verb === 'reject') {
      input.placeholder = trans.__('Reason (optional)');
      input.setAttribute('aria-label', input.placeholder);
      confirm.textContent = trans.__('Reject');
    } else {
      input.placeholder = trans.__('Your answer');
      input.setAttribute('aria-label', input.placeholder);
      confirm.textContent = trans.__('Send answer');
    }
    confirm.addEventListener('click', () => {
      try {
        this._decide(this._build(verb, input.value));
      } catch (err) {
        error.textContent = err instanceof Error ? err.message : String(err);
      }
    });
    this._form.replaceChildren(input, confirm, error);
    input.focus();
  }

  private _build(verb: DecisionVerb, text: string): Decision {
    switch (verb) {
      case 'edit': {
        let args: unknown;
        try {
          args = JSON.parse(text);
        } catch (err) {
          throw new Error(
            this._trans.__('The arguments are not valid JSON: %1', String(err))
          );
        }
        return edit(this._action.name ?? '', args);
      }
      case 'reject':
        return reject(text.trim() || undefined);
      case 'respond':
        return respond(text);
      default:
        return approve();
    }
  }

  private _decide(decision: Decision): void {
    this.decision = decision;
    this._form.replaceChildren();
    this._outcome.textContent = describeDecision(this._trans, decision);
    this._onDecided();
  }

  private readonly _buttons: HTMLDivElement;
  private readonly _form: HTMLDivElement;
  private readonly _outcome: HTMLDivElement;
}

function describeDecision(
  trans: TranslationBundle,
  decision: Decision
): string {
  switch (decision.type) {
    case 'approve':
      return trans.__('Decision: approved');
    case 'edit':
      return trans.__(
        'Decision: edited — %1',
        JSON.stringify(decision.edited_action.args)
      );
    case 'reject':
      return decision.message
        ? trans.__('Decision: rejected — %1', decision.message)
        : trans.__('Decision: rejected');
    case 'respond':
      return trans.__('Decision: responded — %1', decision.message);
  }
}
