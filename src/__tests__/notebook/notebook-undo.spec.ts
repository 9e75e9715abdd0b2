/**
 * Undo from a tool card (docs/protocol.md §12.10): the change a call applied
 * is taken back as one step while the cell holds what the agent left; a
 * cell changed since is left alone and Undo says why.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import { AppliedChanges } from '../../notebook/tools/applied-changes';
import type { LiveNotebooks } from '../../notebook/tools/live-notebook';
import { isPrepared, NotebookTools } from '../../notebook/tools/notebook-tools';
import { fingerprint } from '../../notebook/tools/cell-summary';
import { ToolFailure } from '../../notebook/tools/tool-failure';
import { panelStrings } from '../../contracts/translation';

const trans = panelStrings();

interface IFakeCell {
  id: string;
  cell_type: string;
  source: string;
  metadata: Record<string, unknown>;
}

/** An open notebook in memory, with what the tools and Undo use. */
class FakeNotebook {
  constructor(
    readonly path: string,
    readonly cells: IFakeCell[]
  ) {}
  panel = { context: { model: { dirty: false } } };
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
      throw new ToolFailure({
        status: 'error',
        code: 'not_found',
        error: cellId
      });
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
    this.steps += 1;
    return id;
  }
  setSource(index: number, source: string, provenance: object): void {
    this.cells[index].source = source;
    this.cells[index].metadata.agent_panel = provenance;
    this.steps += 1;
  }
  restoreSource(index: number, source: string, provenance?: object): void {
    this.cells[index].source = source;
    if (provenance) {
      this.cells[index].metadata.agent_panel = provenance;
    } else {
      delete this.cells[index].metadata.agent_panel;
    }
    this.steps += 1;
  }
  delete(index: number): void {
    this.cells.splice(index, 1);
    this.steps += 1;
  }
}

function setUp() {
  const notebook = new FakeNotebook('a.ipynb', [
    { id: 'c-1', cell_type: 'code', source: 'x = 1', metadata: {} },
    { id: 'c-2', cell_type: 'code', source: 'prnt(x)', metadata: {} }
  ]);
  const notebooks = {
    find: (path: unknown) => {
      if (path !== undefined && path !== notebook.path) {
        throw new ToolFailure({
          status: 'error',
          code: 'no_notebook',
          error: String(path)
        });
      }
      return notebook;
    }
  } as unknown as LiveNotebooks;
  const applied = new AppliedChanges(notebooks, trans);
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
  const sources = () => notebook.cells.map(cell => cell.source);
  return { notebook, applied, apply, sources };
}

describe('Undo of an applied change', () => {
  it('takes back an insert, an edit and a delete, one step each', async () => {
    const { notebook, applied, apply, sources } = setUp();
    const seen: string[] = [];
    applied.changed.connect((_, callId) => seen.push(callId));
    await apply(
      'insert_cell',
      { source: 'print(x)', cell_type: 'code', index: 2 },
      'ins'
    );
    await apply(
      'edit_cell',
      {
        cell_id: 'c-2',
        fingerprint: fingerprint('prnt(x)'),
        source: 'print(x)'
      },
      'ed'
    );
    await apply(
      'delete_cell',
      { cell_id: 'c-1', fingerprint: fingerprint('x = 1') },
      'del'
    );
    expect(sources()).toEqual(['print(x)', 'print(x)']);
    expect(applied.state('ins')).toBe('applied');

    const steps = notebook.steps;
    expect(await applied.undo('del')).toBeNull();
    expect(await applied.undo('ed')).toBeNull();
    expect(await applied.undo('ins')).toBeNull();
    expect(notebook.steps - steps).toBe(3);
    expect(sources()).toEqual(['x = 1', 'prnt(x)']);
    // The deleted cell comes back with its id; the edited one without the agent's provenance.
    expect(notebook.cells.map(cell => cell.id)).toEqual(['c-1', 'c-2']);
    expect(notebook.cells[1].metadata).toEqual({});
    expect(applied.state('ins')).toBe('undone');
    expect(await applied.undo('ins')).toBeNull(); // once only
    expect(seen).toEqual(['ins', 'ed', 'del', 'del', 'ed', 'ins']);
  });

  it('leaves a cell changed since alone, and says so', async () => {
    const { notebook, applied, apply } = setUp();
    await apply(
      'edit_cell',
      {
        cell_id: 'c-2',
        fingerprint: fingerprint('prnt(x)'),
        source: 'print(x)'
      },
      'ed'
    );
    notebook.cells[1].source = 'print(x)  # mine';

    expect(await applied.undo('ed')).toBe(
      "Cell 2 of a.ipynb changed since the agent's change: undoing it would lose those edits. Use the notebook's Undo Cell Operation (Z), or edit the cell yourself."
    );
    expect(notebook.cells[1].source).toBe('print(x)  # mine');
    expect(applied.state('ed')).toBe('applied');
  });

  it('says when the cell or the notebook is gone, and knows no call it did not see', async () => {
    const { notebook, applied, apply } = setUp();
    await apply('insert_cell', { source: 'y', cell_type: 'code' }, 'ins');
    notebook.cells.pop();
    expect(await applied.undo('ins')).toBe(
      'The cell the agent changed is no longer in a.ipynb.'
    );
    expect(applied.state('nobody')).toBeNull();
  });
});
