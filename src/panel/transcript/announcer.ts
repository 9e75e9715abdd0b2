import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import type { ChatModel } from '../../model/conversation/chat-model';
import type {
  ChatEntry,
  ITurnUpdate
} from '../../model/conversation/chat/chat-entries';
import { STREAM_ENDED_UNEXPECTEDLY } from '../../wire/types';

/**
 * A visually hidden polite live region that tells screen-reader users when
 * a turn starts and how it ended (errors included), never each delta: the
 * transcript itself is a `role="log"` with live updates turned off.
 */
export class TurnAnnouncer implements IDisposable {
  constructor(
    private readonly _model: ChatModel,
    private readonly _trans: TranslationBundle
  ) {
    this.node = document.createElement('div');
    this.node.className = 'jp-AgentPanel-announcer';
    this.node.setAttribute('role', 'status');
    this.node.setAttribute('aria-live', 'polite');
    _model.entryAdded.connect(this._onEntryAdded, this);
    _model.turnChanged.connect(this._onTurnChanged, this);
  }

  readonly node: HTMLDivElement;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._model.entryAdded.disconnect(this._onEntryAdded, this);
    this._model.turnChanged.disconnect(this._onTurnChanged, this);
  }

  private _onEntryAdded(_: ChatModel, entry: ChatEntry): void {
    if (entry.kind === 'turn' && entry.state.outcome === null) {
      const kind = entry.request?.kind;
      this.node.textContent =
        kind === 'resume'
          ? this._trans.__('Sent your review; the agent continues.')
          : kind === 'tool_results'
            ? this._trans.__('Sent the tools’ results; the agent continues.')
            : this._trans.__('The agent is answering.');
    }
  }

  private _onTurnChanged(_: ChatModel, { entry, changes }: ITurnUpdate): void {
    const ended = changes.find(change => change.type === 'ended');
    if (!ended || ended.type !== 'ended') {
      return;
    }
    const trans = this._trans;
    const { state } = entry;
    switch (ended.outcome) {
      case 'complete':
        this.node.textContent = trans.__('The agent finished answering.');
        break;
      case 'interrupted':
        this.node.textContent = trans.__(
          'The agent paused and is waiting for your review.'
        );
        break;
      case 'cancelled':
        this.node.textContent = trans.__('The turn was stopped.');
        break;
      case 'error':
        this.node.textContent = trans.__(
          'The turn failed: %1',
          !state.error || state.error.message === STREAM_ENDED_UNEXPECTEDLY
            ? trans.__('the stream ended unexpectedly')
            : state.error.message
        );
        break;
    }
  }

  private _isDisposed = false;
}
