/**
 * "Insert the plan into the notebook": the agent's to-do list as a
 * Markdown checklist, from the pinned plan or a given extraction.
 */
import '../support/clipboard-shim';
import { NotebookModel } from '@jupyterlab/notebook';
import { CommandRegistry } from '@lumino/commands';
import { Signal } from '@lumino/signaling';
import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { PlanTracker } from '../../model/conversation/plan';
import { PROVENANCE_KEY } from '../../notebook/cells';
import type { INotebookHost, IOpenNotebook } from '../../notebook/host';
import { INSERT_PLAN_COMMAND as INSERT_PLAN } from '../../notebook/commands/index';
import { addPlanCommand } from '../../notebook/commands/plan';
import { DEFAULT_SETTINGS } from '../../contracts/settings';
import type { IAgentPanel } from '../../tokens';
import {
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';

function openNotebook(): IOpenNotebook & { model: NotebookModel } {
  const model = new NotebookModel();
  model.sharedModel.insertCells(0, [{ cell_type: 'code', source: 'a = 1' }]);
  return {
    name: 'analysis.ipynb',
    problem: null,
    kernelLanguage: 'python',
    model,
    widget: { model, activeCellIndex: 0 },
    reveal: () => undefined,
    save: async () => undefined
  } as unknown as IOpenNotebook & { model: NotebookModel };
}

function setup() {
  const transport = new FakeTransport();
  const model = new ChatModel('thread-9', trans);
  model.transport = transport;
  const plan = new PlanTracker(model);
  const commands = new CommandRegistry();
  const notebook = openNotebook();
  const host: INotebookHost = {
    changed: new Signal<INotebookHost, void>({} as INotebookHost),
    current: () => notebook,
    create: async () => notebook
  };
  const agentPanel = {
    model,
    plan,
    settings: DEFAULT_SETTINGS,
    settingsChanged: new Signal({})
  } as unknown as IAgentPanel;
  const command = addPlanCommand({
    commands,
    agentPanel,
    host,
    hitTest: () => undefined,
    confirm: async () => true,
    trans
  });
  const todos = (data: unknown) =>
    transport.lastTurn.sink.frame(
      frame({
        status: 'streaming',
        extraction: { tool_name: 'write_todos', extracted_type: 'todos', data }
      })
    );
  const disposable = {
    dispose: () => {
      command.dispose();
      plan.dispose();
    }
  };
  return { model, commands, notebook, todos, transport, disposable };
}

const afterTest: { dispose(): void }[] = [];
afterEach(() => afterTest.splice(0).forEach(d => d.dispose()));

describe('insert plan', () => {
  it('is disabled, saying why, until the agent makes a plan', () => {
    const { commands, disposable } = setup();
    expect(commands.isEnabled(INSERT_PLAN, {})).toBe(false);
    expect(commands.caption(INSERT_PLAN, {})).toBe(
      'The agent has not made a plan in this conversation.'
    );
    disposable.dispose();
    expect(commands.hasCommand(INSERT_PLAN)).toBe(false);
  });

  it('inserts the latest plan as a Markdown checklist below the active cell', async () => {
    const { model, commands, notebook, todos, disposable } = setup();
    afterTest.push(disposable);
    let notified = 0;
    commands.commandChanged.connect(() => notified++);
    model.send('plan it');
    todos([{ content: 'Read the notebook', status: 'in_progress' }]);
    todos([
      { content: 'Read the notebook', status: 'completed' },
      { content: 'Fix the failing cell', status: 'in_progress' },
      { content: 'Write a summary', status: 'pending' }
    ]);
    // Once, when it became enabled: a new version of the plan changes nothing of the command.
    expect(notified).toBe(1);
    expect(commands.label(INSERT_PLAN, {})).toBe(
      'Insert Agent Plan into Notebook'
    );
    expect(commands.caption(INSERT_PLAN, {})).toBe(
      'Put the plan in a Markdown cell below the active cell of analysis.ipynb, as a checklist.'
    );

    await commands.execute(INSERT_PLAN, {});

    const cell = notebook.model.cells.get(1);
    expect(cell.type).toBe('markdown');
    expect(cell.sharedModel.getSource()).toBe(
      '**Agent plan** (1 of 3 done)\n\n' +
        '- [x] Read the notebook\n' +
        '- [ ] Fix the failing cell *(in progress)*\n' +
        '- [ ] Write a summary'
    );
    expect(cell.getMetadata(PROVENANCE_KEY)).toMatchObject({
      kind: 'extraction',
      thread_id: 'thread-9',
      tool_name: 'write_todos',
      extracted_type: 'todos'
    });
  });

  it('inserts the list of a given extraction, the earlier one included', async () => {
    const { model, commands, notebook, todos, disposable } = setup();
    afterTest.push(disposable);
    model.send('plan it');
    todos([{ content: 'Read the notebook', status: 'in_progress' }]);
    todos([{ content: 'Read the notebook', status: 'completed' }]);
    const entry = model.entries[1] as ITurnEntry;
    const first = { turn: entry.key, item: entry.state.items[0].key };
    expect(commands.label(INSERT_PLAN, first)).toBe('Insert into Notebook');
    await commands.execute(INSERT_PLAN, first);
    expect(notebook.model.cells.get(1).sharedModel.getSource()).toBe(
      '**Agent plan** (0 of 1 done)\n\n- [ ] Read the notebook *(in progress)*'
    );
    expect(commands.caption(INSERT_PLAN, { turn: entry.key, item: 7 })).toBe(
      'That plan is no longer in the conversation.'
    );
  });

  it('tells the toolbars when it is enabled or disabled, not on each new version of the plan', () => {
    const { model, commands, todos, transport, disposable } = setup();
    afterTest.push(disposable);
    const enabled: boolean[] = [];
    commands.commandChanged.connect(() =>
      enabled.push(commands.isEnabled(INSERT_PLAN, {}))
    );
    model.send('plan it');
    for (const status of ['pending', 'in_progress', 'completed']) {
      todos([{ content: 'Read the notebook', status }]);
    }
    transport.lastTurn.sink.frame(complete());
    model.restore({ threadId: 'thread-10', entries: [] });

    expect(enabled).toEqual([true, false]);
  });
});
