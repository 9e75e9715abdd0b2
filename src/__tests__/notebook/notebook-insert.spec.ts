/**
 * Insertion into a real JupyterLab notebook model: position, content that
 * survives (outputs, metadata, no execution), and one undo step.
 */
import { NotebookModel } from '@jupyterlab/notebook';

import {
  codeBlockCell,
  extractionCell,
  type NotebookCell
} from '../../notebook/cells';
import {
  codeSources,
  fillNewNotebook,
  insertCells,
  isBlank,
  type IInsertionTarget
} from '../../notebook/insert';
import { boundNames } from '../../notebook/naming';

const CONTEXT = {
  threadId: 'thread-1',
  insertedAt: '2025-01-02T03:04:05.000Z',
  kernelLanguage: 'python'
};

function notebookWith(
  sources: string[],
  active = 0
): IInsertionTarget & { model: NotebookModel } {
  const model = new NotebookModel();
  model.sharedModel.insertCells(
    0,
    sources.map(source => ({ cell_type: 'code', source }))
  );
  model.sharedModel.clearUndoHistory();
  return { model, activeCellIndex: active };
}

function sources(model: NotebookModel): string[] {
  return model.sharedModel.cells.map(cell => cell.getSource());
}

function demoCell(taken = new Set<string>()): NotebookCell {
  return extractionCell(
    {
      toolName: 'demo_lookup',
      extractedType: 'demo_fact',
      data: { query: 'q', answer: '42' }
    },
    taken,
    CONTEXT
  ).cell;
}

describe('insertCells', () => {
  it('inserts below the active cell and makes the new cell active', () => {
    const target = notebookWith(['a = 1', 'b = 2', 'c = 3'], 1);
    const index = insertCells(
      target,
      [codeBlockCell('x = 1', 'python', CONTEXT)],
      'below-active'
    );
    expect(index).toBe(2);
    expect(sources(target.model)).toEqual(['a = 1', 'b = 2', 'x = 1', 'c = 3']);
    expect(target.activeCellIndex).toBe(2);
  });

  it('appends at the end', () => {
    const target = notebookWith(['a = 1', 'b = 2'], 0);
    expect(insertCells(target, [codeBlockCell('x', '', CONTEXT)], 'end')).toBe(
      2
    );
    expect(sources(target.model)).toEqual(['a = 1', 'b = 2', 'x']);
  });

  it('inserts at the top of an empty notebook', () => {
    const target = notebookWith([], 0);
    expect(
      insertCells(target, [codeBlockCell('x', '', CONTEXT)], 'below-active')
    ).toBe(0);
    expect(sources(target.model)).toEqual(['x']);
  });

  it('keeps the outputs, the metadata and the empty execution count', () => {
    const target = notebookWith(['a = 1'], 0);
    const cell = demoCell();
    insertCells(target, [cell], 'below-active');
    const inserted = target.model.cells.get(1);
    const json = inserted.toJSON() as NotebookCell & { outputs: unknown[] };
    expect(json.outputs).toEqual((cell as { outputs: unknown[] }).outputs);
    expect(json.outputs).toHaveLength(1);
    expect(json.execution_count).toBeNull();
    expect(json.metadata).toEqual({
      trusted: true,
      agent_panel: {
        kind: 'extraction',
        thread_id: 'thread-1',
        inserted_at: '2025-01-02T03:04:05.000Z',
        tool_name: 'demo_lookup',
        extracted_type: 'demo_fact',
        variable: 'demo_fact'
      }
    });
    expect(inserted.trusted).toBe(true);
    const saved = target.model.toJSON() as unknown as {
      cells: { outputs: unknown[] }[];
    };
    expect(saved.cells[1].outputs).toEqual(json.outputs);
  });

  it('is undone in one step, and only itself', () => {
    const target = notebookWith(['a = 1', 'b = 2'], 0);
    // A structural edit just before: Yjs would merge it with the insertion.
    target.model.sharedModel.insertCell(2, {
      cell_type: 'code',
      source: 'user edit'
    });
    insertCells(
      target,
      [demoCell(), codeBlockCell('y', '', CONTEXT)],
      'below-active'
    );
    expect(sources(target.model)).toHaveLength(5);

    target.model.sharedModel.undo();
    expect(sources(target.model)).toEqual(['a = 1', 'b = 2', 'user edit']);
    target.model.sharedModel.undo();
    expect(sources(target.model)).toEqual(['a = 1', 'b = 2']);
  });

  it('replaces the active cell, and undo brings it back', () => {
    const target = notebookWith(['a = 1', 'old', 'c = 3'], 1);
    insertCells(
      target,
      [codeBlockCell('new', 'python', CONTEXT)],
      'replace-active'
    );
    expect(sources(target.model)).toEqual(['a = 1', 'new', 'c = 3']);
    expect(target.activeCellIndex).toBe(1);
    target.model.sharedModel.undo();
    expect(sources(target.model)).toEqual(['a = 1', 'old', 'c = 3']);
  });

  it('refuses a read-only notebook and a notebook with no model', () => {
    const target = notebookWith(['a = 1'], 0);
    target.model.readOnly = true;
    expect(() => insertCells(target, [demoCell()], 'end')).toThrow(
      'The notebook is read-only.'
    );
    expect(sources(target.model)).toEqual(['a = 1']);
    expect(() =>
      insertCells({ model: null, activeCellIndex: 0 }, [demoCell()], 'end')
    ).toThrow('The notebook has no model to insert into.');
  });
});

describe('naming against a notebook', () => {
  it('binds a name no code cell uses yet', () => {
    const target = notebookWith([
      'demo_fact = 1',
      'import json as demo_fact_2\nfor demo_fact_3 in x: pass'
    ]);
    const taken = boundNames(codeSources(target.model));
    const first = extractionCell(
      { toolName: 't', extractedType: 'demo_fact', data: 1 },
      taken,
      CONTEXT
    );
    const second = extractionCell(
      { toolName: 't', extractedType: 'demo_fact', data: 2 },
      taken,
      CONTEXT
    );
    expect([first.variable, second.variable]).toEqual([
      'demo_fact_4',
      'demo_fact_5'
    ]);
  });

  it.each([
    ['x = 1', ['x']],
    ['x: int = 1', ['x']],
    ['a, b = 1, 2', ['a', 'b']],
    ['(a, b) = pair', ['a', 'b']],
    ['a = b = 3', ['a', 'b']],
    ['def f(x):\n    y = 1', ['f', 'y']],
    ['async def g(): pass', ['g']],
    ['class C:', ['C']],
    ['for i, j in x:', ['i', 'j']],
    ['import os, numpy.linalg', ['os', 'numpy']],
    ['import pandas as pd', ['pandas', 'pd']],
    ['from m import (a, b as c)', ['a', 'b', 'c']],
    ['with open(p) as fh:', ['fh']],
    ['if (n := 10) > 5:', ['n']],
    ['x == 1', []],
    ['d["k"] = 1', []],
    ['x += 1', []],
    ['print(x)', []]
  ])('%j binds %j', (source, names) => {
    expect([...boundNames([source])].sort()).toEqual([...names].sort());
  });
});

describe('new notebooks', () => {
  it('fills a blank notebook with no undo history', () => {
    const target = notebookWith([''], 0);
    expect(isBlank(target.model)).toBe(true);
    fillNewNotebook(target, [codeBlockCell('a', '', CONTEXT), demoCell()]);
    expect(sources(target.model)[0]).toBe('a');
    expect(sources(target.model)).toHaveLength(2);
    expect(target.model.sharedModel.canUndo()).toBe(false);
    expect(isBlank(target.model)).toBe(false);
  });
});
