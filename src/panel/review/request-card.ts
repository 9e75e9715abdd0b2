import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import { translated } from '../../contracts/problems';
import { expiryOf, isExpired } from '../../wire/interrupts';
import { isObject } from '../../wire/json';
import { validateJson } from '../../wire/json-schema';
import type { InterruptResponse } from '../../wire/types';
import type {
  IInterruptCard,
  IInterruptRequest,
  Outcome,
  TranscriptItem
} from '../../wire/types';
import type { IItemView } from '../common/item-view';
import { prettyJson } from '../common/format';
import {
  type ArgsReading,
  createJsonEditor,
  type IArgsEditor
} from './args-editor';

/** Hands the answer to the model; false when it refused it. */
export type SubmitResponse = (
  card: IInterruptCard,
  response: InterruptResponse
) => boolean;

/**
 * An AG-UI 1.0 interrupt that asks for a payload (docs/protocol.md §8.9): its
 * reason and message, then a form built from its `responseSchema` (the
 * review rows' schema form) checked against the schema as the user types,
 * or Approve / Reject for a tool approval without a schema, or a text
 * answer for `input_required` without one. Dismiss answers `cancelled`. A
 * request past its `expiresAt` says so and offers nothing.
 */
export class RequestCardView implements IItemView {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _onSubmit: SubmitResponse
  ) {
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-review');
    this.widget.addClass('jp-AgentPanel-request');
    const node = this.widget.node;
    this._heading = element('div', 'jp-AgentPanel-reviewHeading');
    this._message = element('div', 'jp-AgentPanel-reviewDescription');
    this._form = element('div', 'jp-AgentPanel-reviewForm');
    this._error = element('div', 'jp-AgentPanel-reviewError');
    this._error.setAttribute('aria-live', 'polite');
    this._buttons = element('div', 'jp-AgentPanel-reviewButtons');
    this._outcome = element('div', 'jp-AgentPanel-reviewOutcome');
    node.append(
      this._heading,
      this._message,
      this._form,
      this._error,
      this._buttons,
      this._outcome
    );
    node.addEventListener('click', this);
  }

  readonly widget: Widget;

  update(item: TranscriptItem): void {
    const card = item as IInterruptCard;
    if (!this._card) {
      this._card = card;
      this._build(card.request!);
    }
    if (card.answered !== null) {
      this._state = card.answeredElsewhere ? 'elsewhere' : 'answered';
    }
    this._render();
  }

  /** The turn ended: answerable only if it paused for this request. */
  settle(outcome: Outcome): void {
    if (this._state === 'waiting') {
      this._state = outcome === 'interrupted' ? 'open' : 'closed';
      this._render();
    }
  }

  handleEvent(event: Event): void {
    const target = (event.target as Element).closest<HTMLButtonElement>(
      '[data-answer]'
    );
    if (!target || target.disabled || this._state !== 'open') {
      return;
    }
    const answer = target.dataset.answer;
    if (answer === 'dismiss') {
      this._submit({ status: 'cancelled' });
      return;
    }
    if (answer === 'approve' || answer === 'reject') {
      this._submit({
        status: 'resolved',
        payload: { approved: answer === 'approve' }
      });
      return;
    }
    const reading = this._read();
    if (reading.ok) {
      this._submit({ status: 'resolved', payload: reading.args });
    } else {
      this._error.textContent = reading.error;
    }
  }

  dispose(): void {
    this.widget.node.removeEventListener('click', this);
    this._editor?.dispose();
    this.widget.dispose();
  }

  private _build(request: IInterruptRequest): void {
    const trans = this._trans;
    this._message.textContent = request.message ?? '';
    this._message.hidden = !request.message;
    const buttons: HTMLButtonElement[] = [];
    const schema = isObject(request.responseSchema)
      ? request.responseSchema
      : null;
    if (schema) {
      this._editor = createJsonEditor(trans, {
        schema,
        original: initialAnswer(schema),
        onChange: () => this._renderSend(),
        validate: value => {
          const problems = validateJson(value, schema);
          return problems.length > 0
            ? problems.map(found => translated(found, trans)).join('; ')
            : null;
        },
        showChanges: false,
        label: trans.__('Your answer (JSON)')
      });
      this._form.appendChild(this._editor.node);
    } else if (request.reason === 'input_required') {
      // Input asked for without a schema: the answer is text.
      this._text = document.createElement('textarea');
      this._text.className = 'jp-AgentPanel-reviewInput';
      this._text.rows = 2;
      this._text.placeholder = trans.__('Your answer (required)');
      this._text.setAttribute('aria-label', this._text.placeholder);
      this._text.addEventListener('input', () => this._renderSend());
      this._form.appendChild(this._text);
    }
    if (this._editor || this._text) {
      this._send = button(trans.__('Send answer'), 'jp-mod-accept', 'send');
      buttons.push(this._send);
    } else {
      buttons.push(
        button(trans.__('Approve'), 'jp-mod-accept', 'approve'),
        button(trans.__('Reject'), 'jp-mod-warn', 'reject')
      );
    }
    buttons.push(button(trans.__('Dismiss'), '', 'dismiss'));
    buttons[buttons.length - 1].title = trans.__(
      'Answer nothing: the agent is told the request was cancelled'
    );
    this._buttons.replaceChildren(...buttons);
  }

  private _submit(response: InterruptResponse): void {
    this._state = 'sent';
    this._sent = response;
    this._error.textContent = '';
    this._render();
    if (!this._onSubmit(this._card!, response) && this._state === 'sent') {
      this._state = 'open';
      this._render();
    }
  }

  private _render(): void {
    const trans = this._trans;
    const card = this._card;
    if (!card) {
      return;
    }
    const request = card.request!;
    const expired =
      (this._state === 'open' || this._state === 'waiting') &&
      isExpired(request, Date.now());
    const state = expired ? 'expired' : this._state;
    this.widget.node.dataset.state = state;
    this._heading.textContent = this._headingText(state, request);
    const open = state === 'open';
    this._form.hidden = !open;
    this._buttons.hidden = !open && state !== 'waiting';
    for (const choice of this._buttons.querySelectorAll('button')) {
      choice.disabled = !open;
    }
    this._renderSend();
    const response = card.response ?? this._sent;
    this._outcome.hidden = !response || open || state === 'waiting';
    if (response) {
      const payload =
        response.status === 'resolved' ? prettyJson(response.payload) : '';
      this._outcome.textContent =
        response.status === 'cancelled'
          ? trans.__('Dismissed: the agent was told you did not answer.')
          : state === 'sent'
            ? trans.__('Your answer: %1', payload)
            : trans.__('Sent: %1', payload);
    }
  }

  private _headingText(state: string, request: IInterruptRequest): string {
    const trans = this._trans;
    switch (state) {
      case 'expired': {
        const at = expiryOf(request);
        return trans.__(
          'This request expired at %1: it can no longer be answered.',
          at === null
            ? String(request.expiresAt)
            : new Date(at).toLocaleString()
        );
      }
      case 'closed':
        return trans.__(
          'This request can no longer be answered: the turn did not pause cleanly.'
        );
      case 'answered':
      case 'sent':
        return trans.__('Answered (%1)', request.reason);
      case 'elsewhere':
        return trans.__(
          'Already answered elsewhere (in another tab or window): the answer below was not applied.'
        );
      default:
        return trans.__('The agent asks for your input (%1)', request.reason);
    }
  }

  private _renderSend(): void {
    if (this._send) {
      this._send.disabled = this._state !== 'open' || !this._read().ok;
    }
  }

  /** The answer in the form, or why it cannot be sent. */
  private _read(): ArgsReading {
    if (this._editor) {
      return this._editor.read();
    }
    const text = this._text?.value ?? '';
    return text.trim()
      ? { ok: true, args: text }
      : { ok: false, error: this._trans.__('An answer is required.') };
  }

  private readonly _heading: HTMLElement;
  private readonly _message: HTMLElement;
  private readonly _form: HTMLElement;
  private readonly _error: HTMLElement;
  private readonly _buttons: HTMLElement;
  private readonly _outcome: HTMLElement;
  private _card: IInterruptCard | null = null;
  private _editor: IArgsEditor | null = null;
  private _text: HTMLTextAreaElement | null = null;
  private _send: HTMLButtonElement | null = null;
  private _sent: InterruptResponse | null = null;
  private _state:
    'waiting' | 'open' | 'sent' | 'answered' | 'elsewhere' | 'closed' =
    'waiting';
}

/** What the form starts from: the schema's `default`, else an empty object or text. */
function initialAnswer(schema: Record<string, unknown> | null): unknown {
  if (schema && 'default' in schema) {
    return schema.default;
  }
  return schema?.type === 'object' || isObject(schema?.properties) ? {} : '';
}

function element(tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}

function button(
  label: string,
  modifier: string,
  answer: string
): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = [
    'jp-Button',
    'jp-mod-styled',
    modifier,
    'jp-AgentPanel-answer'
  ]
    .filter(Boolean)
    .join(' ');
  node.dataset.answer = answer;
  node.textContent = label;
  return node;
}
