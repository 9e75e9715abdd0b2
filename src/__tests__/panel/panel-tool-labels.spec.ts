/**
 * Tool calls in words (docs/protocol.md §12.9): the label of every tool the
 * panel knows, before and after it ran, the cell it names (from 1, linked),
 * a titled tool and any other as `name(args)`; and what a decision or a
 * failure says.
 */
import {
  type LabelPart,
  toolLabel,
  toolOutcome
} from '../../panel/transcript/tool-label';
import type { IToolCard } from '../../wire/types';
import { panelStrings } from '../../contracts/translation';

const trans = panelStrings();

function card(
  name: string,
  args: unknown,
  result?: unknown,
  status: IToolCard['status'] = result === undefined ? 'pending' : 'success'
): IToolCard {
  return {
    kind: 'tool',
    key: 1,
    callId: 'c1',
    name,
    args,
    rawArgs: null,
    status,
    result: result === undefined ? undefined : JSON.stringify(result),
    truncated: false,
    durationMs: null,
    orphan: false
  };
}

/** The label as text, a linked cell as `[cell 3]`. */
function said(tool: IToolCard): string {
  return toolLabel(tool, trans)
    .parts.map((part: LabelPart) =>
      typeof part === 'string' ? part : `[${part.text}]`
    )
    .join('');
}

const NB = 'work/analysis.ipynb';

describe('the notebook tools in words', () => {
  it.each([
    [
      'list_notebooks',
      {},
      { status: 'ok', notebooks: [{}, {}] },
      'List the open notebooks',
      'Listed the open notebooks (2)'
    ],
    [
      'read_notebook',
      { path: NB },
      { status: 'ok', path: NB, cells: [{}, {}, {}] },
      'Read analysis.ipynb',
      'Read analysis.ipynb (3 cells)'
    ],
    [
      'read_cell',
      { cell_id: 'c-2' },
      { status: 'ok', path: NB, cell_id: 'c-2', index: 1 },
      'Read a cell of the active notebook',
      'Read [cell 2] of analysis.ipynb'
    ],
    [
      'get_active_cell',
      {},
      { status: 'ok', path: NB, cell_id: 'c-1', index: 0 },
      'Find the active cell',
      'Found the active cell: [cell 1] of analysis.ipynb'
    ],
    [
      'insert_cell',
      { path: NB, source: 'x', cell_type: 'markdown' },
      { status: 'applied', path: NB, cell_id: 'n', index: 2 },
      'Insert a markdown cell in analysis.ipynb',
      'Inserted a markdown cell in analysis.ipynb ([cell 3])'
    ],
    [
      'edit_cell',
      { path: NB, cell_id: 'c-2' },
      { status: 'applied', path: NB, cell_id: 'c-2', index: 1 },
      'Edit a cell of analysis.ipynb',
      'Edited [cell 2] of analysis.ipynb'
    ],
    [
      'delete_cell',
      { path: NB, cell_id: 'c-2' },
      { status: 'applied', path: NB, cell_id: 'c-2', index: 1 },
      'Delete a cell of analysis.ipynb',
      'Deleted [cell 2] of analysis.ipynb'
    ],
    [
      'run_cell',
      { path: NB, cell_id: 'c-2' },
      {
        status: 'ok',
        path: NB,
        cell_id: 'c-2',
        index: 1,
        execution_status: 'ok',
        outputs: [{ output_type: 'stream', text: 'hello\n' }]
      },
      'Run a cell of analysis.ipynb',
      'Ran [cell 2] of analysis.ipynb — printed hello'
    ]
  ])('%s', (name, args, result, before, after) => {
    expect(said(card(name, args))).toBe(before);
    expect(said(card(name, args, result))).toBe(after);
  });

  it('links the cell it names to its notebook', () => {
    const [, cell] = toolLabel(
      card(
        'edit_cell',
        { path: NB, cell_id: 'c-2' },
        { status: 'applied', path: NB, cell_id: 'c-2', index: 1 }
      ),
      trans
    ).parts;
    expect(cell).toEqual({ cell: { path: NB, cellId: 'c-2' }, text: 'cell 2' });
  });

  it('says what a run raised, that it ran on, or that it printed nothing', () => {
    const ran = (result: object) =>
      said(
        card(
          'run_cell',
          { cell_id: 'c' },
          { status: 'ok', path: NB, cell_id: 'c', index: 0, ...result }
        )
      );
    expect(
      ran({
        execution_status: 'error',
        outputs: [
          {
            output_type: 'error',
            ename: 'NameError',
            evalue: "name 'x' is not defined"
          }
        ]
      })
    ).toBe(
      "Ran [cell 1] of analysis.ipynb — raised NameError: name 'x' is not defined"
    );
    expect(ran({ execution_status: 'timeout', outputs: [] })).toBe(
      'Ran [cell 1] of analysis.ipynb — still running when the agent stopped waiting'
    );
    expect(ran({ execution_status: 'ok', outputs: [] })).toBe(
      'Ran [cell 1] of analysis.ipynb — no output'
    );
  });

  it('keeps the words of what it would do when it was rejected or failed', () => {
    const rejected = card(
      'insert_cell',
      { path: NB },
      { status: 'rejected', reason: 'not now' },
      'error'
    );
    expect(said(rejected)).toBe('Insert a code cell in analysis.ipynb');
    expect(toolOutcome(rejected, trans)).toEqual({
      kind: 'rejected',
      text: 'You rejected it: not now'
    });
    const failed = card(
      'edit_cell',
      { path: NB },
      { status: 'error', code: 'stale', error: 'Cell c-2 changed.' },
      'error'
    );
    expect(toolOutcome(failed, trans)).toEqual({
      kind: 'failed',
      text: 'Cell c-2 changed.'
    });
  });

  it('names the notebook of a call it went away under, from the result', () => {
    const error =
      'work/analysis.ipynb was deleted while the call waited for its review: nothing was changed.';
    const deleted = card(
      'insert_cell',
      { source: 'x' },
      { status: 'error', code: 'deleted', error, path: NB },
      'error'
    );
    expect(said(deleted)).toBe('Insert a code cell in analysis.ipynb');
    expect(toolOutcome(deleted, trans)).toEqual({
      kind: 'failed',
      text: error
    });
  });

  it('records how a change was decided', () => {
    const applied = (edited: boolean) =>
      toolOutcome(
        card('edit_cell', {}, { status: 'applied', edited_by_user: edited }),
        trans
      );
    expect(applied(false)).toEqual({
      kind: 'decided',
      text: 'You applied this change.'
    });
    expect(applied(true)).toEqual({
      kind: 'decided',
      text: 'You edited this change, then applied it.'
    });
  });
});

describe('other tools in words', () => {
  it.each([
    [
      'write_todos',
      { todos: [{ status: 'completed' }, { status: 'pending' }] },
      'Update the plan',
      'Updated the plan: 2 steps, 1 done'
    ],
    ['ls', { path: '/data' }, 'List data', 'Listed data'],
    [
      'read_file',
      { file_path: '/notes.txt' },
      'Read notes.txt',
      'Read notes.txt'
    ],
    [
      'write_file',
      { file_path: '/notes.txt' },
      'Write notes.txt',
      'Wrote notes.txt'
    ],
    ['edit_file', { file_path: '/a/b.py' }, 'Edit a/b.py', 'Edited a/b.py'],
    ['delete', { file_path: '/old.csv' }, 'Delete old.csv', 'Deleted old.csv'],
    [
      'glob',
      { pattern: '*.py' },
      'Find the files matching *.py',
      'Found the files matching *.py'
    ],
    [
      'grep',
      { pattern: 'TODO' },
      'Search the files for “TODO”',
      'Searched the files for “TODO”'
    ],
    [
      'task',
      { description: 'summarise the data' },
      'Ask a subagent: summarise the data',
      'Asked a subagent: summarise the data'
    ]
  ])('%s', (name, args, before, after) => {
    expect(said(card(name, args))).toBe(before);
    expect(said(card(name, args, 'ok'))).toBe(after);
  });

  it('uses the title the server gave a tool (an MCP tool), else name(args)', () => {
    const title = 'Say the text louder';
    expect(said({ ...card('shout', { text: 'hi' }), title })).toBe(title);
    expect(
      said(card('search', { query: 'a'.repeat(40), limit: 5, a: 1, b: 2 }))
    ).toBe(`search(query: "${'a'.repeat(31)}…, limit: 5, a: 1, …)`);
  });

  it('shows another agent’s tool of a known name, with other arguments, as name(args)', () => {
    expect(
      said(card('write_file', { path: 'notes.md', content: 'Draft notes' }))
    ).toBe('write_file(path: "notes.md", content: "Draft notes")');
    expect(said(card('grep', { query: 'x' }))).toBe('grep(query: "x")');
    // Known by name and by its arguments: its own words.
    expect(said(card('write_file', { file_path: '/notes.md' }))).toBe(
      'Write notes.md'
    );
  });

  it('reads a LangChain human-in-the-loop rejection as a decision', () => {
    const rejected = {
      ...card('write_file', { file_path: '/x' }),
      status: 'error' as const,
      result:
        'User rejected the tool call for `write_file` with reason: not this file'
    };
    expect(toolOutcome(rejected, trans)).toEqual({
      kind: 'rejected',
      text: 'You rejected it: not this file'
    });
  });
});
