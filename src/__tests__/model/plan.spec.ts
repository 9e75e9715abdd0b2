/**
 * The live plan: reading `todos` extractions, each new list replacing the
 * previous one (what changed marked), its Markdown checklist, and the
 * tracker over a real chat model.
 */
import { ChatModel } from '../../model/conversation/chat-model';
import {
  mergeTodos,
  type IPlan,
  planMarkdown,
  PlanTracker,
  readTodos
} from '../../model/conversation/plan';
import {
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';

const FIRST = [
  { content: 'Read the notebook', status: 'in_progress' },
  { content: 'Fix the failing cell', status: 'pending' },
  { content: 'Write a summary', status: 'pending' }
];
const SECOND = [
  { content: 'Read the notebook', status: 'completed' },
  { content: 'Fix the failing cell', status: 'in_progress' },
  { content: 'Write a summary', status: 'pending' },
  { content: 'Run the tests', status: 'pending' }
];

const todosFrame = (data: unknown, type = 'todos') =>
  frame({
    status: 'streaming',
    extraction: { tool_name: 'write_todos', extracted_type: type, data }
  });

describe('reading to-dos', () => {
  it('reads {content, status} items; a string is a pending item', () => {
    expect(readTodos([...FIRST.slice(0, 1), 'Tidy up'])).toEqual({
      todos: [
        { content: 'Read the notebook', status: 'in_progress' },
        { content: 'Tidy up', status: 'pending' }
      ],
      problems: []
    });
  });

  it('keeps what it can read and says which items it could not', () => {
    expect(
      readTodos([
        { content: 'ok', status: 'completed' },
        { status: 'pending' },
        7
      ])
    ).toEqual({
      todos: [{ content: 'ok', status: 'completed' }],
      problems: [
        'item 2 has no text ("content")',
        'item 3 has no text ("content")'
      ]
    });
    expect(readTodos({ todos: [] })).toBeNull();
  });

  it('marks what changed since the previous list, matched by text', () => {
    const merged = mergeTodos(FIRST, SECOND);
    expect(
      merged.map(item => [item.content, item.status, item.change])
    ).toEqual([
      ['Read the notebook', 'completed', 'status'],
      ['Fix the failing cell', 'in_progress', 'status'],
      ['Write a summary', 'pending', null],
      ['Run the tests', 'pending', 'new']
    ]);
    expect(mergeTodos(null, FIRST).every(item => item.change === null)).toBe(
      true
    );
    // The new list replaces the old: what it drops is gone.
    expect(mergeTodos(SECOND, FIRST.slice(0, 1))).toHaveLength(1);
  });

  it('writes a Markdown task list', () => {
    expect(
      planMarkdown([
        ...SECOND.slice(0, 2),
        { content: 'Two\nlines', status: 'pending' }
      ])
    ).toBe(
      '- [x] Read the notebook\n' +
        '- [ ] Fix the failing cell *(in progress)*\n' +
        '- [ ] Two lines'
    );
  });
});

describe('PlanTracker', () => {
  function setup() {
    const transport = new FakeTransport();
    const model = new ChatModel('thread-1', trans);
    model.transport = transport;
    const tracker = new PlanTracker(model);
    const plans: (IPlan | null)[] = [];
    tracker.changed.connect((_, plan) => plans.push(plan));
    return { transport, model, tracker, plans };
  }

  it('follows each todos extraction of the conversation, the latest replacing the previous', () => {
    const { transport, model, tracker, plans } = setup();
    model.send('plan it');
    transport.lastTurn.sink.frame(todosFrame(FIRST));
    expect(tracker.plan).toMatchObject({
      done: 0,
      source: { toolName: 'write_todos' }
    });
    transport.lastTurn.sink.frame(todosFrame({ not: 'a plan' }, 'demo_fact'));
    transport.lastTurn.sink.frame(todosFrame(SECOND));
    transport.lastTurn.sink.frame(complete());
    expect(plans).toHaveLength(2);
    expect(tracker.plan!.done).toBe(1);
    expect(tracker.plan!.items.map(item => item.change)).toEqual([
      'status',
      'status',
      null,
      'new'
    ]);
    const turn = model.entries[1];
    expect(tracker.plan!.source.turn).toBe(turn.key);
  });

  it('leaves the plan as it was when a todos extraction is not a list', () => {
    const { transport, model, tracker } = setup();
    model.send('plan it');
    transport.lastTurn.sink.frame(todosFrame(FIRST));
    const warn = jest
      .spyOn(console, 'warn')
      .mockImplementation(() => undefined);
    transport.lastTurn.sink.frame(todosFrame('not a list'));
    expect(warn).toHaveBeenCalledWith(
      'Agent Panel: a "todos" extraction from write_todos is not a list; the plan is unchanged.'
    );
    warn.mockRestore();
    expect(tracker.plan!.items.map(item => item.content)).toEqual(
      FIRST.map(item => item.content)
    );
  });

  it('finds the plan of a restored conversation, and has none in a new one', () => {
    const { transport, model, tracker, plans } = setup();
    model.send('plan it');
    transport.lastTurn.sink.frame(todosFrame(FIRST));
    transport.lastTurn.sink.frame(todosFrame(SECOND));
    transport.lastTurn.sink.frame(complete());
    const saved = JSON.parse(JSON.stringify([...model.entries]));
    // The panel shows a new conversation (New), then the saved one again.
    const fresh = new ChatModel('thread-2', trans);
    tracker.follow(fresh);
    expect(tracker.plan).toBeNull();
    expect(plans[plans.length - 1]).toBeNull();
    const reopened = new ChatModel(undefined, trans);
    reopened.restore({ threadId: 'thread-1', entries: saved });
    tracker.follow(reopened);
    expect(tracker.plan!.done).toBe(1);
    // A restored plan has nothing to compare with.
    expect(tracker.plan!.items.every(item => item.change === null)).toBe(true);
  });
});
