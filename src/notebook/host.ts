import type {
  INotebookModel,
  NotebookPanel,
  INotebookTracker
} from '@jupyterlab/notebook';
import type { KernelSpec } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import type { IInsertionTarget } from './insert';

/** A notebook the commands can put cells into. */
export interface IOpenNotebook {
  /** The file name, for captions. */
  readonly name: string;
  /** Why no cell can be inserted now (loading, read-only), or null. */
  readonly problem: string | null;
  /** The kernel's language (e.g. `python`, `R`); null while unknown. */
  readonly kernelLanguage: string | null;
  readonly model: INotebookModel;
  /** The notebook widget: its active cell. */
  readonly widget: IInsertionTarget;
  /** Bring the notebook forward and scroll the active cell into view. */
  reveal(): void;
  save(): Promise<void>;
}

/** Where the notebook commands find, and create, notebooks. */
export interface INotebookHost {
  /** The notebook the user worked in last, if any is open. */
  current(): IOpenNotebook | null;
  /** Create a notebook with the default kernel and wait until it is loaded. */
  create(): Promise<IOpenNotebook>;
  /** What `current()` says may have changed. */
  readonly changed: ISignal<INotebookHost, void>;
}

/** Notebook metadata that tells the kernel's language. */
const LANGUAGE_KEYS = new Set(['language_info', 'kernelspec']);

export interface INotebookHostOptions {
  tracker: INotebookTracker;
  kernelSpecs: KernelSpec.IManager;
  commands: CommandRegistry;
  /** Activates a main-area widget by id. */
  activate(id: string): void;
  trans: TranslationBundle;
}

/**
 * The notebooks of the application, seen through the notebook tracker. Emits
 * `changed` when another notebook becomes current, or the current one's
 * kernel, language, path or readiness changes, or the kernel specs arrive.
 */
export class NotebookHost implements INotebookHost, IDisposable {
  constructor(private readonly _options: INotebookHostOptions) {
    _options.tracker.currentChanged.connect(this._onCurrentChanged, this);
    _options.kernelSpecs.specsChanged.connect(this._emit, this);
    this._follow(_options.tracker.currentWidget);
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  current(): IOpenNotebook | null {
    const panel = this._options.tracker.currentWidget;
    return panel && !panel.isDisposed ? this._open(panel) : null;
  }

  async create(): Promise<IOpenNotebook> {
    const { kernelSpecs, commands } = this._options;
    await kernelSpecs.ready;
    const kernelName = kernelSpecs.specs?.default;
    const panel = (await commands.execute('notebook:create-new', {
      ...(kernelName ? { kernelName } : {})
    })) as NotebookPanel;
    await panel.context.ready;
    return this._open(panel);
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._follow(null);
    Signal.clearData(this);
  }

  private _open(panel: NotebookPanel): IOpenNotebook {
    const { trans, activate } = this._options;
    const name = panel.context.localPath.split('/').pop() ?? panel.title.label;
    const model = panel.content.model!;
    let problem: string | null = null;
    if (!panel.context.isReady) {
      problem = trans.__('%1 is still loading.', name);
    } else if (model.readOnly) {
      problem = trans.__('%1 is read-only.', name);
    }
    return {
      name,
      problem,
      kernelLanguage: this._kernelLanguage(panel),
      model,
      widget: panel.content,
      reveal: () => {
        if (!panel.isVisible) {
          activate(panel.id);
        }
        const cell = panel.content.activeCell;
        if (cell) {
          void panel.content.scrollToCell(cell);
        }
      },
      save: () => panel.context.save()
    };
  }

  /**
   * From the running kernel's spec, else the language the kernel reported,
   * else the saved kernelspec; null when none is known.
   */
  private _kernelLanguage(panel: NotebookPanel): string | null {
    const specs = this._options.kernelSpecs.specs;
    const kernelName =
      panel.sessionContext.session?.kernel?.name ??
      panel.sessionContext.kernelPreference.name;
    const model = panel.content.model;
    const candidates = [
      kernelName ? specs?.kernelspecs[kernelName]?.language : undefined,
      (model?.getMetadata('language_info') as { name?: unknown } | undefined)
        ?.name,
      (model?.getMetadata('kernelspec') as { language?: unknown } | undefined)
        ?.language
    ];
    const language = candidates.find(
      (value): value is string => typeof value === 'string' && value !== ''
    );
    return language ?? null;
  }

  private _onCurrentChanged(): void {
    this._follow(this._options.tracker.currentWidget);
    this._emit();
  }

  /** Listen to `panel`, and stop listening to the notebook followed before. */
  private _follow(panel: NotebookPanel | null): void {
    const previous = this._followed;
    if (previous) {
      previous.sessionContext.kernelChanged.disconnect(this._emit, this);
      previous.context.pathChanged.disconnect(this._emit, this);
      previous.content.model?.metadataChanged.disconnect(
        this._onMetadataChanged,
        this
      );
    }
    this._followed = panel;
    if (!panel) {
      return;
    }
    panel.sessionContext.kernelChanged.connect(this._emit, this);
    panel.context.pathChanged.connect(this._emit, this);
    panel.content.model?.metadataChanged.connect(this._onMetadataChanged, this);
    if (!panel.context.isReady) {
      void panel.context.ready.then(() => {
        if (this._followed === panel) {
          this._emit();
        }
      });
    }
  }

  private _onMetadataChanged(_: unknown, change: { key: string }): void {
    if (LANGUAGE_KEYS.has(change.key)) {
      this._emit();
    }
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _isDisposed = false;
  private _followed: NotebookPanel | null = null;
  private readonly _changed = new Signal<this, void>(this);
}
