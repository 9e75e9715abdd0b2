/**
 * The workspace context a message takes: capture from real notebook and
 * editor models (the shell and trackers are fakes), the cap on long
 * selections, the wire fields, and the per-message choices.
 */
import '../support/clipboard-shim';
import * as fs from 'fs';
import * as path from 'path';
import { CodeEditor } from '@jupyterlab/codeeditor';
import { NotebookModel } from '@jupyterlab/notebook';
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';
import { capSelection, SELECTION_LIMIT } from '../../context/capped-text';
import {
  cellSelection,
  editorSelection,
  type IEditorRange,
  type IWorkspaceSnapshot,
  offsetAt,
  placeOfMetadata,
  selectionMetadata,
  turnContextOf
} from '../../context/workspace';
import { readContextDefaults } from '../../contracts/settings';
import { ComposerContext } from '../../model/conversation/composer-context';
import {
  type IEditorModelPort,
  WorkspaceContextSource
} from '../../notebook/workspace-context';

const range = (
  startLine: number,
  startColumn: number,
  endLine: number,
  endColumn: number
): IEditorRange => ({
  start: { line: startLine, column: startColumn },
  end: { line: endLine, column: endColumn }
});

const CURSOR = range(0, 0, 0, 0);
// Tab titles, as the shell shows them.
const NOTEBOOK_TITLE = 'analysis.ipynb';
const LAUNCHER = 'Launcher';

describe('capturing a selection', () => {
  const source = 'import os\nx = 1\ny = x + 1\n';

  it('finds offsets by line and column, clamped to the text', () => {
    expect(offsetAt(source, { line: 1, column: 2 })).toBe(12);
    expect(offsetAt(source, { line: 1, column: 99 })).toBe(15);
    expect(offsetAt(source, { line: 9, column: 0 })).toBe(source.length);
  });

  it('takes the selected text of a cell, whichever way it was selected', () => {
    const forward = cellSelection(source, range(1, 0, 2, 5), 2);
    const backward = cellSelection(source, range(2, 5, 1, 0), 2);
    expect(forward).toEqual({
      text: 'x = 1\ny = x',
      place: { kind: 'cell', index: 2 },
      wholeCell: false
    });
    expect(backward).toEqual(forward);
  });

  it('takes the whole active cell when nothing is selected, nothing when it is blank', () => {
    expect(cellSelection(source, CURSOR, 0)).toEqual({
      text: source,
      place: { kind: 'cell', index: 0 },
      wholeCell: true
    });
    expect(cellSelection(source, null, 0)?.wholeCell).toBe(true);
    expect(cellSelection('  \n', CURSOR, 0)).toBeNull();
  });

  it('gives an editor selection its 1-based lines; a selection ending at a line start leaves that line out', () => {
    expect(editorSelection(source, range(1, 0, 1, 5))?.place).toEqual({
      kind: 'lines',
      start: 2,
      end: 2
    });
    expect(editorSelection(source, range(2, 3, 0, 1))?.place).toEqual({
      kind: 'lines',
      start: 1,
      end: 3
    });
    expect(editorSelection(source, range(0, 0, 2, 0))).toEqual({
      text: 'import os\nx = 1\n',
      place: { kind: 'lines', start: 1, end: 2 },
      wholeCell: false
    });
    expect(editorSelection(source, CURSOR)).toBeNull();
  });

  it('writes and reads the selection_metadata the server renders (context.py)', () => {
    expect(selectionMetadata({ kind: 'cell', index: 2 })).toBe('cell_2');
    expect(selectionMetadata({ kind: 'lines', start: 4, end: 4 })).toBe(
      'line_4'
    );
    expect(selectionMetadata({ kind: 'lines', start: 4, end: 9 })).toBe(
      'lines_4-9'
    );
    for (const metadata of ['cell_2', 'line_4', 'lines_4-9']) {
      expect(selectionMetadata(placeOfMetadata(metadata)!)).toBe(metadata);
    }
    expect(placeOfMetadata('somewhere')).toBeNull();
    expect(placeOfMetadata(undefined)).toBeNull();
  });
});

describe('capping a long selection', () => {
  it('sends a selection of up to 2000 characters unchanged', () => {
    const text = 'a'.repeat(SELECTION_LIMIT);
    expect(capSelection(text)).toEqual({
      text,
      kept: SELECTION_LIMIT,
      total: SELECTION_LIMIT
    });
  });

  it('cuts a longer one so that it fits the limit with the note the server would add', () => {
    const text = 'a'.repeat(5321);
    const capped = capSelection(text);
    // test_context.py sends this very text through the server.
    expect(capped).toEqual({
      text: 'a'.repeat(1964) + '\n… (truncated, 3357 more characters)',
      kept: 1964,
      total: 5321
    });
    expect(capped.text).toHaveLength(SELECTION_LIMIT);
  });

  it('never splits a character made of two UTF-16 units', () => {
    const text = '😀'.repeat(1500);
    const capped = capSelection(text);
    const kept = capped.text.slice(0, capped.kept);
    expect(kept).toBe('😀'.repeat(kept.length / 2));
    expect(capped.text.length).toBeLessThanOrEqual(SELECTION_LIMIT);
  });
});

describe('the wire fields', () => {
  const snapshot: IWorkspaceSnapshot = {
    directory: 'notes',
    document: {
      path: 'notes/analysis.ipynb',
      title: NOTEBOOK_TITLE,
      kind: 'notebook'
    },
    selection: {
      text: 'x = 1',
      place: { kind: 'cell', index: 2 },
      wholeCell: false
    }
  };

  it('fills the four LangStage fields for what is included', () => {
    expect(turnContextOf(snapshot, () => true)).toEqual({
      current_directory: 'notes',
      focused_widget: 'notes/analysis.ipynb',
      selected_text: 'x = 1',
      selection_metadata: 'cell_2'
    });
    expect(turnContextOf(snapshot, kind => kind !== 'selection')).toEqual({
      current_directory: 'notes',
      focused_widget: 'notes/analysis.ipynb'
    });
    expect(turnContextOf(snapshot, () => false)).toBeNull();
  });

  it('says nothing for the root folder, and names a non-document by its title', () => {
    expect(
      turnContextOf(
        {
          directory: '',
          document: { path: null, title: LAUNCHER, kind: 'other' },
          selection: null
        },
        () => true
      )
    ).toEqual({ focused_widget: 'Launcher' });
  });

  it('are what the transports are tested with (fixtures/agui/context-entries.json)', () => {
    const fixture = JSON.parse(
      fs.readFileSync(
        path.resolve(__dirname, '../../../fixtures/agui/context-entries.json'),
        'utf-8'
      )
    );
    expect(fixture.turnContext).toEqual(turnContextOf(snapshot, () => true));
  });

  it('caps the selected text it sends', () => {
    const long = {
      ...snapshot,
      selection: { ...snapshot.selection!, text: 'b'.repeat(3000) }
    };
    const context = turnContextOf(long, () => true)!;
    expect(context.selected_text!.length).toBeLessThanOrEqual(SELECTION_LIMIT);
    expect(context.selected_text).toContain('more characters)');
  });
});

describe('the context setting', () => {
  it('reads booleans, keeps defaults for absent kinds and reports wrong values', () => {
    const problems: { field: string; message: string }[] = [];
    expect(
      readContextDefaults({ selection: false, document: 'yes' }, problems)
    ).toEqual({
      directory: true,
      document: true,
      selection: false
    });
    expect(problems).toEqual([
      {
        field: 'context.document',
        message: 'must be true or false (got "yes"); using true'
      }
    ]);
    expect(readContextDefaults(undefined, problems).selection).toBe(true);
    readContextDefaults([], problems);
    expect(problems[1].field).toBe('context');
  });
});

/** A notebook widget as the shell holds it, over a real notebook model. */
function notebookWidget(path: string, sources: string[]) {
  const model = new NotebookModel();
  model.sharedModel.insertCells(
    0,
    sources.map(source => ({ cell_type: 'code', source }))
  );
  let selection: IEditorRange = CURSOR;
  const content = {
    activeCellIndex: 0,
    get activeCell() {
      const cell = model.cells.get(this.activeCellIndex);
      return {
        model: cell as unknown as IEditorModelPort,
        editor: { model: cell, getSelection: () => selection }
      };
    }
  };
  const widget = Object.assign(new Widget(), {
    context: { path },
    content
  });
  widget.title.label = path.split('/').pop()!;
  return {
    widget,
    model,
    content,
    select(next: IEditorRange) {
      selection = next;
      // What CodeMirror does while the editor has focus.
      model.cells
        .get(content.activeCellIndex)
        .selections.set('editor', [
          { uuid: 'editor', start: { ...next.start }, end: { ...next.end } }
        ]);
    }
  };
}

/** A file editor widget over a real editor model. */
function editorWidget(path: string, source: string) {
  const model = new CodeEditor.Model();
  model.sharedModel.setSource(source);
  let selection: IEditorRange = CURSOR;
  const widget = Object.assign(new Widget(), {
    context: { path },
    content: { editor: { model, getSelection: () => selection } }
  });
  widget.title.label = path;
  return {
    widget,
    select(next: IEditorRange) {
      selection = next;
      model.selections.set('editor', [
        { uuid: 'editor', start: { ...next.start }, end: { ...next.end } }
      ]);
    }
  };
}

function workspace() {
  const shell = {
    currentWidget: null as Widget | null,
    currentChanged: new Signal<object, void>({})
  };
  const notebooks = new Set<Widget>();
  const notebookTracker = {
    has: (widget: Widget) => notebooks.has(widget),
    activeCellChanged: new Signal<object, void>({})
  };
  const fileBrowser = {
    model: { path: 'notes', pathChanged: new Signal<object, void>({}) }
  };
  const source = new WorkspaceContextSource({
    shell,
    notebooks: notebookTracker,
    fileBrowser
  });
  let changes = 0;
  source.changed.connect(() => changes++);
  return {
    source,
    notebooks,
    notebookTracker,
    fileBrowser,
    changes: () => changes,
    focus(widget: Widget | null) {
      shell.currentWidget = widget;
      shell.currentChanged.emit();
    }
  };
}

describe('following the workspace', () => {
  it('reads the folder, the focused notebook and its active cell', () => {
    const ws = workspace();
    const nb = notebookWidget('notes/analysis.ipynb', [
      'import os',
      'x = 1\ny = 2'
    ]);
    ws.notebooks.add(nb.widget);
    ws.focus(nb.widget);
    nb.content.activeCellIndex = 1;
    ws.notebookTracker.activeCellChanged.emit();

    expect(ws.source.snapshot()).toEqual({
      directory: 'notes',
      document: {
        path: 'notes/analysis.ipynb',
        title: NOTEBOOK_TITLE,
        kind: 'notebook'
      },
      selection: {
        text: 'x = 1\ny = 2',
        place: { kind: 'cell', index: 1 },
        wholeCell: true
      }
    });
    ws.source.dispose();
  });

  it('says when the selection in the active cell changes, and reads it', () => {
    const ws = workspace();
    const nb = notebookWidget('a.ipynb', ['alpha beta gamma']);
    ws.notebooks.add(nb.widget);
    ws.focus(nb.widget);
    const before = ws.changes();
    nb.select(range(0, 6, 0, 10));
    expect(ws.changes()).toBe(before + 1);
    expect(ws.source.snapshot().selection).toEqual({
      text: 'beta',
      place: { kind: 'cell', index: 0 },
      wholeCell: false
    });
    ws.source.dispose();
  });

  it('follows the file editor in focus, then stops following it', () => {
    const ws = workspace();
    const file = editorWidget('src/util.py', 'a\nb\nc\nd\n');
    ws.focus(file.widget);
    file.select(range(1, 0, 2, 1));
    expect(ws.source.snapshot()).toMatchObject({
      document: { path: 'src/util.py', kind: 'file' },
      selection: { text: 'b\nc', place: { kind: 'lines', start: 2, end: 3 } }
    });
    const launcher = new Widget();
    launcher.title.label = LAUNCHER;
    ws.focus(launcher);
    const before = ws.changes();
    file.select(range(0, 0, 0, 1));
    expect(ws.changes()).toBe(before);
    expect(ws.source.snapshot()).toEqual({
      directory: 'notes',
      document: { path: null, title: LAUNCHER, kind: 'other' },
      selection: null
    });
    ws.source.dispose();
  });

  it('says when the folder changes, and nothing once disposed', () => {
    const ws = workspace();
    ws.fileBrowser.model.path = 'data';
    ws.fileBrowser.model.pathChanged.emit();
    expect(ws.changes()).toBe(1);
    expect(ws.source.snapshot().directory).toBe('data');
    ws.source.dispose();
    ws.fileBrowser.model.pathChanged.emit();
    ws.focus(null);
    expect(ws.changes()).toBe(1);
  });
});

describe('the context of the next message', () => {
  function composerContext() {
    const ws = workspace();
    const nb = notebookWidget('notes/a.ipynb', ['x = 1']);
    ws.notebooks.add(nb.widget);
    ws.focus(nb.widget);
    const context = new ComposerContext();
    context.setSource(ws.source);
    return { ws, nb, context };
  }

  it('takes every kind by default and follows the workspace', () => {
    const { context, nb } = composerContext();
    let changes = 0;
    context.changed.connect(() => changes++);
    nb.select(range(0, 4, 0, 5));
    expect(changes).toBe(1);
    expect(context.snapshot.selection?.text).toBe('1');
    expect(context.current()).toEqual({
      current_directory: 'notes',
      focused_widget: 'notes/a.ipynb',
      selected_text: '1',
      selection_metadata: 'cell_0'
    });
    context.dispose();
  });

  it('leaves out a removed kind for one message, then goes back to the defaults', () => {
    const { context } = composerContext();
    context.defaults = { directory: false, document: true, selection: true };
    context.setIncluded('selection', false);
    context.setIncluded('directory', true);
    expect(context.current()).toEqual({
      current_directory: 'notes',
      focused_widget: 'notes/a.ipynb'
    });
    context.reset();
    expect(context.isIncluded('directory')).toBe(false);
    expect(context.current()).toEqual({
      focused_widget: 'notes/a.ipynb',
      selected_text: 'x = 1',
      selection_metadata: 'cell_0'
    });
    context.dispose();
  });

  it('sends nothing without a source, and disposes the source it replaces', () => {
    const { context, ws, nb } = composerContext();
    context.setSource(null);
    expect(ws.source.isDisposed).toBe(true);
    expect(context.current()).toBeNull();
    let changes = 0;
    context.changed.connect(() => changes++);
    nb.select(range(0, 0, 0, 1));
    expect(changes).toBe(0);
    context.dispose();
  });

  it('disposes its source with itself', () => {
    const { context, ws } = composerContext();
    context.dispose();
    expect(ws.source.isDisposed).toBe(true);
  });
});
