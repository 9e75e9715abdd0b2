import type { TranslationBundle } from '@jupyterlab/translation';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { DisposableDelegate, type IDisposable } from '@lumino/disposable';
import {
  planMarkdown,
  readTodos,
  TODOS_TYPE,
  type ITodo
} from '../../model/conversation/plan';
import type { IAgentPanel } from '../../tokens';
import { type ICellContext, markdownCell } from '../cells';
import { type IInsertion, NotebookInserter } from '../inserter';
import { INSERT_PLAN_COMMAND, type INotebookCommandsOptions } from './common';

/** The to-dos a command acts on, and the extraction they come from. */
interface IPlanSubject {
  todos: ITodo[];
  toolName: string;
}

/** The command's arguments: a `todos` extraction, or none for the latest plan. */
const PLAN_ARGS = {
  type: 'object',
  properties: {
    turn: { type: 'string', description: 'Key of the turn entry' },
    item: {
      type: 'integer',
      description: 'Key of the todos extraction in the turn'
    }
  }
} as const;

/**
 * "Insert the plan into the notebook": the agent's to-do list as a Markdown
 * checklist (`- [x] done`, `- [ ] to do`). With `{turn, item}` it inserts
 * that `todos` extraction; without (the palette), the latest plan.
 */
export function addPlanCommand(options: INotebookCommandsOptions): IDisposable {
  const { commands, agentPanel, host, trans } = options;
  const inserter = new NotebookInserter(options);
  const subjectOf = (args: ReadonlyPartialJSONObject) =>
    planSubject(agentPanel, trans, args);

  const problemOf = (args: ReadonlyPartialJSONObject): string | null => {
    const subject = subjectOf(args);
    if (typeof subject === 'string') {
      return subject;
    }
    const notebook = host.current();
    return notebook ? notebook.problem : null;
  };

  const notices = notifyOnPlanChanges(options);
  const command = commands.addCommand(INSERT_PLAN_COMMAND, {
    label: args =>
      'turn' in args
        ? trans.__('Insert into Notebook')
        : trans.__('Insert Agent Plan into Notebook'),
    caption: args =>
      inserter.caption(
        problemOf(args),
        inserter.position,
        trans.__('the plan'),
        (_, where) =>
          trans.__('Put the plan in a Markdown cell %1, as a checklist.', where)
      ),
    isEnabled: args => problemOf(args) === null,
    execute: args => {
      const subject = subjectOf(args);
      if (typeof subject === 'string') {
        return;
      }
      return inserter.insert(
        notebook =>
          planInsertion(subject, inserter.cellContext(notebook), trans),
        inserter.position,
        trans.__('Create a new notebook and insert the plan there?')
      );
    },
    describedBy: { args: PLAN_ARGS }
  });

  return new DisposableDelegate(() => {
    command.dispose();
    notices.dispose();
  });
}

/** The to-dos `args` name, or why there are none to insert. */
function planSubject(
  agentPanel: IAgentPanel,
  trans: TranslationBundle,
  args: ReadonlyPartialJSONObject
): IPlanSubject | string {
  if (typeof args.turn === 'string' && typeof args.item === 'number') {
    const card = agentPanel.model.findItem(args.turn, args.item);
    if (card?.kind !== 'extraction' || card.extractedType !== TODOS_TYPE) {
      return trans.__('That plan is no longer in the conversation.');
    }
    const read = readTodos(card.data);
    return read
      ? { todos: read.todos, toolName: card.toolName }
      : trans.__('That plan is not a list of to-dos.');
  }
  const plan = agentPanel.plan.plan;
  return plan
    ? { todos: plan.items, toolName: plan.source.toolName }
    : trans.__('The agent has not made a plan in this conversation.');
}

/**
 * Tell the command's views when it changes: a plan appears or goes, or the
 * current notebook changes.
 */
function notifyOnPlanChanges({
  commands,
  agentPanel,
  host
}: INotebookCommandsOptions): IDisposable {
  const notify = () => commands.notifyCommandChanged(INSERT_PLAN_COMMAND);
  // Only having a plan or not changes the command; each toolbar showing it
  // recomputes its items on a notice, so a new version of the plan sends none.
  let hadPlan = agentPanel.plan.plan !== null;
  const onPlan = () => {
    const hasPlan = agentPanel.plan.plan !== null;
    if (hasPlan !== hadPlan) {
      hadPlan = hasPlan;
      notify();
    }
  };
  agentPanel.plan.changed.connect(onPlan);
  host.changed.connect(notify);
  return new DisposableDelegate(() => {
    agentPanel.plan.changed.disconnect(onPlan);
    host.changed.disconnect(notify);
  });
}

/** The plan as one Markdown checklist cell, with how much of it is done. */
function planInsertion(
  subject: IPlanSubject,
  { threadId, insertedAt }: ICellContext,
  trans: TranslationBundle
): IInsertion {
  const done = subject.todos.filter(todo => todo.status === 'completed').length;
  const source = [
    trans.__('**Agent plan** (%1 of %2 done)', done, subject.todos.length),
    planMarkdown(subject.todos, trans.__('in progress'))
  ].join('\n\n');
  return {
    cells: [
      markdownCell(source, {
        kind: 'extraction',
        thread_id: threadId,
        inserted_at: insertedAt,
        tool_name: subject.toolName,
        extracted_type: TODOS_TYPE
      })
    ]
  };
}
