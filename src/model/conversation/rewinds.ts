/**
 * Rewinding notebooks with the conversation (docs/protocol.md §12.11): the
 * change log the notebook tools write into the shown conversation, and the
 * one rewind offer the panel shows as a card (which cells would change, the
 * user's choice, then what happened).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import { DisposableDelegate, type IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { INotebookRewinder } from '../../contracts/extension-points';
import type {
  INotebookChange,
  IRewindPlan,
  IRewindResult
} from '../../contracts/notebook-changes';
import { errorMessage } from '../../wire/json';
import { changesOf, turnsFrom } from './chat/change-log';
import type { ChatModel } from './chat-model';
import type { ITurnEntry } from './chat/chat-entries';
import { panelStrings } from '../../contracts/translation';

/**
 * A rewind offered to the user: `pending` until Apply (`applying`, then
 * `applied` or `failed`) or Keep (`kept`).
 */
export interface IRewindOffer {
  readonly id: string;
  /** The keys of the turn entries it takes back, oldest first. */
  readonly turns: readonly string[];
  readonly changes: readonly INotebookChange[];
  readonly plan: IRewindPlan;
  readonly state: 'pending' | 'applying' | 'applied' | 'kept' | 'failed';
  /** What Apply did, once it did. */
  readonly result: IRewindResult | null;
  /** Why Apply failed, for the user. */
  readonly error: string | null;
}

/** The rewind, as plugins and views see it (`IAgentPanel.notebookRewinds`). */
export interface INotebookRewinds {
  /** The offer shown (null: none). */
  readonly offer: IRewindOffer | null;
  /** An offer was made, answered or withdrawn. */
  readonly changed: ISignal<INotebookRewinds, void>;
  /** Log a change the agent applied, on its turn of the shown conversation. */
  log(change: INotebookChange): void;
  /** Provide the notebook side (the notebook tools do); disposing withdraws it. */
  registerRewinder(rewinder: INotebookRewinder): IDisposable;
  /**
   * Offer to bring the notebooks back to how they were before `turns`
   * (oldest first): the panel shows the rewind card. Resolves to the offer
   * (its plan may be empty: nothing left to change), or null when those
   * turns changed no notebook. Throws when no notebook side is loaded.
   */
  rewind(turns: readonly ITurnEntry[]): Promise<IRewindOffer | null>;
  /** `rewind` of turn `turnKey` of the shown conversation and every later turn. */
  rewindFrom(turnKey: string): Promise<IRewindOffer | null>;
}

export class NotebookRewinds implements INotebookRewinds, IDisposable {
  /** `model`: the conversation shown. */
  constructor(
    private readonly _model: () => ChatModel,
    trans: TranslationBundle = panelStrings()
  ) {
    this._trans = trans;
  }

  get offer(): IRewindOffer | null {
    return this._offer;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  log(change: INotebookChange): void {
    if (!this._model().logNotebookChange(change)) {
      console.warn('Agent Panel: a notebook change has no turn to go with.');
    }
  }

  registerRewinder(rewinder: INotebookRewinder): IDisposable {
    this._rewinder = rewinder;
    return new DisposableDelegate(() => {
      if (this._rewinder === rewinder) {
        this._rewinder = null;
      }
    });
  }

  async rewind(turns: readonly ITurnEntry[]): Promise<IRewindOffer | null> {
    const changes = changesOf(turns);
    if (changes.length === 0) {
      return null;
    }
    const rewinder = this._rewinder;
    if (!rewinder) {
      throw new Error(
        this._trans.__('The notebook tools are not loaded: nothing to rewind.')
      );
    }
    const plan = await rewinder.plan(changes);
    const offer: IRewindOffer = {
      id: UUID.uuid4(),
      turns: turns.map(turn => turn.key),
      changes,
      plan,
      state: 'pending',
      result: null,
      error: null
    };
    this._set(offer);
    return offer;
  }

  rewindFrom(turnKey: string): Promise<IRewindOffer | null> {
    return this.rewind(turnsFrom(this._model().entries, turnKey));
  }

  /** Apply offer `id` to the cells of `selected` keys (from its card). */
  async apply(id: string, selected: readonly string[]): Promise<void> {
    const offer = this._offer;
    const rewinder = this._rewinder;
    if (!offer || offer.id !== id || offer.state !== 'pending') {
      return;
    }
    this._set({ ...offer, state: 'applying' });
    try {
      if (!rewinder) {
        throw new Error(this._trans.__('The notebook tools are not loaded.'));
      }
      const result = await rewinder.apply(offer.changes, offer.plan, selected);
      this._settle(id, { state: 'applied', result });
    } catch (error) {
      this._settle(id, { state: 'failed', error: errorMessage(error) });
    }
  }

  /** Keep the notebooks as they are (from the card of offer `id`). */
  keep(id: string): void {
    if (this._offer?.id === id && this._offer.state === 'pending') {
      this._set({ ...this._offer, state: 'kept' });
    }
  }

  /** Take the offer away (its card's Close, another conversation shown). */
  dismiss(id?: string): void {
    if (this._offer && (id === undefined || this._offer.id === id)) {
      this._set(null);
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._offer = null;
    Signal.clearData(this);
  }

  private _settle(id: string, settled: Partial<IRewindOffer>): void {
    if (this._offer?.id === id) {
      this._set({ ...this._offer, ...settled });
    }
  }

  private _set(offer: IRewindOffer | null): void {
    this._offer = offer;
    this._changed.emit();
  }

  private readonly _trans: TranslationBundle;
  private _offer: IRewindOffer | null = null;
  private _rewinder: INotebookRewinder | null = null;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, void>(this);
}
