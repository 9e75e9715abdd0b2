import type { IDisposable } from '@lumino/disposable';
import { openInterrupts } from '../../agui/request';
import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { readEntry } from '../../model/persistence/snapshot-reader';
import { TurnActivityView } from '../../panel/transcript/turn-activity';
import type { IForeignRun } from '../../contracts/transport';
import type { ITurnSink } from '../../wire/turn';
import type { TurnChange } from '../../wire/types';
import {
  chunk,
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';

/** A transport that, like the AG-UI websocket, sees other clients' runs. */
class FollowingTransport extends FakeTransport {
  readonly followers: {
    threadId: string;
    onRun: (run: IForeignRun) => ITurnSink | null;
    disposed: boolean;
  }[] = [];

  followThread(
    threadId: string,
    onRun: (run: IForeignRun) => ITurnSink | null
  ): IDisposable {
    const follower = { threadId, onRun, disposed: false };
    this.followers.push(follower);
    return {
      get isDisposed() {
        return follower.disposed;
      },
      dispose: () => {
        follower.disposed = true;
      }
    };
  }

  /** Another tab started a run on `threadId`. */
  foreignRun(threadId: string): { sink: ITurnSink | null; stops: number } {
    const run = { runId: 'r-1', stops: 0, sink: null as ITurnSink | null };
    const live = this.followers.filter(
      f => f.threadId === threadId && !f.disposed
    );
    for (const follower of live) {
      run.sink = follower.onRun({ runId: run.runId, stop: () => run.stops++ });
    }
    return run;
  }
}

const ASK = frame({
  status: 'interrupt',
  interrupt: {
    action_requests: [{ action: 'ask_user', args: {} }],
    review_configs: [],
    allowed_decisions: ['respond', 'approve']
  },
  interrupt_ids: ['int-7']
});

describe('ChatModel and runs started elsewhere', () => {
  let model: ChatModel;
  let transport: FollowingTransport;

  beforeEach(() => {
    model = new ChatModel('thread-a', trans);
    transport = new FollowingTransport();
    model.transport = transport;
  });

  afterEach(() => model.dispose());

  it('shows a run another tab started on its thread, as a turn of its own', () => {
    const run = transport.foreignRun('thread-a');
    expect(run.sink).not.toBeNull();
    expect(model.status).toBe('running');
    run.sink!.frame(chunk('from the other tab'));
    run.sink!.frame(complete());
    run.sink!.end();

    const turn = model.entries[0] as ITurnEntry;
    expect(turn.request).toBeNull();
    expect(turn.state.items).toMatchObject([
      { kind: 'text', text: 'from the other tab' }
    ]);
    expect(model.status).toBe('idle');
  });

  it('Stop on a followed run asks the producer to stop it', () => {
    const run = transport.foreignRun('thread-a');
    model.stop();
    expect(run.stops).toBe(1);
  });

  it('does not adopt a foreign run while its own turn runs', () => {
    model.send('hello');
    expect(transport.foreignRun('thread-a').sink).toBeNull();
  });

  it('follows the thread of a restored conversation, and stops following the old', () => {
    model.restore({ threadId: 'thread-b', entries: [] });
    expect(transport.foreignRun('thread-a').sink).toBeNull();
    expect(transport.foreignRun('thread-b').sink).not.toBeNull();
  });

  it('restored again on the same thread (another tab saved it), asks once, not at every restore', () => {
    model.restore({ threadId: 'thread-a', entries: [] });
    model.restore({ threadId: 'thread-a', entries: [] });
    expect(transport.followers.map(f => f.threadId)).toEqual(['thread-a']);
    expect(transport.foreignRun('thread-a').sink).not.toBeNull();
  });

  it('stops following when disposed', () => {
    model.dispose();
    expect(transport.followers.every(f => f.disposed)).toBe(true);
  });

  it('a followed turn survives a save and restore', () => {
    const run = transport.foreignRun('thread-a');
    run.sink!.frame(chunk('kept'));
    run.sink!.frame(complete());
    const restored = readEntry(JSON.parse(JSON.stringify(model.entries[0])));
    expect((restored as ITurnEntry).request).toBeNull();
  });
});

describe('ChatModel resume addressing', () => {
  it('tells the transport which interrupts the decisions answer', () => {
    const model = new ChatModel('t', trans);
    const transport = new FakeTransport();
    model.transport = transport;
    model.send('ask me');
    transport.lastTurn.sink.frame(ASK);
    transport.lastTurn.sink.frame(complete('interrupted'));
    transport.lastTurn.sink.end();

    model.answer([{ type: 'approve' }]);

    expect(transport.lastTurn.request).toMatchObject({
      kind: 'resume',
      reviews: [{ interruptIds: ['int-7'], rows: 1 }]
    });
    model.dispose();
  });

  it('AG-UI resumes address interrupts from the cards when the thread memory is empty', () => {
    expect(openInterrupts([], [{ interruptIds: ['int-7'], rows: 2 }])).toEqual([
      { id: 'int-7', rows: 2 }
    ]);
    expect(
      openInterrupts(
        [{ id: 'mem', rows: 1 }],
        [{ interruptIds: ['x'], rows: 1 }]
      )
    ).toEqual([{ id: 'mem', rows: 1 }]);
    // Several ids on one card cannot be split among its rows: unaddressed.
    expect(openInterrupts([], [{ interruptIds: ['a', 'b'], rows: 2 }])).toEqual(
      [{ id: null, rows: 2 }]
    );
  });
});

describe('ChatModel late diagnostics', () => {
  it('reports what arrives after the terminal frame to the views', () => {
    const model = new ChatModel('t', trans);
    const transport = new FakeTransport();
    model.transport = transport;
    const seen: TurnChange[] = [];
    model.turnChanged.connect((_, update) => seen.push(...update.changes));
    model.send('hello');
    const { sink } = transport.lastTurn;
    sink.frame(complete());
    sink.diagnostic('an event arrived after RUN_FINISHED');

    expect(seen.filter(c => c.type === 'diagnostic')).toEqual([
      { type: 'diagnostic', message: 'an event arrived after RUN_FINISHED' }
    ]);
    model.dispose();
  });

  it('ignores a turn whose conversation was disposed (deleted while it ran)', () => {
    const model = new ChatModel('t', trans);
    const transport = new FakeTransport();
    model.transport = transport;
    model.send('hello');
    const turn = transport.lastTurn;
    model.dispose();
    expect(turn.stops).toBe(1);
    const seen: TurnChange[] = [];
    model.turnChanged.connect((_, update) => seen.push(...update.changes));
    turn.sink.frame(chunk('stale'));
    turn.sink.diagnostic('stale');
    expect(seen).toEqual([]);
  });
});

describe('TurnActivityView', () => {
  const base = {
    items: [],
    outcome: null,
    error: null,
    cancelMessage: null,
    diagnostics: []
  };

  it('is hidden for a chunk-wire turn', () => {
    const view = new TurnActivityView(trans);
    view.render(base);
    expect(view.node.hidden).toBe(true);
  });

  it('shows subagents, activities and the agent state, and keeps the state viewer open', () => {
    const view = new TurnActivityView(trans);
    view.render({
      ...base,
      subagents: [
        {
          id: 's1',
          name: 'researcher',
          description: null,
          parentId: null,
          status: 'error',
          message: 'quota exceeded'
        }
      ],
      activities: [
        { id: 'a1', activityType: 'search', content: { query: 'jupyter' } }
      ],
      agentState: { step: 1 }
    });
    expect(view.node.hidden).toBe(false);
    expect(view.node.textContent).toContain(
      'researcher · failed — quota exceeded'
    );
    expect(view.node.textContent).toContain('search: {"query":"jupyter"}');
    const details = view.node.querySelector('details')!;
    expect(details.open).toBe(false);
    details.open = true;

    view.render({ ...base, agentState: { step: 2 } });
    const again = view.node.querySelector('details')!;
    expect(again.open).toBe(true);
    expect(again.textContent).toContain('"step": 2');
  });
});
