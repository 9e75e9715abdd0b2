import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import {
  type IAttachmentDraft,
  sameAttachment
} from '../../context/attachments';
import type { IMentionItem } from '../../context/mentions';
import type { ITurnContext } from '../../wire/turn';
import type { IKernelVariable } from '../../transport/comm/kernel-variables';
import {
  type ContextDefaults,
  type ContextKind,
  DEFAULT_CONTEXT_DEFAULTS,
  EMPTY_SNAPSHOT,
  type IWorkspaceSnapshot,
  turnContextOf
} from '../../context/workspace';

/** Where the workspace context comes from (JupyterLab's shell and trackers). */
export interface IContextSource extends IDisposable {
  /** Something the snapshot reads may have changed. */
  readonly changed: ISignal<IContextSource, void>;
  snapshot(): IWorkspaceSnapshot;
}

/** The user variables of the current notebook's kernel, listed on demand. */
export interface IVariablesListing {
  /** The notebook whose kernel holds them (its path): "variables in the kernel of a.ipynb". */
  source: string;
  variables: IKernelVariable[];
  omitted: { name: string; reason: string }[];
}

/** Lists the current notebook's kernel variables (docs/protocol.md §7.6). */
export interface IVariablesSource {
  /** Rejects with a sentence for the user (no kernel, no helper loaded). */
  list(): Promise<IVariablesListing>;
}

/** What was dropped on the message box (docs/protocol.md §6.2). */
export type ContextDrop =
  | { kind: 'files'; paths: string[] }
  /** Cells dragged from a notebook: the drag's source and the dragged cell widgets. */
  | { kind: 'cells'; source: unknown; cells: unknown[] };

/**
 * Files and cells for `@` mentions and drops: the Jupyter contents and the
 * active notebook's cells, read when the chip is made.
 */
export interface IMentionSource {
  /** The completer's lines for `@query`. */
  complete(query: string): Promise<IMentionItem[]>;
  /** The chip for a chosen file, notebook or cell; rejects with a sentence. */
  attachment(item: IMentionItem): Promise<IAttachmentDraft>;
  /** The chips for what was dropped (nothing for a drop it cannot read). */
  dropped(drop: ContextDrop): Promise<IAttachmentDraft[]>;
}

/**
 * The context the next message takes, as other plugins set it up
 * (`IAgentPanel.composerContext`): where it is read from, and which kinds
 * go with a message unless the user removes them.
 */
export interface IComposerContext {
  /** The kinds sent by default (the `context` setting). */
  defaults: ContextDefaults;
  setSource(source: IContextSource | null): void;
  /** Attach an output, an error or more to the next message (a chip with ×). */
  attach(draft: IAttachmentDraft): void;
  /** Where the "Variables" chip lists the kernel's variables from. */
  variablesSource: IVariablesSource | null;
  /** Where `@` mentions and drops on the message box are read from. */
  mentionSource: IMentionSource | null;
}

/**
 * The context that will go with the next message: what the workspace shows
 * now, and which kinds the user keeps. Defaults come from the settings; a
 * kind removed (or added back) applies to the next message only.
 */
export class ComposerContext implements IComposerContext, IDisposable {
  get snapshot(): IWorkspaceSnapshot {
    return this._snapshot;
  }

  /** The snapshot, the defaults or the user's choice changed. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  setSource(source: IContextSource | null): void {
    this._source?.dispose();
    this._source = source;
    source?.changed.connect(this.refresh, this);
    this.refresh();
  }

  get defaults(): ContextDefaults {
    return { ...this._defaults };
  }

  set defaults(defaults: ContextDefaults) {
    this._defaults = { ...defaults };
    this._changed.emit();
  }

  /** Whether `kind` goes with the next message. */
  isIncluded(kind: ContextKind): boolean {
    return this._choices.get(kind) ?? this._defaults[kind];
  }

  /** Keep or remove `kind` for the next message. */
  setIncluded(kind: ContextKind, included: boolean): void {
    if (this.isIncluded(kind) !== included) {
      this._choices.set(kind, included);
      this._changed.emit();
    }
  }

  /** Where the "Variables" chip lists variables from; null: no chip. */
  get variablesSource(): IVariablesSource | null {
    return this._variablesSource;
  }

  set variablesSource(source: IVariablesSource | null) {
    this._variablesSource = source;
    this._changed.emit();
  }

  /** Where `@` mentions and drops are read from; null: no completer. */
  mentionSource: IMentionSource | null = null;

  /** What the user attached to the next message, in order. */
  get attachments(): readonly IAttachmentDraft[] {
    return this._attachments;
  }

  /**
   * What the workspace offers to attach (the error the active or the last
   * run cell raised), unless attached already: a chip with +.
   */
  get offered(): readonly IAttachmentDraft[] {
    return (this._snapshot.offered ?? []).filter(
      draft => !this._isAttached(draft)
    );
  }

  attach(draft: IAttachmentDraft): void {
    if (!this._isAttached(draft)) {
      this._attachments = [...this._attachments, draft];
      this._changed.emit();
    }
  }

  /** Take the attachment at `index` off the next message. */
  detach(index: number): void {
    if (index >= 0 && index < this._attachments.length) {
      this._attachments = this._attachments.filter((_, i) => i !== index);
      this._changed.emit();
    }
  }

  /** Read the workspace again. */
  refresh(): void {
    if (this._isDisposed) {
      return;
    }
    this._snapshot = this._source?.snapshot() ?? EMPTY_SNAPSHOT;
    this._changed.emit();
  }

  /**
   * The context fields for the next message, from a fresh look at the
   * workspace (the chips show the same): null when nothing applies.
   */
  current(): ITurnContext | null {
    this.refresh();
    const context = turnContextOf(this._snapshot, kind =>
      this.isIncluded(kind)
    );
    if (this._attachments.length === 0) {
      return context;
    }
    return {
      ...context,
      attachments: this._attachments.map(draft => draft.attachment)
    };
  }

  /**
   * The message was sent or queued: the next one starts from the defaults,
   * with nothing attached.
   */
  reset(): void {
    if (this._choices.size > 0 || this._attachments.length > 0) {
      this._choices.clear();
      this._attachments = [];
      this._changed.emit();
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._source?.dispose();
    this._source = null;
    Signal.clearData(this);
  }

  private _isAttached(draft: IAttachmentDraft): boolean {
    return this._attachments.some(attached =>
      sameAttachment(attached.attachment, draft.attachment)
    );
  }

  private _source: IContextSource | null = null;
  private _variablesSource: IVariablesSource | null = null;
  private _attachments: readonly IAttachmentDraft[] = [];
  private _snapshot: IWorkspaceSnapshot = EMPTY_SNAPSHOT;
  private _defaults: ContextDefaults = { ...DEFAULT_CONTEXT_DEFAULTS };
  private readonly _choices = new Map<ContextKind, boolean>();
  private _isDisposed = false;
  private readonly _changed = new Signal<this, void>(this);
}
