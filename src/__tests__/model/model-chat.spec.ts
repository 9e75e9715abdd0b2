import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import type { TurnChange } from '../../wire/types';
import {
  chunk,
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';

const ASK = frame({
  status: 'interrupt',
  interrupt: {
    action_requests: [
      { action: 'ask_user', args: { question: 'What should I call you?' } }
    ],
    review_configs: [],
    allowed_decisions: ['respond', 'approve']
  }
});

/** Disposed after each test. */
const models: ChatModel[] = [];

function newModel(threadId: string): ChatModel {
  const model = new ChatModel(threadId, trans);
  models.push(model);
  return model;
}

afterEach(() => models.splice(0).forEach(model => model.dispose()));

/** A model with a fake transport (disposed after the test). */
function modelWithTransport(threadId = 't'): {
  model: ChatModel;
  transport: FakeTransport;
} {
  const model = newModel(threadId);
  const transport = new FakeTransport();
  model.transport = transport;
  return { model, transport };
}

function pausedModel(): { model: ChatModel; transport: FakeTransport } {
  const { model, transport } = modelWithTransport('thread-1');
  model.send('ask me a question');
  transport.lastTurn.sink.frame(ASK);
  transport.lastTurn.sink.frame(complete('interrupted'));
  transport.lastTurn.sink.end();
  return { model, transport };
}

describe('ChatModel review answers', () => {
  it('sends the resume once, on the same thread, and records the decision', () => {
    const { model, transport } = pausedModel();
    expect(model.status).toBe('awaiting-decision');

    model.answer([{ type: 'respond', message: 'Ada' }]);

    expect(transport.turns).toHaveLength(2);
    expect(transport.lastTurn.request).toEqual({
      kind: 'resume',
      threadId: 'thread-1',
      decisions: [{ type: 'respond', message: 'Ada' }],
      reviews: [{ interruptIds: [], rows: 1 }]
    });
    const card = (model.entries[1] as ITurnEntry).state.items[0];
    expect(card).toMatchObject({
      kind: 'interrupt',
      answered: [{ type: 'respond', message: 'Ada' }]
    });
  });

  it('refuses a second answer (double click) without sending again', () => {
    const { model, transport } = pausedModel();
    model.answer([{ type: 'approve' }]);
    expect(() => model.answer([{ type: 'approve' }])).toThrow(
      'There is no pending review to answer.'
    );
    expect(
      transport.turns.filter(t => t.request.kind === 'resume')
    ).toHaveLength(1);
  });

  it('marks nothing answered when the decisions are not allowed', () => {
    const { model, transport } = pausedModel();
    expect(() => model.answer([{ type: 'reject' }])).toThrow(/not allowed/);
    expect(model.pendingInterrupts).toHaveLength(1);
    expect(model.status).toBe('awaiting-decision');
    expect(transport.turns).toHaveLength(1);
  });

  it('marks nothing answered when there is no transport to send with', () => {
    const { model } = pausedModel();
    model.transport = null;
    expect(() => model.answer([{ type: 'approve' }])).toThrow(
      'No agent endpoint is configured.'
    );
    expect(model.pendingInterrupts[0].answered).toBeNull();
  });
});

describe('ChatModel turns', () => {
  it('Stop before the first frame ends the turn as cancelled locally', () => {
    const { model, transport } = modelWithTransport();
    model.send('hello');
    model.stop();
    expect(transport.lastTurn.stops).toBe(1);
    // The transport gave up without a terminal frame.
    transport.lastTurn.sink.end();
    const turn = model.entries[1] as ITurnEntry;
    expect(turn.state.outcome).toBe('cancelled');
    expect(turn.state.cancelMessage).toBe(
      'Stopped before the agent confirmed.'
    );
    expect(model.status).toBe('idle');
  });

  it('retries the last user message after an error', () => {
    const { model, transport } = modelWithTransport();
    model.send('hello');
    transport.lastTurn.sink.frame(chunk('partial'));
    transport.lastTurn.sink.frame(frame({ status: 'error', error: 'Boom: x' }));
    model.retry();
    expect(transport.turns).toHaveLength(2);
    expect(transport.lastTurn.request).toMatchObject({
      kind: 'chat',
      message: 'hello'
    });
  });

  it('reports each change of the running turn once, naming the item', () => {
    const { model, transport } = modelWithTransport();
    const seen: TurnChange[][] = [];
    model.turnChanged.connect((_, update) => seen.push([...update.changes]));
    model.send('hello');
    transport.lastTurn.sink.frame(chunk('a'));
    transport.lastTurn.sink.frame(chunk('b'));
    expect(seen.map(changes => changes.map(c => c.type))).toEqual([
      ['added'],
      ['updated']
    ]);
    expect(model.runningTurn?.key).toBe(model.entries[1].key);
  });
});
