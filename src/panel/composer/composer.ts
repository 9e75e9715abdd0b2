import type { TranslationBundle } from '@jupyterlab/translation';
import { Message } from '@lumino/messaging';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

/**
 * The message box: a textarea and Send / Stop buttons. While a turn runs,
 * Enter (or Queue) still asks to send: the panel queues the message. It
 * emits intents and never talks to a transport.
 */
export class Composer extends Widget {
  constructor(trans: TranslationBundle) {
    super();
    this._trans = trans;
    this.addClass('jp-AgentPanel-composer');
    this._input = document.createElement('textarea');
    this._input.className = 'jp-AgentPanel-input';
    this._input.rows = 3;
    this._input.placeholder = trans.__('Ask the agent…');
    this._input.setAttribute('aria-label', trans.__('Message to the agent'));
    this._notice = document.createElement('div');
    this._notice.className = 'jp-AgentPanel-composerNotice';
    this._notice.setAttribute('role', 'status');
    this._send = button(trans.__('Send'), 'jp-AgentPanel-send');
    this._stop = button(trans.__('Stop'), 'jp-AgentPanel-stop');
    this._stop.title = trans.__('Stop the agent (Escape)');
    this._stop.hidden = true;
    this._queue = button(trans.__('Queue'), 'jp-AgentPanel-queueSend');
    this._queue.title = trans.__(
      'Add to the queue: sent when the agent has finished (Enter)'
    );
    this._queue.hidden = true;
    this._actions = document.createElement('div');
    this._actions.className = 'jp-AgentPanel-composerActions';
    this._actions.append(this._stop, this._queue, this._send);
    this.node.append(this._notice, this._input, this._actions);
  }

  /**
   * Show `widget` at the start of the buttons' row (the model picker: what
   * the next message goes to, beside Send); the composer disposes it.
   */
  setAccessory(widget: Widget): void {
    this._accessory?.dispose();
    this._accessory = widget;
    this._actions.prepend(widget.node);
  }

  dispose(): void {
    this._accessory?.dispose();
    this._accessory = null;
    super.dispose();
  }

  /** The user asked to send this text. */
  get sendRequested(): ISignal<this, string> {
    return this._sendRequested;
  }

  /** What the message box holds changed: typed, or put there (`setDraft`). */
  get draftChanged(): ISignal<this, string> {
    return this._draftChanged;
  }

  get stopRequested(): ISignal<this, void> {
    return this._stopRequested;
  }

  /** `Enter` sends and Shift+Enter breaks the line, or the reverse with Ctrl+Enter. */
  set sendKey(key: 'Enter' | 'Ctrl+Enter') {
    this._sendKey = key;
  }

  /** Lock the input with an explanation, or unlock it with `null`. */
  setLocked(reason: string | null): void {
    this._input.disabled = reason !== null;
    this._send.disabled = reason !== null;
    this._notice.textContent = reason ?? '';
    this._notice.hidden = reason === null;
  }

  /** While a turn runs, Stop replaces Send (Escape also stops). */
  setRunning(running: boolean): void {
    this._running = running;
    this._stop.hidden = !running;
    this._send.hidden = running;
    this._queue.hidden = !running;
    this._input.placeholder = running
      ? this._trans.__('Queue a message for when the agent has finished…')
      : this._trans.__('Ask the agent…');
  }

  clear(): void {
    this._input.value = '';
  }

  /** Put `text` in the message box, the cursor after it, for the user to finish. */
  setDraft(text: string): void {
    this._input.value = text;
    this._input.setSelectionRange(text.length, text.length);
    this._draftChanged.emit(text);
  }

  /** The message box's text field (the `@` completer reads and edits it). */
  get input(): HTMLTextAreaElement {
    return this._input;
  }

  focusInput(): void {
    this._input.focus();
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      if (
        event.currentTarget === this._send ||
        event.currentTarget === this._queue
      ) {
        this._requestSend();
      } else if (event.currentTarget === this._stop) {
        this._stopRequested.emit();
      }
    } else if (event.type === 'keydown') {
      this._onKeyDown(event as KeyboardEvent);
    } else if (event.type === 'input') {
      this._draftChanged.emit(this._input.value);
    }
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    this._send.addEventListener('click', this);
    this._queue.addEventListener('click', this);
    this._stop.addEventListener('click', this);
    this._input.addEventListener('keydown', this);
    this._input.addEventListener('input', this);
  }

  protected onBeforeDetach(msg: Message): void {
    this._send.removeEventListener('click', this);
    this._queue.removeEventListener('click', this);
    this._stop.removeEventListener('click', this);
    this._input.removeEventListener('keydown', this);
    this._input.removeEventListener('input', this);
    super.onBeforeDetach(msg);
  }

  private _onKeyDown(event: KeyboardEvent): void {
    if (event.key === 'Escape' && this._running) {
      event.preventDefault();
      this._stopRequested.emit();
      return;
    }
    // An IME composing a character uses Enter to confirm it, not to send.
    if (event.key !== 'Enter' || event.isComposing || event.keyCode === 229) {
      return;
    }
    const modifier = event.ctrlKey || event.metaKey;
    const wantsSend =
      this._sendKey === 'Enter' ? !event.shiftKey && !modifier : modifier;
    if (wantsSend) {
      event.preventDefault();
      this._requestSend();
    }
  }

  private _requestSend(): void {
    const text = this._input.value;
    if (text.trim() && !this._input.disabled) {
      this._sendRequested.emit(text);
    }
  }

  private readonly _input: HTMLTextAreaElement;
  private readonly _actions: HTMLDivElement;
  private _accessory: Widget | null = null;
  private readonly _notice: HTMLDivElement;
  private readonly _send: HTMLButtonElement;
  private readonly _stop: HTMLButtonElement;
  private readonly _queue: HTMLButtonElement;
  private readonly _trans: TranslationBundle;
  private _sendKey: 'Enter' | 'Ctrl+Enter' = 'Enter';
  private _running = false;
  private readonly _sendRequested = new Signal<this, string>(this);
  private readonly _draftChanged = new Signal<this, string>(this);
  private readonly _stopRequested = new Signal<this, void>(this);
}

function button(label: string, className: string): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = `jp-Button jp-mod-styled ${className}`;
  element.textContent = label;
  return element;
}
