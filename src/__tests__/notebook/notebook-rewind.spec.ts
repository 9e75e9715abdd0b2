/**
 * Rewinding a notebook (docs/protocol.md §12.11): the changes the tools log,
 * the plan that undoes them (insert, edit, delete; conflicts; cells the user
 * deleted), and the apply that brings the notebook back as one step.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookChange } from '../../contracts/notebook-changes';
import { AppliedChanges } from '../../notebook/tools/applied-changes';
import { fingerprint } from '../../notebook/tools/cell-summary';
import type { LiveNotebooks } from '../../notebook/tools/live-notebook';
import { isPrepared, NotebookTools } from '../../notebook/tools/notebook-tools';
import { NotebookRewinder } from '../../notebook/tools/rewind';
import { ToolFailure } from '../../notebook/tools/tool-failure';
import { panelStrings } from '../../contracts/translation';

const trans = panelStrings();

interface IFakeCell {
  id: string;
  cell_type: string;
  source: string;
  metadata: Record<string, unknown>;
}

/** An open notebook in memory, with what the tools and the rewind use. */
class FakeNotebook {
  constructor(
    readonly path: string,
    readonly cells: IFakeCell[]
  ) {}
  panel = { context: { model: { dirty: false } } };
  /** Undo steps taken: each change outside `oneStep`, each `oneStep`. */
  steps = 0;
  get cellCount(): number {
    return this.cells.length;
  }
  cellData(index: number) {
    return { ...this.cells[index], execution_count: null, outputs: [] };
  }
  cellJson(index: number): nbformat.ICell {
    return { ...this.cells[index] } as unknown as nbformat.ICell;
  }
  indexOf(cellId: string): number {
    const index = this.cells.findIndex(cell => cell.id === cellId);
    if (index < 0) {
      throw new ToolFailure({ status: 'error', code: 'not_found', error: '' });
    }
    return index;
  }
  provenanceOf(index: number) {
    return this.cells[index].metadata.agent_panel as never;
  }
  assertWritable(): void {
    return;
  }
  mimeTypeOf(): string {
    return 'text/x-ipython';
  }
  insert(index: number, cell: nbformat.ICell): string {
    const id = (cell as { id?: string }).id ?? `new-${this.cells.length}`;
    this.cells.splice(index, 0, {
      id,
      cell_type: cell.cell_type,
      source: String(cell.source),
      metadata: { ...(cell.metadata as object) }
    });
    this._step();
    return id;
  }
  setSource(index: number, source: string, provenance: object): void {
    this.cells[index].source = source;
    this.cells[index].metadata.agent_panel = provenance;
    this._step();
  }
  restoreSource(index: number, source: string, provenance?: object): void {
    this.cells[index].source = source;
    if (provenance) {
      this.cells[index].metadata.agent_panel = provenance;
    } else {
      delete this.cells[index].metadata.agent_panel;
    }
    this._step();
  }
  delete(index: number): void {
    this.cells.splice(index, 1);
    this._step();
  }
  oneStep(work: () => void): void {
    this._grouped = true;
    try {
      work();
    } finally {
      this._grouped = false;
      this.steps += 1;
    }
  }
  private _step(): void {
    if (!this._grouped) {
      this.steps += 1;
    }
  }
  private _grouped = false;
}

const ORIGINAL = ['a = 1', 'prnt(a)', 'b = 2'];

function setUp() {
  const notebook = new FakeNotebook(
    'a.ipynb',
    ORIGINAL.map((source, i) => ({
      id: `c-${i + 1}`,
      cell_type: 'code',
      source,
      metadata: {}
    }))
  );
  const find = (path: unknown) => {
    if (path !== undefined && path !== notebook.path) {
      throw new ToolFailure({
        status: 'error',
        code: 'no_notebook',
        error: String(path)
      });
    }
    return notebook;
  };
  const logged: INotebookChange[] = [];
  const notebooks = { find } as unknown as LiveNotebooks;
  const applied = new AppliedChanges(notebooks, trans, change =>
    logged.push(change)
  );
  const tools = new NotebookTools(notebooks, applied);
  const apply = async (name: string, args: object, callId: string) => {
    const prepared = tools.prepare(name, args as never, {
      threadId: 't',
      callId
    });
    if (!isPrepared(prepared)) {
      throw new Error(JSON.stringify(prepared));
    }
    return prepared.applyChange(null, new AbortController().signal);
  };
  const rewinder = new NotebookRewinder(path => find(path) as never, trans);
  const sources = () => notebook.cells.map(cell => cell.source);
  return { notebook, logged, apply, rewinder, sources };
}

/** An insert after cell 1, an edit of cell 2 and a delete of cell 3. */
async function threeChanges(apply: ReturnType<typeof setUp>['apply']) {
  await apply(
    'insert_cell',
    { source: 'print(a)', cell_type: 'code', after_cell_id: 'c-1' },
    'ins'
  );
  await apply(
    'edit_cell',
    { cell_id: 'c-2', fingerprint: fingerprint('prnt(a)'), source: 'print(a)' },
    'edit'
  );
  await apply(
    'delete_cell',
    { cell_id: 'c-3', fingerprint: fingerprint('b = 2') },
    'del'
  );
}

describe('the change log the notebook tools write', () => {
  it('records each change with its call, the source before and after, and a deleted cell as it was', async () => {
    const { logged, apply } = setUp();
    await threeChanges(apply);
    expect(logged).toEqual([
      expect.objectContaining({
        kind: 'insert',
        path: 'a.ipynb',
        cellId: 'new-3',
        cellType: 'code',
        before: '',
        after: 'print(a)',
        index: 1,
        callId: 'ins'
      }),
      expect.objectContaining({
        kind: 'edit',
        cellId: 'c-2',
        before: 'prnt(a)',
        after: 'print(a)',
        index: 2,
        callId: 'edit'
      }),
      expect.objectContaining({
        kind: 'delete',
        cellId: 'c-3',
        before: 'b = 2',
        after: '',
        index: 3,
        callId: 'del',
        afterCellId: 'c-2',
        cell: expect.objectContaining({ id: 'c-3', source: 'b = 2' })
      })
    ]);
    // Plain JSON: saved with the conversation as it is.
    expect(JSON.parse(JSON.stringify(logged))).toEqual(logged);
  });
});

describe('the rewind plan', () => {
  it('undoes an insert, an edit and a delete, all ready', async () => {
    const { logged, apply, rewinder } = setUp();
    await threeChanges(apply);
    const plan = await rewinder.plan(logged);
    expect(
      plan.cells.map(({ cellId, action, status, current, target }) => ({
        cellId,
        action,
        status,
        current,
        target
      }))
    ).toEqual([
      {
        cellId: 'new-3',
        action: 'remove',
        status: 'ready',
        current: 'print(a)',
        target: ''
      },
      {
        cellId: 'c-2',
        action: 'restore',
        status: 'ready',
        current: 'print(a)',
        target: 'prnt(a)'
      },
      {
        cellId: 'c-3',
        action: 'reinsert',
        status: 'ready',
        current: '',
        target: 'b = 2'
      }
    ]);
  });

  it('marks a cell the user changed since as a conflict, and reports one they deleted', async () => {
    const { notebook, logged, apply, rewinder } = setUp();
    await threeChanges(apply);
    notebook.cells[1].source = 'print(a)  # mine';
    notebook.cells.splice(2, 1);
    const plan = await rewinder.plan(logged);
    expect(
      plan.cells.map(cell => [cell.cellId, cell.status, cell.action])
    ).toEqual([
      ['new-3', 'conflict', 'remove'],
      ['c-2', 'deleted', null],
      ['c-3', 'ready', 'reinsert']
    ]);
  });

  it('leaves out a cell already as before, and marks the cells of a closed notebook', async () => {
    const { notebook, logged, apply, rewinder } = setUp();
    await threeChanges(apply);
    notebook.cells[2].source = 'prnt(a)';
    const plan = await rewinder.plan(logged);
    expect(plan.cells.map(cell => cell.cellId)).toEqual(['new-3', 'c-3']);
    const elsewhere = logged.map(change => ({ ...change, path: 'b.ipynb' }));
    const closed = await rewinder.plan(elsewhere);
    expect(closed.cells.map(cell => [cell.status, cell.action])).toEqual([
      ['closed', null],
      ['closed', null],
      ['closed', null]
    ]);
  });
});

describe('applying a rewind', () => {
  it('brings the notebook back as it was, as one step', async () => {
    const { notebook, logged, apply, rewinder, sources } = setUp();
    await threeChanges(apply);
    const plan = await rewinder.plan(logged);
    const steps = notebook.steps;
    const result = await rewinder.apply(
      logged,
      plan,
      plan.cells.map(cell => cell.key)
    );
    expect(sources()).toEqual(ORIGINAL);
    expect(notebook.cells.map(cell => cell.id)).toEqual(['c-1', 'c-2', 'c-3']);
    expect(notebook.cells[1].metadata.agent_panel).toBeUndefined();
    expect(notebook.steps).toBe(steps + 1);
    expect(result).toEqual({
      restored: plan.cells.map(cell => cell.key),
      skipped: [],
      notebooks: ['a.ipynb']
    });
  });

  it('keeps a conflict left unchecked, and skips a cell changed after the plan', async () => {
    const { notebook, logged, apply, rewinder, sources } = setUp();
    await threeChanges(apply);
    notebook.cells[1].source = 'print(a)  # mine';
    const plan = await rewinder.plan(logged);
    const ready = plan.cells.filter(cell => cell.status === 'ready');
    expect(ready.map(cell => cell.cellId)).toEqual(['c-2', 'c-3']);
    // The user types in the edited cell while the card is shown.
    notebook.cells[2].source = 'print(a)!';
    const result = await rewinder.apply(
      logged,
      plan,
      ready.map(cell => cell.key)
    );
    expect(sources()).toEqual([
      'a = 1',
      'print(a)  # mine',
      'print(a)!',
      'b = 2'
    ]);
    expect(result.restored).toEqual([ready[1].key]);
    expect(result.skipped).toEqual([
      {
        key: ready[0].key,
        reason: 'The cell changed since this card showed it: left as it is.'
      }
    ]);
  });

  it('puts the conflict back too when the user checks it', async () => {
    const { notebook, logged, apply, rewinder, sources } = setUp();
    await threeChanges(apply);
    notebook.cells[1].source = 'print(a)  # mine';
    const plan = await rewinder.plan(logged);
    await rewinder.apply(
      logged,
      plan,
      plan.cells.map(cell => cell.key)
    );
    expect(sources()).toEqual(ORIGINAL);
  });

  it('rewinds only the later turns when asked from a later one', async () => {
    const { logged, apply, rewinder, sources } = setUp();
    await threeChanges(apply);
    const later = logged.slice(1);
    const plan = await rewinder.plan(later);
    await rewinder.apply(
      later,
      plan,
      plan.cells.map(cell => cell.key)
    );
    expect(sources()).toEqual(['a = 1', 'print(a)', 'prnt(a)', 'b = 2']);
  });
});
