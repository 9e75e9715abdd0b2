/**
 * The eight notebook tools on the live notebooks (docs/protocol.md §12):
 * the read tools answer at once; a changing tool is first prepared (its
 * target found, its staleness checked, the proposal built for the review)
 * and applied after the review, checked again then.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import { toolError } from '../../contracts/notebook-tools';
import type { JsonObject } from '../../wire/json';
import type { IChangeProposal } from '../../model/conversation/change-reviews';
import { PROVENANCE_KEY, type Provenance } from '../cells';
import {
  CELL_LIMITS,
  fingerprint,
  NOTEBOOK_LIMITS,
  summariseCell,
  withImages
} from './cell-summary';
import type { AppliedChanges } from './applied-changes';
import type { LiveNotebook, LiveNotebooks } from './live-notebook';
import { noKernel, ToolFailure } from './tool-failure';

/** A changing call, ready for review: what it would do, and how to do it. */
export interface IPreparedChange {
  readonly proposal: IChangeProposal;
  /** Do it (with the user's source when they edited the proposal). */
  applyChange(
    editedSource: string | null,
    signal: AbortSignal
  ): Promise<JsonObject>;
}

/** Who a change is recorded as coming from. */
export interface IChangeOrigin {
  threadId: string;
  callId: string | null;
}

export class NotebookTools {
  /** `applied` records each change made, so it can be undone (docs/protocol.md §12.10). */
  constructor(
    private readonly _notebooks: LiveNotebooks,
    private readonly _applied?: AppliedChanges
  ) {}

  /** A read tool's result; failures become error results. */
  read(name: string, args: JsonObject): JsonObject {
    return this._guard(() => {
      switch (name) {
        case 'list_notebooks':
          return this._list();
        case 'read_notebook':
          return this._readNotebook(args);
        case 'read_cell':
          return this._readCell(args);
        case 'get_active_cell':
          return this._activeCell();
      }
      return toolError('failed', `${name} is not a read tool.`);
    });
  }

  /** A changing tool's proposal, or the error result when it cannot happen. */
  prepare(
    name: string,
    args: JsonObject,
    origin: IChangeOrigin
  ): IPreparedChange | JsonObject {
    try {
      switch (name) {
        case 'insert_cell':
          return this._prepareInsert(args, origin);
        case 'edit_cell':
          return this._prepareEdit(args, origin);
        case 'delete_cell':
          return this._prepareDelete(args, origin);
        case 'run_cell':
          return this._prepareRun(args, origin);
      }
      return toolError('failed', `${name} does not change the notebook.`);
    } catch (error) {
      return failureResult(error);
    }
  }

  private _guard(work: () => JsonObject): JsonObject {
    try {
      return work();
    } catch (error) {
      return failureResult(error);
    }
  }

  private _list(): JsonObject {
    const active = this._notebooks.active();
    return {
      status: 'ok',
      notebooks: this._notebooks.all().map(notebook => ({
        path: notebook.path,
        active: notebook.panel === active?.panel,
        unsaved_changes: notebook.panel.context.model.dirty,
        cell_count: notebook.cellCount,
        kernel: notebook.kernel()
      }))
    };
  }

  private _readNotebook(args: JsonObject): JsonObject {
    const notebook = this._notebooks.find(args.path);
    const start = args.start_index as number;
    const end = Math.min(
      start + (args.max_cells as number),
      notebook.cellCount
    );
    const limits = {
      ...NOTEBOOK_LIMITS,
      includeOutputs: args.include_outputs as boolean
    };
    const cells = [];
    for (let index = start; index < end; index++) {
      cells.push(summariseCell(notebook.cellData(index), index, limits));
    }
    return {
      status: 'ok',
      path: notebook.path,
      cell_count: notebook.cellCount,
      cells
    };
  }

  private _readCell(args: JsonObject): JsonObject {
    const notebook = this._notebooks.find(args.path);
    const index =
      typeof args.cell_id === 'string'
        ? notebook.indexOf(args.cell_id)
        : checkedIndex(notebook, args.index as number, notebook.cellCount - 1);
    const cell = notebook.cellData(index);
    return withImages(
      {
        status: 'ok',
        path: notebook.path,
        ...summariseCell(cell, index, CELL_LIMITS)
      },
      cell
    );
  }

  private _activeCell(): JsonObject {
    const notebook = this._notebooks.find(undefined);
    const active = notebook.activeCell();
    if (!active) {
      throw new ToolFailure(
        toolError('not_found', `${notebook.path} has no active cell.`)
      );
    }
    const cell = notebook.cellData(active.index);
    return {
      status: 'ok',
      path: notebook.path,
      cell_id: cell.id,
      index: active.index,
      cell_type: cell.cell_type,
      selected_text: active.selectedText
    };
  }

  private _prepareInsert(
    args: JsonObject,
    origin: IChangeOrigin
  ): IPreparedChange {
    const notebook = this._notebooks.find(args.path);
    notebook.assertWritable();
    const cellType = args.cell_type as 'code' | 'markdown';
    const where = (): number =>
      typeof args.after_cell_id === 'string'
        ? notebook.indexOf(args.after_cell_id) + 1
        : typeof args.index === 'number'
          ? checkedIndex(notebook, args.index, notebook.cellCount)
          : notebook.cellCount;
    const index = where();
    const source = args.source as string;
    return {
      proposal: {
        tool: 'insert_cell',
        kind: 'insert',
        path: notebook.path,
        cellId: null,
        index,
        cellType,
        mimeType: notebook.mimeTypeOf(cellType),
        current: '',
        proposed: source,
        description: `Insert a ${cellType} cell at index ${index} of ${notebook.path}`
      },
      applyChange: async editedSource => {
        const applied = editedSource ?? source;
        // Where it goes is found again: the notebook may have changed meanwhile.
        const at = where();
        const metadata = {
          [PROVENANCE_KEY]: provenance('insert_cell', origin, editedSource)
        };
        const cell: nbformat.ICell =
          cellType === 'code'
            ? {
                cell_type: 'code',
                source: applied,
                metadata: { trusted: true, ...metadata },
                outputs: [],
                execution_count: null
              }
            : { cell_type: 'markdown', source: applied, metadata };
        const cellId = notebook.insert(at, cell);
        this._applied?.record(origin.callId, {
          kind: 'insert',
          path: notebook.path,
          cellId,
          source: applied,
          index: at,
          cellType
        });
        return {
          status: 'applied',
          path: notebook.path,
          cell_id: cellId,
          index: at,
          cell_type: cellType,
          source: applied,
          fingerprint: fingerprint(applied),
          edited_by_user: editedSource !== null
        };
      }
    };
  }

  private _prepareEdit(
    args: JsonObject,
    origin: IChangeOrigin
  ): IPreparedChange {
    const notebook = this._notebooks.find(args.path);
    notebook.assertWritable();
    const cellId = args.cell_id as string;
    const quoted = args.fingerprint as string;
    const { index, cell } = freshCell(notebook, cellId, quoted);
    const source = args.source as string;
    return {
      proposal: {
        tool: 'edit_cell',
        kind: 'edit',
        path: notebook.path,
        cellId,
        index,
        cellType: cell.cell_type,
        mimeType: notebook.mimeTypeOf(cell.cell_type),
        current: cell.source,
        proposed: source,
        description: `Replace the source of cell ${index} of ${notebook.path}`
      },
      applyChange: async editedSource => {
        const applied = editedSource ?? source;
        // The user (or another client) may have typed into it during the review.
        const now = freshCell(notebook, cellId, quoted);
        const before = notebook.provenanceOf(now.index);
        notebook.setSource(
          now.index,
          applied,
          provenance('edit_cell', origin, editedSource)
        );
        this._applied?.record(origin.callId, {
          kind: 'edit',
          path: notebook.path,
          cellId,
          before: now.cell.source,
          after: applied,
          provenance: before,
          index: now.index,
          cellType: now.cell.cell_type
        });
        return {
          status: 'applied',
          path: notebook.path,
          cell_id: cellId,
          index: now.index,
          source: applied,
          fingerprint: fingerprint(applied),
          edited_by_user: editedSource !== null
        };
      }
    };
  }

  private _prepareDelete(
    args: JsonObject,
    origin: IChangeOrigin
  ): IPreparedChange {
    const notebook = this._notebooks.find(args.path);
    notebook.assertWritable();
    const cellId = args.cell_id as string;
    const quoted = args.fingerprint as string;
    const { index, cell } = freshCell(notebook, cellId, quoted);
    return {
      proposal: {
        tool: 'delete_cell',
        kind: 'delete',
        path: notebook.path,
        cellId,
        index,
        cellType: cell.cell_type,
        mimeType: notebook.mimeTypeOf(cell.cell_type),
        current: cell.source,
        proposed: '',
        description: `Delete cell ${index} of ${notebook.path}`
      },
      applyChange: async () => {
        const now = freshCell(notebook, cellId, quoted);
        const cell = notebook.cellJson(now.index);
        const afterCellId =
          now.index > 0 ? notebook.cellData(now.index - 1).id : null;
        notebook.delete(now.index);
        this._applied?.record(origin.callId, {
          kind: 'delete',
          path: notebook.path,
          index: now.index,
          cell,
          afterCellId
        });
        return {
          status: 'applied',
          path: notebook.path,
          cell_id: cellId,
          index: now.index,
          source: now.cell.source
        };
      }
    };
  }

  private _prepareRun(
    args: JsonObject,
    origin: IChangeOrigin
  ): IPreparedChange {
    const notebook = this._notebooks.find(args.path);
    const cellId = args.cell_id as string;
    const index = notebook.indexOf(cellId);
    const cell = notebook.cellData(index);
    if (cell.cell_type !== 'code') {
      throw new ToolFailure(
        toolError(
          'not_code',
          `Cell ${cellId} is a ${cell.cell_type} cell: only code cells run.`
        )
      );
    }
    if (!notebook.kernel()) {
      // Said before the review: there is nothing to run the cell in.
      throw noKernel(notebook.path);
    }
    const seconds = args.timeout_seconds as number;
    return {
      proposal: {
        tool: 'run_cell',
        kind: 'run',
        path: notebook.path,
        cellId,
        index,
        cellType: 'code',
        mimeType: notebook.mimeTypeOf('code'),
        current: cell.source,
        proposed: cell.source,
        description: `Run cell ${index} of ${notebook.path} (waiting at most ${seconds} s)`
      },
      applyChange: async (editedSource, signal) => {
        let at = notebook.indexOf(cellId);
        if (editedSource !== null) {
          notebook.setSource(
            at,
            editedSource,
            provenance('run_cell', origin, editedSource)
          );
        }
        const status = await notebook.run(at, seconds * 1000, signal);
        at = notebook.indexOf(cellId);
        const cell = notebook.cellData(at);
        const ran = summariseCell(cell, at, CELL_LIMITS);
        return withImages(
          {
            status: 'ok',
            path: notebook.path,
            cell_id: cellId,
            index: at,
            execution_count: ran.execution_count,
            execution_status: status,
            outputs: ran.outputs,
            source: ran.source,
            edited_by_user: editedSource !== null
          },
          cell
        );
      }
    };
  }
}

/** Whether `value` is a prepared change rather than an error result. */
export function isPrepared(
  value: IPreparedChange | JsonObject
): value is IPreparedChange {
  return typeof (value as IPreparedChange).applyChange === 'function';
}

/** The cell `cellId` if its source is still the one the agent read; else a `stale` failure. */
export function freshCell(
  notebook: Pick<LiveNotebook, 'indexOf' | 'cellData' | 'path'>,
  cellId: string,
  quoted: string
): { index: number; cell: ReturnType<LiveNotebook['cellData']> } {
  const index = notebook.indexOf(cellId);
  const cell = notebook.cellData(index);
  if (fingerprint(cell.source) !== quoted) {
    throw new ToolFailure(
      toolError(
        'stale',
        `Cell ${cellId} of ${notebook.path} changed since you read it: read it again (read_cell) and base your change on what it holds now.`
      )
    );
  }
  return { index, cell };
}

function checkedIndex(
  notebook: Pick<LiveNotebook, 'path' | 'cellCount'>,
  index: number,
  last: number
): number {
  if (index > last) {
    throw new ToolFailure(
      toolError(
        'not_found',
        `${notebook.path} has ${notebook.cellCount} cells: index ${index} is past the end.`
      )
    );
  }
  return index;
}

function provenance(
  tool: string,
  origin: IChangeOrigin,
  editedSource: string | null
): Provenance {
  return {
    kind: 'notebook_tool',
    thread_id: origin.threadId,
    inserted_at: new Date().toISOString(),
    tool_name: tool,
    ...(origin.callId ? { tool_call_id: origin.callId } : {}),
    ...(editedSource !== null ? { edited_by_user: true } : {})
  };
}

function failureResult(error: unknown): JsonObject {
  if (error instanceof ToolFailure) {
    return error.result;
  }
  return toolError(
    'failed',
    error instanceof Error ? error.message : String(error)
  );
}
