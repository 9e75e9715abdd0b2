import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { ConversationSession } from '../../model/conversation/session';
import { readSnapshot, snapshotOf } from '../../model/persistence/persistence';
import { ConversationSaver } from '../../model/persistence/saver';
import {
  chunk,
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';
import { FakeConversationStore, MemoryStorage } from '../support/store-fakes';

const HITL = frame({
  status: 'interrupt',
  interrupt: {
    action_requests: [
      { name: 'write_file', args: { path: 'a.md' }, description: 'Write' },
      { name: 'execute', args: { command: 'ls' } }
    ],
    review_configs: [
      { action_name: 'write_file', allowed_decisions: ['approve', 'edit'] },
      { action_name: 'execute', allowed_decisions: ['approve', 'reject'] }
    ],
    allowed_decisions: ['approve', 'edit', 'reject']
  }
});

function modelWith(transport: FakeTransport, threadId = 'thread-1') {
  const model = new ChatModel(threadId, trans);
  model.transport = transport;
  return model;
}

describe('conversation snapshots', () => {
  it('round-trips a pending review that can then be answered on the same thread', () => {
    const before = new FakeTransport();
    const model = modelWith(before);
    model.send('please write');
    before.lastTurn.sink.frame(chunk('I will ask first.'));
    before.lastTurn.sink.frame(HITL);
    before.lastTurn.sink.frame(complete('interrupted'));
    before.lastTurn.sink.end();

    const stored = JSON.parse(JSON.stringify(snapshotOf(model)));
    const after = new FakeTransport();
    const reloaded = modelWith(after, 'other-thread');
    const { snapshot, problems } = readSnapshot(stored);
    reloaded.restore(snapshot);

    expect(problems).toEqual([]);
    expect(reloaded.threadId).toBe('thread-1');
    expect(reloaded.status).toBe('awaiting-decision');
    expect(reloaded.entries.map(e => e.kind)).toEqual(['user', 'turn']);
    reloaded.answer([
      {
        type: 'edit',
        edited_action: { name: 'write_file', args: { path: 'b.md' } }
      },
      { type: 'reject', message: 'not now' }
    ]);
    expect(after.lastTurn.request).toEqual({
      kind: 'resume',
      threadId: 'thread-1',
      decisions: [
        {
          type: 'edit',
          edited_action: { name: 'write_file', args: { path: 'b.md' } }
        },
        { type: 'reject', message: 'not now' }
      ],
      reviews: [{ interruptIds: [], rows: 2 }]
    });
  });

  it('restores a turn that was streaming as ended by the reload, content kept', () => {
    const transport = new FakeTransport();
    const model = modelWith(transport);
    model.send('hello');
    transport.lastTurn.sink.frame(chunk('partial ans'));
    const stored = JSON.parse(JSON.stringify(snapshotOf(model)));

    const reloaded = modelWith(new FakeTransport());
    reloaded.restore(readSnapshot(stored).snapshot);
    const turn = reloaded.entries[1] as ITurnEntry;
    expect(turn.state.outcome).toBe('cancelled');
    expect(turn.interruptedByReload).toBe(true);
    expect(turn.endedAt).not.toBeNull();
    expect(turn.state.items[0]).toMatchObject({ text: 'partial ans' });
    expect(reloaded.status).toBe('idle');
  });

  it('names what is wrong with a snapshot that is not one', () => {
    expect(() => readSnapshot([])).toThrow('not a JSON object');
    expect(() => readSnapshot({ version: 7 })).toThrow('version 7, expected 1');
    expect(() => readSnapshot({ version: 1, entries: [] })).toThrow(
      'no thread id'
    );
  });

  it('leaves out an unreadable entry, reports it, and keeps the others', () => {
    const { snapshot, problems } = readSnapshot({
      version: 1,
      threadId: 't',
      entries: [
        { kind: 'user', key: 'u1', text: 'hi', context: null, time: 1 },
        {
          kind: 'turn',
          key: 't1',
          request: { kind: 'chat', threadId: 't', message: 'hi' },
          state: { items: [{ kind: 'tool', key: 1 }], outcome: 'complete' },
          startedAt: 1,
          endedAt: 2
        }
      ]
    });
    expect(snapshot.entries.map(e => e.key)).toEqual(['u1']);
    expect(problems).toEqual([
      'entry 2 was left out: state.items[0].name is not a string'
    ]);
  });
});

describe('ConversationSaver', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function saving(store: FakeConversationStore, storage = new MemoryStorage()) {
    const transport = new FakeTransport();
    const model = modelWith(transport);
    const session = new ConversationSession('c1', model, trans);
    const page = new EventTarget();
    const saver = new ConversationSaver(session, store, {
      saveDelayMs: 10,
      unloadStore: storage,
      page
    });
    saver.markStored([]);
    return { transport, model, session, saver, page, storage };
  }

  it('stops saving once disposed', async () => {
    const store = new FakeConversationStore();
    const { model, saver, session } = saving(store);
    saver.dispose();
    model.send('hi');
    await jest.advanceTimersByTimeAsync(100);
    expect(store.puts).toEqual([]);
    session.dispose();
  });

  it('saves nothing for a conversation without changes, nor an empty unload copy', async () => {
    const store = new FakeConversationStore();
    const { saver, page, storage, session } = saving(store);
    await saver.flush();
    page.dispatchEvent(new Event('pagehide'));
    expect(store.puts).toEqual([]);
    expect(storage.items.size).toBe(0);
    saver.dispose();
    session.dispose();
  });

  it('sends removed entries when the conversation is replaced', async () => {
    const store = new FakeConversationStore();
    const { model, transport, saver, session } = saving(store);
    model.send('one');
    transport.lastTurn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(10);
    expect(store.entriesOf('c1')).toHaveLength(2);
    const turnKey = model.entries[1].key;
    model.restore({ threadId: 'thread-1', entries: [model.entries[0]] });
    await jest.advanceTimersByTimeAsync(10);
    expect(store.entriesOf('c1')).toHaveLength(1);
    expect(store.puts[store.puts.length - 1].update.removedKeys).toEqual([
      turnKey
    ]);
    saver.dispose();
    session.dispose();
  });
});
