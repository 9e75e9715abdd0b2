import { ChatModel, type ITurnEntry } from '../model/conversation/chat-model';
import {
  CHAT_STATE_KEY,
  ChatPersistence,
  readSnapshot,
  snapshotOf,
  type IStateStore
} from '../model/persistence/persistence';
import { chunk, complete, FakeTransport, frame, trans } from './fake-transport';

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

/** What IStateDB does: keep a JSON copy. */
class MemoryStore implements IStateStore {
  readonly saved: string[] = [];
  async fetch(id: string): Promise<unknown> {
    const value = this._values.get(id);
    return value === undefined ? undefined : JSON.parse(value);
  }
  async save(id: string, value: unknown): Promise<void> {
    const json = JSON.stringify(value);
    this.saved.push(json);
    this._values.set(id, json);
  }
  private _values = new Map<string, string>();
}

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

describe('ChatPersistence', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('restores into an empty model, then saves streaming changes throttled', async () => {
    const store = new MemoryStore();
    const first = new FakeTransport();
    const original = modelWith(first);
    original.send('hi');
    first.lastTurn.sink.frame(chunk('hello'));
    first.lastTurn.sink.frame(complete());
    await store.save(CHAT_STATE_KEY, snapshotOf(original) as any);
    store.saved.length = 0;

    const transport = new FakeTransport();
    const model = modelWith(transport, 'fresh');
    const persistence = new ChatPersistence(model, store, {
      saveDelayMs: 1000
    });
    expect(await persistence.start()).toEqual([]);
    expect(model.threadId).toBe('thread-1');
    expect(model.entries).toHaveLength(2);

    model.send('again');
    await jest.advanceTimersByTimeAsync(0);
    const afterSend = store.saved.length;
    for (let i = 0; i < 50; i++) {
      transport.lastTurn.sink.frame(chunk(`t${i} `));
    }
    // Fifty frames: no save yet, one once the delay has passed.
    expect(store.saved.length).toBe(afterSend);
    await jest.advanceTimersByTimeAsync(1000);
    expect(store.saved.length).toBe(afterSend + 1);
    const last = JSON.parse(store.saved[store.saved.length - 1]);
    expect(last.entries[3].state.items[0].text).toContain('t49');
    persistence.dispose();
  });

  it('saves at once when the status changes (e.g. a review is pending)', async () => {
    const store = new MemoryStore();
    const transport = new FakeTransport();
    const model = modelWith(transport);
    const persistence = new ChatPersistence(model, store, {
      saveDelayMs: 60000
    });
    await persistence.start();
    model.send('go');
    transport.lastTurn.sink.frame(HITL);
    transport.lastTurn.sink.frame(complete('interrupted'));
    await jest.advanceTimersByTimeAsync(0);
    const stored = await store.fetch(CHAT_STATE_KEY);
    const reloaded = modelWith(new FakeTransport());
    reloaded.restore(readSnapshot(stored).snapshot);
    expect(reloaded.status).toBe('awaiting-decision');
    persistence.dispose();
  });

  it('does not replace a conversation that already started', async () => {
    const store = new MemoryStore();
    await store.save(CHAT_STATE_KEY, {
      version: 1,
      threadId: 'old',
      entries: []
    });
    const model = modelWith(new FakeTransport(), 'current');
    model.send('typed before the state loaded');
    const persistence = new ChatPersistence(model, store);
    await persistence.start();
    expect(model.threadId).toBe('current');
    persistence.dispose();
  });

  it('reports a stored conversation it cannot read and keeps working', async () => {
    const store = new MemoryStore();
    await store.save(CHAT_STATE_KEY, { version: 2 });
    const model = modelWith(new FakeTransport(), 'current');
    const persistence = new ChatPersistence(model, store);
    expect(await persistence.start()).toEqual([
      'the saved conversation was not restored: the saved conversation has version 2, expected 1'
    ]);
    expect(model.threadId).toBe('current');
    persistence.dispose();
  });

  it('stops saving once disposed', async () => {
    const store = new MemoryStore();
    const transport = new FakeTransport();
    const model = modelWith(transport);
    const persistence = new ChatPersistence(model, store, { saveDelayMs: 10 });
    await persistence.start();
    persistence.dispose();
    model.send('hi');
    await jest.advanceTimersByTimeAsync(100);
    expect(store.saved).toEqual([]);
  });
});
