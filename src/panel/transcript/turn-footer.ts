import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { STREAM_ENDED_UNEXPECTEDLY } from '../../wire/types';
import { formatTokens } from '../common/format';

/**
 * What is said under a turn's content: the tokens it used, stream notes, the error banner (with
 * a collapsible traceback), the stopped / reload note, and Retry on the
 * latest turn. Redrawn only when the turn ends or gets a note.
 */
export class TurnFooter implements IDisposable {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _onRetry: () => void,
    /** "Restore notebook to before this turn" (docs/protocol.md §12.11); none: not offered. */
    private readonly _onRewind?: (turnKey: string) => void,
    private readonly _regenerate?: IRegenerate
  ) {
    this.node = document.createElement('div');
    this.node.className = 'jp-AgentPanel-turnFooter';
    this.node.addEventListener('click', this);
  }

  readonly node: HTMLDivElement;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  render(entry: ITurnEntry, latest: boolean): void {
    const { state } = entry;
    this._turnKey = entry.key;
    const trans = this._trans;
    const parts: HTMLElement[] = [];
    if (state.usage) {
      const usage = element(
        'div',
        'jp-AgentPanel-usage',
        formatTokens(state.usage, trans)
      );
      usage.title = trans.__('Tokens the agent reported for this turn');
      parts.push(usage);
    }
    if (state.diagnostics.length > 0) {
      parts.push(this._diagnostics(state.diagnostics));
    }
    if (state.outcome === 'error') {
      const error = state.error;
      const banner = element('div', 'jp-AgentPanel-error');
      banner.setAttribute('role', 'alert');
      banner.appendChild(
        element('div', 'jp-AgentPanel-errorTitle', trans.__('The turn failed'))
      );
      banner.appendChild(
        element(
          'div',
          'jp-AgentPanel-errorMessage',
          !error || error.message === STREAM_ENDED_UNEXPECTEDLY
            ? trans.__(
                'The stream ended unexpectedly: the agent stopped sending before the turn finished.'
              )
            : error.message
        )
      );
      if (error?.traceback) {
        const details = element('details', 'jp-AgentPanel-traceback');
        details.append(
          element('summary', '', trans.__('Traceback')),
          element('pre', '', error.traceback)
        );
        banner.appendChild(details);
      }
      if (latest) {
        banner.appendChild(this._retryButton());
      }
      parts.push(banner);
    } else if (state.outcome === 'cancelled' && entry.runningElsewhere) {
      parts.push(
        element(
          'div',
          'jp-AgentPanel-elsewhere',
          trans.__(
            'Still answering in another tab or window (or it was, before a reload): the answer shows here as it is saved.'
          )
        )
      );
    } else if (state.outcome === 'cancelled') {
      const text = entry.interruptedByReload
        ? trans.__(
            'Interrupted by a page reload: the answer above is incomplete.'
          )
        : state.cancelMessage
          ? trans.__('Stopped: %1', state.cancelMessage)
          : trans.__('Stopped.');
      const note = element('div', 'jp-AgentPanel-cancelled', text);
      if (latest) {
        note.appendChild(this._retryButton());
      }
      parts.push(note);
    }
    if (state.outcome !== null && this._regenerate && !entry.runningElsewhere) {
      parts.push(this._regenerateButton(this._regenerate.refusal()));
    }
    if (this._onRewind && (entry.notebookChanges?.length ?? 0) > 0) {
      parts.push(this._rewindButton());
    }
    this.node.replaceChildren(...parts);
  }

  handleEvent(event: Event): void {
    const target = event.target as Element;
    if (target.closest('.jp-AgentPanel-retry')) {
      this._onRetry();
    } else if (target.closest('.jp-AgentPanel-regenerate')) {
      this._regenerate?.run();
    } else if (target.closest('.jp-AgentPanel-rewindTurn')) {
      this._onRewind?.(this._turnKey);
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this.node.removeEventListener('click', this);
  }

  private _diagnostics(messages: string[]): HTMLElement {
    const details = element('details', 'jp-AgentPanel-diagnostics');
    details.appendChild(
      element(
        'summary',
        '',
        this._trans._n('%1 stream note', '%1 stream notes', messages.length)
      )
    );
    const list = element('ul', '');
    for (const message of messages) {
      list.appendChild(element('li', '', message));
    }
    details.appendChild(list);
    return details;
  }

  private _retryButton(): HTMLButtonElement {
    return button(
      'jp-mod-styled jp-AgentPanel-retry',
      this._trans.__('Retry'),
      this._trans.__('Send the last message again')
    );
  }

  /** Regenerate, or why it cannot be (in its tooltip). */
  private _regenerateButton(refusal: string | null): HTMLButtonElement {
    const regenerate = button(
      'jp-mod-minimal jp-AgentPanel-regenerate',
      this._trans.__('Regenerate'),
      refusal ??
        this._trans.__(
          'Generate this answer again from its message, on a new branch'
        )
    );
    regenerate.disabled = refusal !== null;
    return regenerate;
  }

  private _rewindButton(): HTMLButtonElement {
    return button(
      'jp-mod-minimal jp-AgentPanel-rewindTurn',
      this._trans.__('Restore notebook to before this turn'),
      this._trans.__(
        'Show what it takes to bring the notebook back to how it was before this turn and the later ones'
      )
    );
  }

  private _isDisposed = false;
  private _turnKey = '';
}

/** Generating a turn's answer again (docs/protocol.md §13.8). */
export interface IRegenerate {
  /** Why it cannot be, or null. */
  refusal(): string | null;
  run(): void;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/** A footer button: `label`, with `title` as its tooltip. */
function button(
  className: string,
  label: string,
  title: string
): HTMLButtonElement {
  const node = element('button', `jp-Button ${className}`, label);
  node.type = 'button';
  node.title = title;
  return node;
}
