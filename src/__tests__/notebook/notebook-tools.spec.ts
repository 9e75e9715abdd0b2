/**
 * The notebook tools without JupyterLab: arguments checked against the
 * shared schema (src/contracts/notebook-tools.json), cells summarised, a
 * change refused when its cell changed since the agent read it (when it
 * is proposed and again when it is applied), and every outcome of the
 * review a result for the agent, never an exception.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import {
  NOTEBOOK_TOOLS,
  notebookToolCall
} from '../../contracts/notebook-tools';
import { ChangeReviews } from '../../model/conversation/change-reviews';
import { ClientToolRegistry } from '../../model/conversation/chat/client-tools';
import { checkArguments } from '../../notebook/tools/arguments';
import {
  cellImages,
  fingerprint,
  summariseCell,
  summariseOutput
} from '../../notebook/tools/cell-summary';
import type { LiveNotebooks } from '../../notebook/tools/live-notebook';
import { ToolFailure } from '../../notebook/tools/tool-failure';
import { NotebookTools } from '../../notebook/tools/notebook-tools';
import { NotebookToolRunner } from '../../notebook/tools/tool-runner';
import type { IActionRequest } from '../../wire/types';
import { FakeNotebook } from './notebook-fakes';

describe('checkArguments', () => {
  it('fills in the defaults of the schema', () => {
    const checked = checkArguments('read_notebook', {});
    expect(checked).toEqual({
      ok: true,
      tool: NOTEBOOK_TOOLS[1],
      args: { start_index: 0, max_cells: 50, include_outputs: true }
    });
    const insert = checkArguments('insert_cell', { source: 'x = 1' });
    expect(insert.ok && insert.args).toEqual({
      source: 'x = 1',
      cell_type: 'code'
    });
  });

  it.each([
    [
      'insert_cell',
      { source: 'x', cell_type: 'sql' },
      'insert_cell was not called, its arguments are wrong: cell_type: must be one of "code", "markdown"'
    ],
    [
      'read_notebook',
      { start_index: '3' },
      'read_notebook was not called, its arguments are wrong: start_index: must be integer, not string'
    ],
    [
      'insert_cell',
      { source: 'x', position: 2 },
      'insert_cell was not called, its arguments are wrong: "position" is not allowed'
    ],
    [
      'edit_cell',
      { cell_id: 'a' },
      'edit_cell was not called, its arguments are wrong: "fingerprint" is required; "source" is required'
    ],
    [
      'read_cell',
      {},
      'read_cell was not called, its arguments are wrong: give exactly one of cell_id and index'
    ],
    [
      'read_cell',
      { cell_id: 'a', index: 0 },
      'read_cell was not called, its arguments are wrong: give exactly one of cell_id and index'
    ],
    [
      'insert_cell',
      { source: 'x', index: 0, after_cell_id: 'a' },
      'insert_cell was not called, its arguments are wrong: give index or after_cell_id, not both'
    ],
    [
      'run_cell',
      { cell_id: 'a', timeout_seconds: 0 },
      'run_cell was not called, its arguments are wrong: timeout_seconds: must be at least 1'
    ],
    [
      'list_notebooks',
      [1],
      'list_notebooks was not called, its arguments are wrong: the arguments must be object, not array'
    ],
    ['drop_table', {}, 'There is no notebook tool named "drop_table".']
  ])('%s(%j) is refused with a clear result', (name, args, error) => {
    const checked = checkArguments(name, args);
    expect(checked).toEqual({
      ok: false,
      result: { status: 'error', code: 'bad_arguments', error }
    });
  });
});

describe('notebookToolCall', () => {
  const row = (raw: unknown, name = 'insert_cell'): IActionRequest => ({
    name,
    description: null,
    args: { source: 'x' },
    allowed: ['reject', 'respond'],
    argsSchema: undefined,
    synthetic: false,
    raw
  });

  it('recognises the version-1 marker and keeps the call id', () => {
    const marker = { notebook_tool: 1, mutates: true, tool_call_id: 'c1' };
    expect(notebookToolCall(row({ jupyterlab_agent_panel: marker }))).toEqual({
      name: 'insert_cell',
      args: { source: 'x' },
      callId: 'c1'
    });
  });

  it('leaves another version, an unknown name or no marker to the user', () => {
    expect(
      notebookToolCall(row({ jupyterlab_agent_panel: { notebook_tool: 2 } }))
    ).toBeNull();
    expect(
      notebookToolCall(
        row({ jupyterlab_agent_panel: { notebook_tool: 1 } }, 'drop_table')
      )
    ).toBeNull();
    expect(notebookToolCall(row({ name: 'insert_cell' }))).toBeNull();
  });
});

describe('cell summaries', () => {
  it('derives the fingerprint from the source alone', () => {
    expect(fingerprint('print(1)')).toBe(fingerprint('print(1)'));
    expect(fingerprint('print(1)')).not.toBe(fingerprint('print(2)'));
    expect(fingerprint('')).not.toBe(fingerprint(' '));
  });

  it('summarises outputs: text kept and capped, images left out, ANSI removed', () => {
    expect(
      summariseOutput(
        {
          output_type: 'display_data',
          data: {
            'image/png': 'iVBORw0KGgo=',
            'text/plain': ['a', 'b'],
            'application/json': { x: 1 }
          },
          metadata: {}
        },
        100
      )
    ).toEqual({
      output_type: 'display_data',
      data: {
        'image/png': 'omitted (12 characters)',
        'text/plain': 'ab',
        'application/json': '{"x":1}'
      }
    });
    expect(
      summariseOutput(
        {
          output_type: 'error',
          ename: 'NameError',
          evalue: "name 'prnt' is not defined",
          traceback: ['\u001b[0;31mNameError\u001b[0m', 'line 1']
        },
        100
      )
    ).toEqual({
      output_type: 'error',
      ename: 'NameError',
      evalue: "name 'prnt' is not defined",
      traceback: 'NameError\nline 1'
    });
    const long = summariseOutput(
      { output_type: 'stream', name: 'stdout', text: 'x'.repeat(500) },
      100
    );
    expect(String(long.text)).toHaveLength(100);
    expect(String(long.text)).toMatch(/… \(truncated, \d+ more characters\)$/);
  });

  it("gives a cell's image outputs for a model that reads images, within the caps", () => {
    const image = (mime: string, data: string | string[]) => ({
      output_type: 'display_data',
      data: { [mime]: data, 'text/plain': '<Figure>' },
      metadata: {}
    });
    const outputs = [
      { output_type: 'stream', name: 'stdout', text: 'hi' },
      image('image/png', 'iVBO\nRw0K\n'),
      image('image/jpeg', ['/9j/', '4AAQ']),
      image('image/svg+xml', '<svg/>'), // text, read as text
      image('image/png', 'A'.repeat(1398108)), // over 1 MB
      ...['B', 'C', 'D'].map(c => image('image/gif', c.repeat(8)))
    ] as nbformat.IOutput[];
    const cell = { id: 'c', cell_type: 'code', source: 'plot()', outputs };
    expect(cellImages(cell)).toEqual([
      { mime_type: 'image/png', data: 'iVBORw0K', output_index: 1 },
      { mime_type: 'image/jpeg', data: '/9j/4AAQ', output_index: 2 },
      { mime_type: 'image/gif', data: 'BBBBBBBB', output_index: 5 },
      { mime_type: 'image/gif', data: 'CCCCCCCC', output_index: 6 }
    ]);
    expect(cellImages({ id: 'm', cell_type: 'markdown', source: '#' })).toEqual(
      []
    );
  });

  it('caps a long source but gives its whole length', () => {
    const summary = summariseCell(
      { id: 'c', cell_type: 'markdown', source: 'y'.repeat(3000) },
      4,
      { source: 2000, output: 1000, includeOutputs: true }
    );
    expect(summary).toMatchObject({
      index: 4,
      cell_id: 'c',
      cell_type: 'markdown',
      source_length: 3000
    });
    expect(String(summary.source)).toHaveLength(2000);
    expect(summary).not.toHaveProperty('outputs');
  });
});

function setUp() {
  const notebook = new FakeNotebook('analysis.ipynb', [
    { id: 'c-1', cell_type: 'code', source: 'import math' },
    { id: 'c-2', cell_type: 'code', source: 'prnt("hi")' }
  ]);
  const other = new FakeNotebook('other.ipynb', [
    { id: 'o-1', cell_type: 'code', source: 'x = 1' }
  ]);
  const notebooks = {
    all: () => [notebook, other],
    active: () => notebook,
    find: (path: unknown) => {
      const found = [notebook, other].find(
        open => path === undefined || open.path === path
      );
      if (!found) {
        throw new ToolFailure({
          status: 'error',
          code: 'no_notebook',
          error: `no ${String(path)}`
        });
      }
      return found;
    }
  } as unknown as LiveNotebooks;
  const reviews = new ChangeReviews(() => 'thread-1');
  const runner = new NotebookToolRunner({
    tools: new NotebookTools(notebooks),
    reviews,
    reviewReads: () => false,
    threadId: () => 'thread-1'
  });
  const run = (name: string, args: unknown) =>
    runner.run({ name, args, callId: 'call-1' }, new AbortController().signal);
  /** Wait for the review of the call running, then answer it. */
  const review = async (
    outcome: Parameters<ChangeReviews['decide']>[1]
  ): Promise<void> => {
    // Microtasks only, so a bounded wait: a call that failed before its
    // review fails the test instead of spinning forever.
    for (let tries = 0; reviews.pending.length === 0; tries++) {
      if (tries > 1000) {
        throw new Error('No review appeared: the call ended before it.');
      }
      await Promise.resolve();
    }
    reviews.decide(reviews.pending[0].id, outcome);
  };
  return { notebook, other, reviews, runner, run, review };
}

describe('NotebookToolRunner', () => {
  it('runs a read at once and gives each cell its fingerprint', async () => {
    const { run, reviews } = setUp();
    const read = await run('read_cell', { index: 1 });
    expect(read).toEqual({
      status: 'ok',
      path: 'analysis.ipynb',
      index: 1,
      cell_id: 'c-2',
      cell_type: 'code',
      source: 'prnt("hi")',
      source_length: 10,
      fingerprint: fingerprint('prnt("hi")'),
      execution_count: null,
      outputs: []
    });
    expect(reviews.pending).toHaveLength(0);
  });

  it("adds a read cell's images to the result, and none to read_notebook", async () => {
    const { run, notebook } = setUp();
    const plotted = notebook.cellData(1);
    notebook.cellData = () => ({
      ...plotted,
      outputs: [
        {
          output_type: 'display_data',
          data: { 'image/png': 'iVBORw0K' },
          metadata: {}
        }
      ]
    });
    const read = await run('read_cell', { index: 1 });
    expect(read.images).toEqual([
      { mime_type: 'image/png', data: 'iVBORw0K', output_index: 0 }
    ]);
    expect(read.outputs).toEqual([
      {
        output_type: 'display_data',
        data: { 'image/png': 'omitted (8 characters)' }
      }
    ]);
    expect(await run('read_notebook', {})).not.toHaveProperty('images');
  });

  it('applies an edit after the review, with the proposal diffed against the cell', async () => {
    const { run, review, reviews, notebook } = setUp();
    const result = run('edit_cell', {
      cell_id: 'c-2',
      fingerprint: fingerprint('prnt("hi")'),
      source: 'print("hi")'
    });
    await review({ verdict: 'apply', editedSource: null });
    expect(await result).toMatchObject({
      status: 'applied',
      cell_id: 'c-2',
      index: 1,
      source: 'print("hi")',
      edited_by_user: false
    });
    expect(notebook.cells[1].source).toBe('print("hi")');
    expect(reviews.pending).toHaveLength(0);
  });

  it('refuses an edit of a cell changed since it was read, before the review', async () => {
    const { run, reviews, notebook } = setUp();
    const result = await run('edit_cell', {
      cell_id: 'c-2',
      fingerprint: fingerprint('something else'),
      source: 'print("hi")'
    });
    expect(result).toMatchObject({ status: 'error', code: 'stale' });
    expect(String(result.error)).toContain('changed since you read it');
    expect(reviews.pending).toHaveLength(0);
    expect(notebook.cells[1].source).toBe('prnt("hi")');
  });

  it('refuses an edit when the user changed the cell during the review', async () => {
    const { run, review, notebook } = setUp();
    const result = run('edit_cell', {
      cell_id: 'c-2',
      fingerprint: fingerprint('prnt("hi")'),
      source: 'print("hi")'
    });
    notebook.cells[1].source = 'prnt("hello")';
    await review({ verdict: 'apply', editedSource: null });
    expect(await result).toMatchObject({ status: 'error', code: 'stale' });
    expect(notebook.cells[1].source).toBe('prnt("hello")');
  });

  it('gives the rejection and its reason as the result, changing nothing', async () => {
    const { run, review, notebook } = setUp();
    const result = run('delete_cell', {
      cell_id: 'c-1',
      fingerprint: fingerprint('import math')
    });
    await review({ verdict: 'reject', reason: 'keep the import' });
    expect(await result).toEqual({
      status: 'rejected',
      reason: 'keep the import'
    });
    expect(notebook.cells).toHaveLength(2);
  });

  it('inserts the source the user edited, into the notebook named', async () => {
    const { run, review, notebook, other } = setUp();
    const result = run('insert_cell', {
      path: 'other.ipynb',
      source: "print('hello')"
    });
    await review({ verdict: 'apply', editedSource: "print('hi there')" });
    expect(await result).toMatchObject({
      status: 'applied',
      path: 'other.ipynb',
      index: 1,
      source: "print('hi there')",
      edited_by_user: true
    });
    expect(other.cells[1].source).toBe("print('hi there')");
    expect(notebook.cells).toHaveLength(2);
  });

  it('skips the review of an always allowed tool only', async () => {
    const { run, reviews } = setUp();
    reviews.setAlwaysAllowed('insert_cell', true);
    expect(await run('insert_cell', { source: 'a = 1' })).toMatchObject({
      status: 'applied'
    });
    const deletion = run('delete_cell', {
      cell_id: 'c-1',
      fingerprint: fingerprint('import math')
    });
    await Promise.resolve();
    expect(reviews.pending.map(r => r.proposal.tool)).toEqual(['delete_cell']);
    reviews.setAlwaysAllowed('insert_cell', false);
    expect(reviews.alwaysAllowed()).toEqual([]);
    reviews.decide(reviews.pending[0].id, { verdict: 'cancelled' });
    expect(await deletion).toMatchObject({
      status: 'error',
      code: 'cancelled'
    });
  });

  it('says what is wrong instead of throwing', async () => {
    const { run } = setUp();
    expect(await run('read_cell', { cell_id: 'nope' })).toEqual({
      status: 'error',
      code: 'not_found',
      error: 'no cell nope'
    });
    expect(await run('read_notebook', { path: 'gone.ipynb' })).toMatchObject({
      status: 'error',
      code: 'no_notebook'
    });
    expect(await run('insert_cell', { source: 1 })).toMatchObject({
      status: 'error',
      code: 'bad_arguments'
    });
  });

  it('as an AG-UI client tool checks the arguments once: the schema in the registry, the rules across arguments here', async () => {
    const { runner } = setUp();
    const registry = new ClientToolRegistry();
    let ran = 0;
    // Registered as registerNotebookTools registers them.
    for (const tool of NOTEBOOK_TOOLS) {
      registry.register({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        run: async (args, { callId, signal }) => {
          ran += 1;
          return runner.run({ name: tool.name, args, callId }, signal, {
            schemaChecked: true
          });
        }
      });
    }
    const signal = new AbortController().signal;
    const wrongType = await registry.run(
      { id: 'c-1', name: 'insert_cell', args: { source: 1 } },
      signal
    );
    expect(wrongType).toEqual({
      callId: 'c-1',
      name: 'insert_cell',
      content:
        'The arguments do not match the schema of "insert_cell": $.source: must be string, not number',
      error: true
    });
    expect(ran).toBe(0);
    const crossRule = await registry.run(
      { id: 'c-2', name: 'read_cell', args: {} },
      signal
    );
    expect(crossRule.error).toBe(false);
    expect(JSON.parse(crossRule.content)).toEqual({
      status: 'error',
      code: 'bad_arguments',
      error:
        'read_cell was not called, its arguments are wrong: give exactly one of cell_id and index'
    });
    expect(ran).toBe(1);
  });
});

describe('NotebookToolRunner after a reload', () => {
  it('waits for the notebooks to be there before it acts', async () => {
    const notebook = new FakeNotebook('analysis.ipynb', [
      { id: 'c-1', cell_type: 'code', source: 'a = 1' }
    ]);
    let open: FakeNotebook | null = null;
    const notebooks = {
      all: () => (open ? [open] : []),
      active: () => open,
      find: () => {
        if (!open) {
          throw new ToolFailure({
            status: 'error',
            code: 'no_notebook',
            error: 'No notebook is active'
          });
        }
        return open;
      }
    } as unknown as LiveNotebooks;
    let restore = () => undefined as void;
    const restored = new Promise<void>(resolve => (restore = resolve));
    const reviews = new ChangeReviews(() => 'thread-1');
    const runner = new NotebookToolRunner({
      tools: new NotebookTools(notebooks),
      reviews,
      reviewReads: () => false,
      threadId: () => 'thread-1',
      ready: () => restored
    });

    const read = runner.run(
      { name: 'read_cell', args: { index: 0 }, callId: 'call-1' },
      new AbortController().signal
    );
    await Promise.resolve();
    open = notebook; // the workspace reopened it
    restore();

    expect(await read).toMatchObject({ status: 'ok' });
    reviews.dispose();
  });
});

describe('ChangeReviews', () => {
  it('cancels a pending review when the signal aborts', async () => {
    const reviews = new ChangeReviews(() => 't');
    const stop = new AbortController();
    const outcome = reviews.ask(
      {
        tool: 'run_cell',
        kind: 'run',
        path: 'a.ipynb',
        cellId: 'c',
        index: 0,
        cellType: 'code',
        mimeType: 'text/x-ipython',
        current: '1',
        proposed: '1',
        description: 'Run'
      },
      stop.signal
    );
    expect(reviews.pending).toHaveLength(1);
    stop.abort();
    expect(await outcome).toEqual({ verdict: 'cancelled' });
    expect(reviews.pending).toHaveLength(0);
    reviews.dispose();
  });

  it('keeps "always allow" per conversation', () => {
    let thread = 'one';
    const reviews = new ChangeReviews(() => thread);
    reviews.setAlwaysAllowed('insert_cell', true);
    expect(reviews.isAlwaysAllowed('insert_cell')).toBe(true);
    expect(reviews.isAlwaysAllowed('edit_cell')).toBe(false);
    thread = 'two';
    expect(reviews.isAlwaysAllowed('insert_cell')).toBe(false);
    thread = 'one';
    expect(reviews.alwaysAllowed()).toEqual(['insert_cell']);
    reviews.dispose();
  });
});
