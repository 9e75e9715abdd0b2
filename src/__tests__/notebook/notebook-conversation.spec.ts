/**
 * Reading the conversation for the notebook commands: code fences, the
 * latest items, and the export of recorded turns as notebook cells.
 */
import * as fs from 'fs';
import * as path from 'path';

import { PROVENANCE_KEY, type NotebookCell } from '../../notebook/cells';
import {
  conversationCells,
  fencedCodeBlocks,
  isExtraction,
  latestCodeBlock,
  latestItem,
  type ConversationEntry
} from '../../notebook/conversation';
import { reduceFrames } from '../support/wire-harness';

const ROOT = path.resolve(__dirname, '..', '..', '..', 'fixtures');

/** A turn entry from a recorded or corpus stream, reduced by the real reducer. */
function turn(file: string, key = file): ConversationEntry {
  const lines = fs
    .readFileSync(path.join(ROOT, file), 'utf-8')
    .split('\n')
    .filter(Boolean);
  return { kind: 'turn', key, state: reduceFrames(lines).state };
}

const user = (text: string): ConversationEntry => ({ kind: 'user', text });

const OPTIONS = {
  threadId: 'thread-9',
  insertedAt: '2025-05-06T07:08:09.000Z',
  kernelLanguage: 'python',
  maxToolChars: 2000
};

function kinds(cells: NotebookCell[]): string[] {
  return cells.map(
    cell =>
      `${cell.cell_type}:${(cell.metadata[PROVENANCE_KEY] as { kind: string }).kind}`
  );
}

describe('fencedCodeBlocks', () => {
  it('reads backtick and tilde fences with their language', () => {
    const text = [
      'Intro',
      '```python',
      'x = 1',
      '',
      'y = 2',
      '```',
      'between',
      '~~~ sql extra words',
      'select 1;',
      '~~~',
      '```',
      'no language',
      '```'
    ].join('\n');
    expect(fencedCodeBlocks(text)).toEqual([
      { code: 'x = 1\n\ny = 2', language: 'python' },
      { code: 'select 1;', language: 'sql' },
      { code: 'no language', language: '' }
    ]);
  });

  it('closes only on a fence of the same character at least as long', () => {
    const text = ['````md', '```', 'inner', '~~~~', '````'].join('\n');
    expect(fencedCodeBlocks(text)).toEqual([
      { code: '```\ninner\n~~~~', language: 'md' }
    ]);
  });

  it('strips the opening fence indentation and runs an unclosed fence to the end', () => {
    expect(fencedCodeBlocks('  ```py\n    a\n  b')).toEqual([
      { code: '  a\nb', language: 'py' }
    ]);
  });

  it('ignores inline backticks and text without fences', () => {
    expect(fencedCodeBlocks('use `x` or ``y``')).toEqual([]);
  });
});

describe('latest items', () => {
  const entries = [
    user('use a tool'),
    turn('recorded/R05-use-a-tool-chunk.jsonl', 'first'),
    user('hello'),
    {
      kind: 'turn' as const,
      key: 'second',
      state: {
        items: [
          {
            kind: 'text' as const,
            key: 0,
            text: '```python\na = 1\n```\n```js\nb\n```',
            node: null,
            messageId: null
          }
        ],
        outcome: 'complete' as const,
        error: null,
        cancelMessage: null
      }
    }
  ];

  it('finds the newest extraction, searching back through turns', () => {
    const found = latestItem(entries, isExtraction);
    expect(found?.turn).toBe('first');
    expect(found?.item.extractedType).toBe('demo_fact');
  });

  it('finds the last code block of the newest answer that has one', () => {
    expect(latestCodeBlock(entries)).toEqual({ code: 'b', language: 'js' });
    expect(latestCodeBlock(entries.slice(0, 2))).toBeNull();
  });
});

describe('conversationCells', () => {
  it('exports a tool turn: message, tool summary, extraction with outputs, answer', () => {
    const cells = conversationCells(
      [user('use a tool'), turn('recorded/R05-use-a-tool-chunk.jsonl')],
      OPTIONS
    );
    expect(kinds(cells)).toEqual([
      'markdown:note',
      'markdown:user',
      'markdown:tool',
      'code:extraction',
      'markdown:message'
    ]);
    expect(cells[0].source).toBe(
      '# Agent conversation\n\nThread `thread-9`, exported 2025-05-06T07:08:09.000Z.'
    );
    expect(cells[1].source).toBe('**You**\n\nuse a tool');
    expect(cells[2].source).toContain('**Tool** `demo_lookup` succeeded.');
    expect(cells[2].source).toContain('```json\n{"query":"use a tool"}\n```');
    const extraction = cells[3] as NotebookCell & {
      outputs: { data: Record<string, unknown> }[];
    };
    expect(extraction.source).toContain("demo_fact = json.loads(r'''");
    expect(extraction.outputs[0].data['application/json']).toEqual({
      query: 'use a tool',
      answer: '42'
    });
    expect(extraction.execution_count).toBeNull();
    expect(cells[4].source).toMatch(/^\*\*Agent\*\*\n\nThe demo/);
    for (const cell of cells) {
      expect(cell.metadata[PROVENANCE_KEY]).toMatchObject({
        thread_id: 'thread-9',
        inserted_at: '2025-05-06T07:08:09.000Z'
      });
    }
  });

  it('says where a message stands among its branches', () => {
    const cells = conversationCells(
      [
        { kind: 'user', key: 'edited', text: 'TWO' },
        { kind: 'user', key: 'alone', text: 'and on' }
      ],
      {
        ...OPTIONS,
        branchOf: key =>
          key === 'edited' ? { index: 1, count: 2 } : { index: 0, count: 1 }
      }
    );
    expect(cells.slice(1).map(cell => cell.source)).toEqual([
      '**You** (branch 2 of 2; the panel keeps the others)\n\nTWO',
      '**You**\n\nand on'
    ]);
  });

  it('gives each exported extraction its own variable', () => {
    const cells = conversationCells(
      [
        turn('recorded/R05-use-a-tool-chunk.jsonl', 'a'),
        turn('recorded/R05-use-a-tool-chunk.jsonl', 'b')
      ],
      OPTIONS
    );
    const variables = cells
      .filter(cell => cell.cell_type === 'code')
      .map(
        cell => (cell.metadata[PROVENANCE_KEY] as { variable: string }).variable
      );
    expect(variables).toEqual(['demo_fact', 'demo_fact_2']);
  });

  it('writes extractions as JSON blocks for a kernel that is not Python', () => {
    const cells = conversationCells(
      [turn('recorded/R05-use-a-tool-chunk.jsonl')],
      {
        ...OPTIONS,
        kernelLanguage: 'R'
      }
    );
    expect(kinds(cells)).toContain('markdown:extraction');
    expect(cells.some(cell => cell.cell_type === 'code')).toBe(false);
  });

  it('summarises a review, and notes errors and stops', () => {
    const cells = conversationCells(
      [
        turn('recorded/R09a-hitl-two-actions-chunk.jsonl'),
        turn('chunk-wire/F12a-error-after-tokens-a.jsonl'),
        turn('chunk-wire/F14a-cancelled.jsonl')
      ],
      OPTIONS
    );
    const review = cells.find(cell => kinds([cell])[0] === 'markdown:review');
    expect(review?.source).toBe(
      '**Review requested** for `write_file`, `execute`: not answered.'
    );
    const notes = cells
      .filter(cell => kinds([cell])[0] === 'markdown:note')
      .map(c => c.source);
    expect(notes.some(text => (text as string).startsWith('**Error:** '))).toBe(
      true
    );
    expect(notes.some(text => /^\*.*\*$/.test(text as string))).toBe(true);
  });

  it('leaves reasoning out', () => {
    const cells = conversationCells(
      [turn('chunk-wire/F04-reasoning-a.jsonl')],
      OPTIONS
    );
    expect(kinds(cells)).toEqual(['markdown:note', 'markdown:message']);
  });

  it('cuts long tool arguments and results', () => {
    const cells = conversationCells(
      [turn('recorded/R05-use-a-tool-chunk.jsonl')],
      {
        ...OPTIONS,
        maxToolChars: 10
      }
    );
    const tool = cells.find(cell => kinds([cell])[0] === 'markdown:tool')!;
    expect(tool.source).toContain('```json\n{"query":…\n```');
  });
});
