/**
 * The notebook commands against real notebook models: what their labels and
 * captions say, when they are enabled, and what executing them inserts.
 */
import * as fs from 'fs';
import * as path from 'path';

import { Notification } from '@jupyterlab/apputils';
import { NotebookModel } from '@jupyterlab/notebook';
import { CommandRegistry } from '@lumino/commands';
import type { IDisposable } from '@lumino/disposable';
import { Signal } from '@lumino/signaling';

import { PROVENANCE_KEY } from '../../notebook/cells';
import {
  addNotebookCommands,
  NotebookCommandIDs as IDs
} from '../../notebook/commands/index';
import type { ConversationEntry } from '../../notebook/conversation';
import type { INotebookHost, IOpenNotebook } from '../../notebook/host';
import {
  DEFAULT_SETTINGS,
  type IPanelSettings
} from '../../contracts/settings';
import type { IAgentPanel } from '../../tokens';
import type { TranscriptItem } from '../../wire/types';
import { reduceFrames } from '../support/wire-harness';
import { panelStrings } from '../../contracts/translation';

interface IFakeNotebook extends IOpenNotebook {
  model: NotebookModel;
  widget: { model: NotebookModel; activeCellIndex: number };
  revealed: number;
  saved: number;
}

function fakeNotebook(
  name: string,
  sources: string[],
  options: { kernelLanguage?: string | null; problem?: string | null } = {}
): IFakeNotebook {
  const model = new NotebookModel();
  model.sharedModel.insertCells(
    0,
    sources.map(source => ({ cell_type: 'code', source }))
  );
  model.sharedModel.clearUndoHistory();
  const notebook: IFakeNotebook = {
    name,
    problem: options.problem ?? null,
    kernelLanguage:
      options.kernelLanguage === undefined ? 'python' : options.kernelLanguage,
    model,
    widget: { model, activeCellIndex: 0 },
    revealed: 0,
    saved: 0,
    reveal: () => {
      notebook.revealed++;
    },
    save: async () => {
      notebook.saved++;
    }
  };
  return notebook;
}

class FakeHost implements INotebookHost {
  notebook: IFakeNotebook | null = null;
  created: IFakeNotebook[] = [];
  readonly changed: Signal<INotebookHost, void> = new Signal(this);

  current(): IFakeNotebook | null {
    return this.notebook;
  }

  async create(): Promise<IFakeNotebook> {
    const notebook = fakeNotebook('Untitled.ipynb', ['']);
    this.created.push(notebook);
    this.notebook = notebook;
    return notebook;
  }
}

function recordedTurn(key: string): ConversationEntry {
  const file = path.resolve(
    __dirname,
    '..',
    '..',
    '..',
    'fixtures',
    'recorded',
    'R05-use-a-tool-chunk.jsonl'
  );
  const lines = fs.readFileSync(file, 'utf-8').split('\n').filter(Boolean);
  return { kind: 'turn', key, state: reduceFrames(lines).state };
}

/** A conversation: "use a tool" (extraction key 2, answer text key 3), then an answer with code. */
function conversation(entries: ConversationEntry[]) {
  return {
    threadId: 'thread-7',
    entries,
    findItem(turnKey: string, itemKey: number): TranscriptItem | undefined {
      const entry = entries.find(e => e.kind === 'turn' && e.key === turnKey);
      return entry?.kind === 'turn'
        ? entry.state.items.find(item => item.key === itemKey)
        : undefined;
    }
  };
}

const CODE_ANSWER: ConversationEntry = {
  kind: 'turn',
  key: 'code-turn',
  state: {
    items: [
      {
        kind: 'text',
        key: 0,
        text: 'Try:\n```python\nprint("hi")\n```',
        node: null,
        messageId: null
      }
    ],
    outcome: 'complete',
    error: null,
    cancelMessage: null
  }
};

describe('notebook commands', () => {
  let commands: CommandRegistry;
  let host: FakeHost;
  let entries: ConversationEntry[];
  let settings: IPanelSettings;
  let settingsChanged: Signal<IAgentPanel, IPanelSettings>;
  let confirmAnswer: boolean;
  let confirmed: string[];
  let hitNode: HTMLElement | undefined;
  let disposable: IDisposable;
  let extraction: { turn: string; item: number };
  let message: { turn: string; item: number };

  beforeEach(() => {
    commands = new CommandRegistry();
    host = new FakeHost();
    entries = [
      { kind: 'user', text: 'use a tool' },
      recordedTurn('tool-turn'),
      CODE_ANSWER
    ];
    settings = { ...DEFAULT_SETTINGS };
    const agentPanel = {
      model: conversation(entries),
      get settings() {
        return settings;
      },
      settingsChanged: null as unknown
    };
    settingsChanged = new Signal<IAgentPanel, IPanelSettings>(
      agentPanel as unknown as IAgentPanel
    );
    agentPanel.settingsChanged = settingsChanged;
    confirmAnswer = true;
    confirmed = [];
    hitNode = undefined;
    disposable = addNotebookCommands({
      commands,
      agentPanel: agentPanel as unknown as IAgentPanel,
      host,
      hitTest: test => {
        for (let node = hitNode; node; node = node.parentElement ?? undefined) {
          if (test(node)) {
            return node;
          }
        }
        return undefined;
      },
      confirm: async (_title, body) => {
        confirmed.push(body);
        return confirmAnswer;
      },
      trans: panelStrings()
    });
    const turn = entries[1] as Extract<ConversationEntry, { kind: 'turn' }>;
    extraction = {
      turn: 'tool-turn',
      item: turn.state.items.find(i => i.kind === 'extraction')!.key
    };
    message = {
      turn: 'tool-turn',
      item: turn.state.items.find(i => i.kind === 'text')!.key
    };
    Notification.dismiss();
  });

  afterEach(() => {
    disposable.dispose();
  });

  const sources = (notebook: IFakeNotebook) =>
    notebook.model.sharedModel.cells.map(cell => cell.getSource());

  describe('insert extraction', () => {
    it('says what it will do in a Python notebook, and inserts below the active cell', async () => {
      host.notebook = fakeNotebook('analysis.ipynb', [
        'a = 1',
        'demo_fact = 0',
        'c = 3'
      ]);
      expect(commands.label(IDs.insertExtraction, extraction)).toBe(
        'Insert into Notebook'
      );
      expect(commands.isEnabled(IDs.insertExtraction, extraction)).toBe(true);
      expect(commands.caption(IDs.insertExtraction, extraction)).toBe(
        'Insert demo_fact as a code cell below the active cell of analysis.ipynb, showing the data without running anything.'
      );

      await commands.execute(IDs.insertExtraction, extraction);

      const notebook = host.notebook;
      expect(sources(notebook)[1]).toContain("demo_fact_2 = json.loads(r'''");
      expect(notebook.widget.activeCellIndex).toBe(1);
      const cell = notebook.model.cells.get(1).toJSON() as {
        outputs: unknown[];
        execution_count: null;
      };
      expect(cell.outputs).toHaveLength(1);
      expect(cell.execution_count).toBeNull();
      expect(
        notebook.model.cells.get(1).getMetadata(PROVENANCE_KEY)
      ).toMatchObject({
        kind: 'extraction',
        thread_id: 'thread-7',
        tool_name: 'demo_lookup',
        extracted_type: 'demo_fact',
        variable: 'demo_fact_2'
      });
      expect(notebook.revealed).toBe(1);
    });

    it('follows the insert position setting', async () => {
      host.notebook = fakeNotebook('a.ipynb', ['a', 'b', 'c']);
      settings = { ...settings, insertPosition: 'end' };
      expect(commands.caption(IDs.insertExtraction, extraction)).toContain(
        'at the end of a.ipynb'
      );
      await commands.execute(IDs.insertExtraction, extraction);
      expect(sources(host.notebook)[3]).toContain('demo_fact = json.loads');
    });

    it('inserts JSON in a Markdown cell, and says so, when the kernel is not Python', async () => {
      host.notebook = fakeNotebook('stats.ipynb', ['x <- 1'], {
        kernelLanguage: 'R'
      });
      expect(commands.caption(IDs.insertExtraction, extraction)).toBe(
        'stats.ipynb runs R, not Python: insert demo_fact as JSON in a Markdown cell below the active cell of stats.ipynb.'
      );
      await commands.execute(IDs.insertExtraction, extraction);
      const cell = host.notebook.model.sharedModel.cells[1];
      expect(cell.cell_type).toBe('markdown');
      expect(cell.getSource()).toContain('```json\n{\n  "query": "use a tool"');
      expect(Notification.manager.notifications.map(n => n.message)).toContain(
        'stats.ipynb runs R, not Python, so demo_fact was inserted as JSON in a Markdown cell.'
      );
    });

    it('offers to create a notebook when none is open, and fills its blank cell', async () => {
      expect(commands.isEnabled(IDs.insertExtraction, extraction)).toBe(true);
      expect(commands.caption(IDs.insertExtraction, extraction)).toBe(
        'No notebook is open: you will be asked to create one for demo_fact.'
      );
      await commands.execute(IDs.insertExtraction, extraction);
      expect(confirmed).toEqual([
        'Create a new notebook and insert demo_fact there?'
      ]);
      expect(host.created).toHaveLength(1);
      const created = host.created[0];
      expect(sources(created)).toHaveLength(1);
      expect(sources(created)[0]).toContain('demo_fact = json.loads');
    });

    it('creates nothing when the offer is declined', async () => {
      confirmAnswer = false;
      await commands.execute(IDs.insertExtraction, extraction);
      expect(host.created).toHaveLength(0);
    });

    it('is disabled, with the reason, when the item is gone or the notebook cannot take it', () => {
      host.notebook = fakeNotebook('a.ipynb', ['']);
      const gone = { turn: 'tool-turn', item: 999 };
      expect(commands.isEnabled(IDs.insertExtraction, gone)).toBe(false);
      expect(commands.caption(IDs.insertExtraction, gone)).toBe(
        'This item is no longer in the conversation.'
      );
      expect(commands.isEnabled(IDs.insertExtraction, message)).toBe(false);
      host.notebook = fakeNotebook('a.ipynb', [''], {
        problem: 'a.ipynb is read-only.'
      });
      expect(commands.isEnabled(IDs.insertExtraction, extraction)).toBe(false);
      expect(commands.caption(IDs.insertExtraction, extraction)).toBe(
        'a.ipynb is read-only.'
      );
    });

    it('takes the latest extraction from the palette, and the clicked card from the context menu', async () => {
      host.notebook = fakeNotebook('a.ipynb', ['']);
      expect(commands.label(IDs.insertExtraction)).toBe(
        'Insert Latest Extracted Data into Notebook'
      );
      expect(commands.isEnabled(IDs.insertExtraction)).toBe(true);

      const fromMenu = { fromContextMenu: true };
      expect(commands.isEnabled(IDs.insertExtraction, fromMenu)).toBe(false);
      const turnNode = document.createElement('div');
      turnNode.dataset.turn = extraction.turn;
      const card = document.createElement('div');
      card.dataset.item = String(extraction.item);
      const inner = document.createElement('span');
      card.appendChild(inner);
      turnNode.appendChild(card);
      hitNode = inner;
      expect(commands.isEnabled(IDs.insertExtraction, fromMenu)).toBe(true);
      await commands.execute(IDs.insertExtraction, fromMenu);
      expect(sources(host.notebook)[1]).toContain('demo_fact = json.loads');
    });
  });

  describe('code blocks', () => {
    const code = { code: 'print("hi")\n', language: 'python' };

    it('inserts below, or replaces the active cell (undone in one step)', async () => {
      host.notebook = fakeNotebook('a.ipynb', ['a', 'b'], {
        kernelLanguage: 'python'
      });
      expect(commands.label(IDs.insertCode, code)).toBe('Insert Below');
      expect(commands.caption(IDs.insertCode, code)).toBe(
        'Put this code in a code cell below the active cell of a.ipynb.'
      );
      await commands.execute(IDs.insertCode, code);
      expect(sources(host.notebook)).toEqual(['a', 'print("hi")', 'b']);

      expect(commands.caption(IDs.replaceActiveCell, code)).toBe(
        'Put this code in a code cell in place of the active cell of a.ipynb.'
      );
      host.notebook.widget.activeCellIndex = 2;
      await commands.execute(IDs.replaceActiveCell, {
        code: 'c',
        language: ''
      });
      expect(sources(host.notebook)).toEqual(['a', 'print("hi")', 'c']);
      host.notebook.model.sharedModel.undo();
      expect(sources(host.notebook)).toEqual(['a', 'print("hi")', 'b']);
    });

    it('puts code in another language in a Markdown cell', async () => {
      host.notebook = fakeNotebook('a.ipynb', ['a']);
      const sql = { code: 'select 1;', language: 'sql' };
      expect(commands.caption(IDs.insertCode, sql)).toBe(
        'Put this sql code in a Markdown cell below the active cell of a.ipynb (the kernel runs python).'
      );
      await commands.execute(IDs.insertCode, sql);
      const cell = host.notebook.model.sharedModel.cells[1];
      expect(cell.cell_type).toBe('markdown');
      expect(cell.getSource()).toBe('```sql\nselect 1;\n```');
    });

    it('cannot replace a cell when no notebook is open', () => {
      expect(commands.isEnabled(IDs.replaceActiveCell, code)).toBe(false);
      expect(commands.caption(IDs.replaceActiveCell, code)).toBe(
        'Open a notebook first.'
      );
      expect(commands.isEnabled(IDs.insertCode, code)).toBe(true);
    });

    it('reads the right-clicked code block, or the latest one from the palette', async () => {
      host.notebook = fakeNotebook('a.ipynb', ['a']);
      const pre = document.createElement('pre');
      const codeNode = document.createElement('code');
      codeNode.className = 'language-python';
      codeNode.appendChild(document.createTextNode('x = 42\n'));
      pre.appendChild(codeNode);
      hitNode = codeNode;
      await commands.execute(IDs.insertCode, { fromContextMenu: true });
      expect(sources(host.notebook)[1]).toBe('x = 42');

      expect(commands.label(IDs.insertCode)).toBe(
        'Insert Latest Code Block into Notebook'
      );
      await commands.execute(IDs.insertCode);
      expect(sources(host.notebook)[2]).toBe('print("hi")');
    });
  });

  describe('answers as Markdown', () => {
    it('inserts the answer text, or the latest answer from the palette', async () => {
      host.notebook = fakeNotebook('a.ipynb', ['a']);
      expect(commands.label(IDs.insertMessage, message)).toBe(
        'Insert as Markdown'
      );
      await commands.execute(IDs.insertMessage, message);
      const cell = host.notebook.model.sharedModel.cells[1];
      expect(cell.cell_type).toBe('markdown');
      expect(cell.getSource()).toMatch(/^The demo/);
      expect(cell.getMetadata(PROVENANCE_KEY)).toMatchObject({
        kind: 'message'
      });

      await commands.execute(IDs.insertMessage);
      expect(host.notebook.model.sharedModel.cells[2].getSource()).toBe(
        'Try:\n```python\nprint("hi")\n```'
      );
    });
  });

  describe('export', () => {
    it('creates a saved notebook whose cells follow the conversation', async () => {
      expect(commands.isEnabled(IDs.exportConversation)).toBe(true);
      await commands.execute(IDs.exportConversation);
      expect(host.created).toHaveLength(1);
      const created = host.created[0];
      const kinds = created.model.sharedModel.cells.map(
        cell =>
          `${cell.cell_type}:${(cell.getMetadata(PROVENANCE_KEY) as { kind: string }).kind}`
      );
      expect(kinds).toEqual([
        'markdown:note',
        'markdown:user',
        'markdown:tool',
        'code:extraction',
        'markdown:message',
        'markdown:message'
      ]);
      expect(created.model.sharedModel.canUndo()).toBe(false);
      expect(created.saved).toBe(1);
      expect(created.revealed).toBe(1);
    });

    it('is disabled for an empty conversation', () => {
      entries.splice(0);
      expect(commands.isEnabled(IDs.exportConversation)).toBe(false);
      expect(commands.caption(IDs.exportConversation)).toBe(
        'The conversation is empty.'
      );
    });
  });

  it('tells the buttons to refresh when the notebook or the settings change', () => {
    const changed: string[] = [];
    commands.commandChanged.connect((_, args) => {
      changed.push(args.id!);
    });
    host.changed.emit();
    settingsChanged.emit(settings);
    const ids = Object.values(IDs).sort();
    expect(changed.sort()).toEqual([...ids, ...ids].sort());
  });

  it('removes its commands and listeners when disposed', () => {
    disposable.dispose();
    expect(commands.hasCommand(IDs.insertExtraction)).toBe(false);
    const changed: unknown[] = [];
    commands.commandChanged.connect((_, args) => changed.push(args));
    host.changed.emit();
    expect(changed).toEqual([]);
  });
});
