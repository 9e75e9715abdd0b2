/**
 * The notebook changes the agent applied, by the call that made them, and
 * Undo from that call's card (docs/protocol.md §12.10): the inverse change
 * as one undo step, only while the cell still holds what the agent left in
 * it; otherwise Undo says so and changes nothing, since it would overwrite
 * the user's edits. Kept for the page's life.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { ISignal, Signal } from '@lumino/signaling';
import type { IChangeUndo } from '../../contracts/extension-points';
import { errorMessage } from '../../wire/json';
import type { INotebookChange } from '../../contracts/notebook-changes';
import { type AppliedChange, loggedChange } from './change-record';
import type { LiveNotebook, LiveNotebooks } from './live-notebook';
import { ToolFailure } from './tool-failure';

export class AppliedChanges implements IChangeUndo {
  /** `log` keeps each change with its turn too (docs/protocol.md §12.11). */
  constructor(
    private readonly _notebooks: LiveNotebooks,
    private readonly _trans: TranslationBundle,
    private readonly _log?: (change: INotebookChange) => void
  ) {}

  get changed(): ISignal<this, string> {
    return this._changed;
  }

  /** Call `callId` applied `change`. */
  record(callId: string | null, change: AppliedChange): void {
    this._log?.(loggedChange(callId, change));
    if (callId === null) {
      return;
    }
    this._changes.set(callId, { change, undone: false });
    this._changed.emit(callId);
  }

  state(callId: string): 'applied' | 'undone' | null {
    const known = this._changes.get(callId);
    return known ? (known.undone ? 'undone' : 'applied') : null;
  }

  async undo(callId: string): Promise<string | null> {
    const known = this._changes.get(callId);
    if (!known || known.undone) {
      return null;
    }
    const path = known.change.path;
    try {
      const problem = this._takeBack(this._notebooks.find(path), known.change);
      if (problem !== null) {
        return problem;
      }
    } catch (error) {
      return this._failure(error, path);
    }
    known.undone = true;
    this._changed.emit(callId);
    return null;
  }

  /** The inverse of `change`; why not when the cell changed since. */
  private _takeBack(
    notebook: LiveNotebook,
    change: AppliedChange
  ): string | null {
    if (change.kind === 'delete') {
      notebook.insert(Math.min(change.index, notebook.cellCount), change.cell);
      return null;
    }
    const index = notebook.indexOf(change.cellId);
    const left = change.kind === 'insert' ? change.source : change.after;
    if (notebook.cellData(index).source !== left) {
      return this._trans.__(
        "Cell %1 of %2 changed since the agent's change: undoing it would lose those edits. Use the notebook's Undo Cell Operation (Z), or edit the cell yourself.",
        index + 1,
        notebook.path
      );
    }
    if (change.kind === 'insert') {
      notebook.delete(index);
    } else {
      notebook.restoreSource(index, change.before, change.provenance);
    }
    return null;
  }

  /** Why the change could not be taken back, for the user. */
  private _failure(error: unknown, path: string): string {
    const trans = this._trans;
    const code = error instanceof ToolFailure ? error.result.code : null;
    switch (code) {
      case 'no_notebook':
        return trans.__('Open %1 to undo this change.', path);
      case 'not_found':
        return trans.__('The cell the agent changed is no longer in %1.', path);
      case 'read_only':
        return trans.__('%1 is read-only or still loading.', path);
      default:
        return trans.__('Could not undo the change: %1', errorMessage(error));
    }
  }

  private readonly _changes = new Map<
    string,
    { change: AppliedChange; undone: boolean }
  >();
  private readonly _changed = new Signal<this, string>(this);
}
