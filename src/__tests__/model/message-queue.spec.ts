/**
 * The message queue as a state machine over a real chat model: what goes
 * when a turn completes, what waits for a review, what is kept after an
 * error or a stop, the user's edits, and the round trip through the store.
 */
import { ChatModel } from '../../model/conversation/chat-model';
import { MessageQueue } from '../../model/conversation/message-queue';
import { readQueue } from '../../model/persistence/queue-persistence';
import { readConversation } from '../../model/persistence/reading';
import type { IStoredConversation } from '../../transport/server/conversation-store';
import type { ITurnContext } from '../../wire/turn';
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
    action_requests: [{ action: 'ask_user', args: { question: 'Name?' } }],
    review_configs: [],
    allowed_decisions: ['respond']
  }
});

const CONTEXT: ITurnContext = {
  focused_widget: 'notes/a.ipynb',
  selected_text: 'x = 1',
  selection_metadata: 'cell_0'
};

/** Let the queue's deferred send run. */
const settle = () => new Promise(resolve => setTimeout(resolve, 0));

function setup() {
  const transport = new FakeTransport();
  const model = new ChatModel('thread-1', trans);
  model.transport = transport;
  const queue = new MessageQueue(model, trans);
  const sent = () =>
    transport.turns.map(turn =>
      turn.request.kind === 'chat' ? turn.request.message : 'resume'
    );
  /** Queue `texts` while a first turn runs. */
  const busyWith = (...texts: string[]) => {
    expect(queue.submit('first', null)).toBe('sent');
    for (const text of texts) {
      expect(queue.submit(text, null)).toBe('queued');
    }
  };
  return { transport, model, queue, sent, busyWith };
}

describe('MessageQueue', () => {
  it('sends at once when the agent is free, and queues while a turn runs', () => {
    const { queue, sent, model } = setup();
    expect(queue.submit('hello', CONTEXT)).toBe('sent');
    expect(model.entries[0]).toMatchObject({ text: 'hello', context: CONTEXT });
    expect(queue.submit('next', CONTEXT)).toBe('queued');
    expect(sent()).toEqual(['hello']);
    expect(queue.items.map(item => [item.text, item.context])).toEqual([
      ['next', CONTEXT]
    ]);
  });

  it('sends the queue in order, one message per completed turn, with the context captured when queued', async () => {
    const { queue, sent, transport, busyWith } = setup();
    busyWith('second', 'third');
    queue.edit(queue.items[1].id, 'third, edited');
    transport.lastTurn.sink.frame(complete());
    // Not from inside the status signal: the status is idle for everyone first.
    expect(sent()).toEqual(['first']);
    await settle();
    expect(sent()).toEqual(['first', 'second']);
    expect(queue.items.map(item => item.text)).toEqual(['third, edited']);
    transport.lastTurn.sink.frame(chunk('done'));
    transport.lastTurn.sink.frame(complete());
    await settle();
    expect(sent()).toEqual(['first', 'second', 'third, edited']);
    expect(queue.items).toEqual([]);
    expect(queue.hold).toBe('none');
  });

  it('sends a queued message with the context it was queued with', async () => {
    const { queue, transport, model } = setup();
    queue.submit('first', null);
    queue.submit('second', CONTEXT);
    transport.lastTurn.sink.frame(complete());
    await settle();
    // The message's id is its entry's (the AG-UI message id, docs/protocol.md §13.8).
    expect(transport.lastTurn.request).toEqual({
      kind: 'chat',
      threadId: 'thread-1',
      message: 'second',
      context: CONTEXT,
      messageId: model.entries[2].key
    });
  });

  it('holds the queue while a review waits, and goes on once the resume completes', async () => {
    const { queue, sent, transport, model, busyWith } = setup();
    busyWith('after the review');
    transport.lastTurn.sink.frame(ASK);
    transport.lastTurn.sink.frame(complete('interrupted'));
    expect(model.status).toBe('awaiting-decision');
    expect(queue.hold).toBe('review');
    await settle();
    expect(sent()).toEqual(['first']);

    model.answer([{ type: 'respond', message: 'Ada' }]);
    expect(queue.hold).toBe('review');
    transport.lastTurn.sink.frame(complete());
    await settle();
    expect(sent()).toEqual(['first', 'resume', 'after the review']);
    expect(queue.hold).toBe('none');
  });

  it('keeps the queue after an error until the user sends it on', async () => {
    const { queue, sent, transport, busyWith } = setup();
    busyWith('kept');
    transport.lastTurn.sink.frame(frame({ status: 'error', error: 'Boom' }));
    await settle();
    expect(queue.hold).toBe('error');
    expect(sent()).toEqual(['first']);

    // A message sent meanwhile goes at once and does not release the queue.
    expect(queue.submit('direct', null)).toBe('sent');
    transport.lastTurn.sink.frame(complete());
    await settle();
    expect(sent()).toEqual(['first', 'direct']);
    expect(queue.hold).toBe('error');

    queue.resume();
    expect(sent()).toEqual(['first', 'direct', 'kept']);
    expect(queue.items).toEqual([]);
  });

  it('keeps the queue after Stop; clearing it empties it and lifts the hold', async () => {
    const { queue, sent, transport, model, busyWith } = setup();
    busyWith('one', 'two');
    model.stop();
    transport.lastTurn.sink.frame(
      frame({ status: 'cancelled', message: 'Execution cancelled by user' })
    );
    await settle();
    expect(queue.hold).toBe('stopped');
    expect(sent()).toEqual(['first']);
    queue.clear();
    expect(queue.items).toEqual([]);
    expect(queue.hold).toBe('none');
  });

  it('resuming while a turn runs lifts the hold; the queue goes when that turn completes', async () => {
    const { queue, sent, transport, busyWith } = setup();
    busyWith('kept');
    transport.lastTurn.sink.frame(frame({ status: 'error', error: 'Boom' }));
    queue.submit('direct', null);
    queue.resume();
    expect(sent()).toEqual(['first', 'direct']);
    transport.lastTurn.sink.frame(complete());
    await settle();
    expect(sent()).toEqual(['first', 'direct', 'kept']);
  });

  it('moves, edits and removes queued messages, and refuses empty text', () => {
    const { queue, busyWith } = setup();
    busyWith('a', 'b', 'c');
    const [a, b, c] = queue.items;
    queue.move(c.id, -1);
    expect(queue.items.map(item => item.text)).toEqual(['a', 'c', 'b']);
    queue.move(a.id, -1);
    queue.move(b.id, 1);
    expect(queue.items.map(item => item.text)).toEqual(['a', 'c', 'b']);
    queue.move(a.id, 2);
    expect(queue.items.map(item => item.text)).toEqual(['c', 'b', 'a']);
    queue.remove(b.id);
    expect(queue.items.map(item => item.text)).toEqual(['c', 'a']);
    expect(() => queue.edit(a.id, '  ')).toThrow('The message is empty.');
    expect(() => queue.remove(b.id)).toThrow(
      'That message is no longer queued.'
    );
    expect(() => queue.submit('', null)).toThrow('The message is empty.');
    expect(queue.items.map(item => item.text)).toEqual(['c', 'a']);
  });

  it('holds the queue when the conversation is replaced', async () => {
    const { queue, sent, model, transport, busyWith } = setup();
    busyWith('for the old conversation');
    transport.lastTurn.sink.frame(ASK);
    transport.lastTurn.sink.frame(complete('interrupted'));
    expect(queue.hold).toBe('review');
    // Another conversation restored in this model: it has no review to wait for.
    model.restore({ threadId: 'thread-2', entries: [] });
    expect(model.status).toBe('idle');
    await settle();
    expect(queue.hold).toBe('paused');
    expect(sent()).toEqual(['first']);
    expect(queue.items).toHaveLength(1);
  });

  it('holds the head with the reason when the model refuses it', async () => {
    const { queue, model, transport, busyWith } = setup();
    busyWith('orphan');
    model.transport = null;
    transport.lastTurn.sink.frame(complete());
    await settle();
    expect(queue.hold).toBe('error');
    expect(queue.problem).toBe('No agent endpoint is configured.');
    expect(queue.items).toHaveLength(1);
  });

  it('stops listening to the model once disposed', async () => {
    const { queue, sent, transport, busyWith } = setup();
    busyWith('never');
    queue.dispose();
    transport.lastTurn.sink.frame(complete());
    await settle();
    expect(sent()).toEqual(['first']);
  });
});

/** A stored conversation whose queue is `queue` (as the store gives it back). */
function storedWith(queue: unknown[]): IStoredConversation {
  return JSON.parse(
    JSON.stringify({
      id: 'c1',
      title: '',
      threadId: 'thread-1',
      endpointName: null,
      status: 'idle',
      createdAt: 1,
      updatedAt: 1,
      revision: 1,
      entryCount: 0,
      entries: [],
      transportMemory: null,
      queue
    })
  );
}

describe('the saved queue', () => {
  it('round-trips through the store; reopened, it waits for the user', async () => {
    const before = setup();
    before.busyWith('one');
    before.queue.submit('two', CONTEXT);
    await settle();
    const read = readConversation(storedWith([...before.queue.items]), null);

    const after = setup();
    after.queue.restore(read!.queue);
    expect(read!.problems).toEqual([]);
    expect(after.queue.items).toEqual(before.queue.items);
    expect(after.queue.hold).toBe('paused');
    after.queue.resume();
    expect(after.sent()).toEqual(['one']);
  });

  it('keeps the readable messages of a damaged queue and says what was left out', () => {
    const read = readConversation(
      storedWith([
        { id: 'a', text: 'kept', context: null, queuedAt: 1 },
        {
          id: 'b',
          text: 'bad context',
          context: { selected_text: 3 },
          queuedAt: 2
        },
        { id: 'c', text: '', context: null, queuedAt: 3 }
      ]),
      null
    );
    expect(read!.queue.map(item => item.text)).toEqual(['kept']);
    expect(read!.problems).toEqual([
      'queued message 2 was left out: context.selected_text is not a string',
      'queued message 3 was left out: text is not a non-empty string'
    ]);
  });

  it('names what is wrong with something that is not a queue', () => {
    expect(() => readQueue([])).toThrow('the saved queue is not a JSON object');
    expect(() => readQueue({ version: 2, items: [] })).toThrow(
      'the saved queue has version 2, expected 1'
    );
    expect(() => readQueue({ version: 1 })).toThrow(
      'the saved queue has no list of items'
    );
  });
});
