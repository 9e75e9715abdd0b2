/**
 * The notebook changes the agent proposes, waiting for the user's review
 * (docs/protocol.md §12.3): the panel shows each as a diff card with Apply,
 * Edit and Reject. Per conversation, "always allow <tool>" skips the review
 * for that tool only, until the user turns it off or a new conversation
 * starts.
 */
import { UUID } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

/** What a tool would do, shown before it happens. */
export interface IChangeProposal {
  /** The tool's name (`insert_cell`, `edit_cell`, …). */
  readonly tool: string;
  /** `read` only when a setting asks to review reads too. */
  readonly kind: 'insert' | 'edit' | 'delete' | 'run' | 'read';
  /** The notebook's path. */
  readonly path: string;
  /** The cell changed or run; null for a new cell or a read. */
  readonly cellId: string | null;
  /** Where the cell is (or will be). */
  readonly index: number;
  readonly cellType: string;
  /** The language of its source, as a MIME type (`text/x-ipython`): how its diff is highlighted. */
  readonly mimeType: string;
  /** The cell's source now ('' for a new cell). */
  readonly current: string;
  /** Its source after the change ('' for a deletion; the source run for `run`). */
  readonly proposed: string;
  /** One line for a person, e.g. "Insert a code cell at the end of analysis.ipynb". */
  readonly description: string;
}

/** The user's review: apply (with their own source when they edited it), reject, or none. */
export type ReviewOutcome =
  | { readonly verdict: 'apply'; readonly editedSource: string | null }
  | { readonly verdict: 'reject'; readonly reason: string | null }
  | { readonly verdict: 'cancelled' };

/** A proposal on screen, until it is decided or cancelled. */
export interface IPendingReview {
  readonly id: string;
  readonly proposal: IChangeProposal;
}

/** The reviews of notebook changes, as plugins and views see them. */
export interface IChangeReviews {
  readonly pending: readonly IPendingReview[];
  /** A review appeared or went, or "always allow" changed. */
  readonly changed: ISignal<IChangeReviews, void>;
  /**
   * Wait for the user's review of `proposal`; `cancelled` when `signal`
   * aborts first (Stop, the conversation moved on).
   */
  ask(proposal: IChangeProposal, signal: AbortSignal): Promise<ReviewOutcome>;
  /** Settle a pending review (from its card). Ignored when it is no longer pending. */
  decide(id: string, outcome: ReviewOutcome): void;
  /** The tools that skip review in the current conversation. */
  alwaysAllowed(): readonly string[];
  isAlwaysAllowed(tool: string): boolean;
  setAlwaysAllowed(tool: string, allowed: boolean): void;
}

export class ChangeReviews implements IChangeReviews, IDisposable {
  /** `conversation` names the current conversation (its thread id). */
  constructor(private readonly _conversation: () => string) {}

  get pending(): readonly IPendingReview[] {
    return [...this._pending.values()].map(entry => entry.review);
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  ask(proposal: IChangeProposal, signal: AbortSignal): Promise<ReviewOutcome> {
    if (signal.aborted || this._isDisposed) {
      return Promise.resolve({ verdict: 'cancelled' });
    }
    return new Promise(resolve => {
      const review = { id: UUID.uuid4(), proposal };
      const onAbort = () => this.decide(review.id, { verdict: 'cancelled' });
      signal.addEventListener('abort', onAbort, { once: true });
      this._pending.set(review.id, {
        review,
        settle: outcome => {
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        }
      });
      this._changed.emit();
    });
  }

  decide(id: string, outcome: ReviewOutcome): void {
    const entry = this._pending.get(id);
    if (!entry) {
      return;
    }
    this._pending.delete(id);
    entry.settle(outcome);
    this._changed.emit();
  }

  alwaysAllowed(): readonly string[] {
    return [...(this._allowed.get(this._conversation()) ?? [])];
  }

  isAlwaysAllowed(tool: string): boolean {
    return this._allowed.get(this._conversation())?.has(tool) ?? false;
  }

  setAlwaysAllowed(tool: string, allowed: boolean): void {
    const conversation = this._conversation();
    const tools = this._allowed.get(conversation) ?? new Set<string>();
    if (allowed === tools.has(tool)) {
      return;
    }
    if (allowed) {
      tools.add(tool);
    } else {
      tools.delete(tool);
    }
    this._allowed.set(conversation, tools);
    this._changed.emit();
  }

  /** Another conversation is shown: what "always allow" says may differ. */
  conversationChanged(): void {
    this._changed.emit();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    for (const id of [...this._pending.keys()]) {
      this.decide(id, { verdict: 'cancelled' });
    }
    Signal.clearData(this);
  }

  private readonly _pending = new Map<
    string,
    { review: IPendingReview; settle: (outcome: ReviewOutcome) => void }
  >();
  private readonly _allowed = new Map<string, Set<string>>();
  private readonly _changed = new Signal<this, void>(this);
  private _isDisposed = false;
}
