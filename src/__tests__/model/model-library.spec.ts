/**
 * The library of conversations against a store with the server's semantics:
 * saving only what changed, New keeping the old conversation, a turn left
 * running in the background, release and reopen, rename, delete (with the
 * agent's thread), the filter, a server without a store, the one-time move
 * of the IStateDB snapshot, the notice when the agent forgot a thread, and
 * a deployment's threads listed, read back, retitled and deleted.
 */
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { ConversationLibrary } from '../../model/library/library';
import { LAST_SHOWN_KEY } from '../../model/library/last-shown';
import {
  CHAT_STATE_KEY,
  snapshotOf
} from '../../model/persistence/persistence';
import { QUEUE_STATE_KEY } from '../../model/persistence/queue-persistence';
import { unloadKey } from '../../model/persistence/saver';
import {
  parseSettings,
  type IEndpointSettings
} from '../../contracts/settings';
import type { IThreadRef } from '../../contracts/transport';
import type {
  IAgentThread,
  IAgentThreads,
  IThreadHistory
} from '../../transport/server/agent-threads';
import type { ITextBlock } from '../../wire/types';
import {
  chunk,
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';
import {
  FakeConversationStore,
  MemoryState,
  MemoryStorage
} from '../support/store-fakes';

const SETTINGS = parseSettings({
  endpoints: [
    { name: 'Alpha', transport: 'http', url: 'agent-panel/agents/alpha/' },
    { name: 'Kernel', transport: 'comm' }
  ],
  defaultEndpoint: 'Alpha'
}).settings;

class FakeThreads implements IAgentThreads {
  forgotten: string[] = [];
  retitled: string[] = [];
  knownAnswer: boolean | null = true;
  /** Each endpoint's threads (a deployment's), by endpoint name. */
  listed = new Map<string, IAgentThread[]>();
  histories = new Map<string, IThreadHistory>();
  listFailure: Error | null = null;
  async known(): Promise<boolean | null> {
    return this.knownAnswer;
  }
  async forget(endpoint: IEndpointSettings, threadId: string): Promise<void> {
    this.forgotten.push(`${endpoint.name}:${threadId}`);
  }
  async list(endpoint: IEndpointSettings): Promise<IAgentThread[]> {
    if (this.listFailure) {
      throw this.listFailure;
    }
    return this.listed.get(endpoint.name) ?? [];
  }
  async history(
    _: IEndpointSettings,
    threadId: string
  ): Promise<IThreadHistory | null> {
    return this.histories.get(threadId) ?? null;
  }
  async retitle(
    endpoint: IEndpointSettings,
    threadId: string,
    title: string
  ): Promise<void> {
    this.retitled.push(`${endpoint.name}:${threadId}:${title}`);
  }
}

/** One page: a service, its transports and a library on a shared store. */
function page(
  store: FakeConversationStore,
  state = new MemoryState(),
  storage = new MemoryStorage(),
  threads = new FakeThreads()
) {
  const service = new AgentPanelService(new ChatModel(undefined, trans), {
    trans
  });
  service.setSettings(SETTINGS);
  const transports: FakeTransport[] = [];
  const factory = () => {
    const transport = new FakeTransport();
    transports.push(transport);
    return transport;
  };
  service.registerTransport('http', factory);
  service.registerTransport('comm', factory);
  const pageEvents = new EventTarget();
  const library = new ConversationLibrary({
    service,
    store,
    threads,
    state,
    trans,
    saver: { saveDelayMs: 1000, unloadStore: storage, page: pageEvents }
  });
  pages.push({ service, library });
  return { service, library, transports, state, storage, threads, pageEvents };
}

const pages: { service: AgentPanelService; library: ConversationLibrary }[] =
  [];

beforeEach(() => jest.useFakeTimers());
afterEach(async () => {
  for (const { service, library } of pages.splice(0)) {
    library.dispose();
    service.dispose();
  }
  await jest.runOnlyPendingTimersAsync();
  jest.useRealTimers();
});

const turnText = (entry: unknown) =>
  ((entry as ITurnEntry).state.items[0] as ITextBlock).text;

describe('ConversationSaver (through the library)', () => {
  it('sends only the entries that changed, one PUT per delay while streaming', async () => {
    const store = new FakeConversationStore();
    const { service, library, transports } = page(store);
    await library.start();
    service.model.send('hello there');
    const transport = transports[transports.length - 1];
    await jest.advanceTimersByTimeAsync(0);
    const afterSend = store.puts.length;
    for (let i = 0; i < 50; i++) {
      transport.lastTurn.sink.frame(chunk(`t${i} `));
    }
    expect(store.puts.length).toBe(afterSend);
    await jest.advanceTimersByTimeAsync(1000);
    expect(store.puts.length).toBe(afterSend + 1);
    const streaming = store.puts[store.puts.length - 1].update;
    // The streaming turn only: the user message was sent before.
    expect(streaming.entries).toHaveLength(1);
    expect(JSON.stringify(streaming.entries)).toContain('t49');
    expect(streaming.status).toBe('running');
    expect(streaming.title).toBeUndefined();

    transport.lastTurn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(0);
    const id = service.current.id;
    expect(store.entriesOf(id)).toHaveLength(2);
    const summary = (await store.list())[0];
    expect(summary).toMatchObject({ id, status: 'idle', entryCount: 2 });
    // The first message is the title.
    expect(summary.title).toBe('hello there');
  });

  it('saves a pending review at once, and it can be answered after reopening', async () => {
    const store = new FakeConversationStore();
    const first = page(store);
    await first.library.start();
    first.service.model.send('go');
    const turn = first.transports[first.transports.length - 1].lastTurn;
    turn.sink.frame(
      frame({
        status: 'interrupt',
        interrupt: {
          action_requests: [{ name: 'execute', args: { command: 'ls' } }],
          review_configs: [
            { action_name: 'execute', allowed_decisions: ['approve'] }
          ]
        }
      })
    );
    turn.sink.frame(complete('interrupted'));
    await jest.advanceTimersByTimeAsync(0);
    const id = first.service.current.id;
    expect((await store.list())[0].status).toBe('review');

    const second = page(store);
    await second.library.start();
    await second.library.open(id);
    expect(second.service.model.status).toBe('awaiting-decision');
    second.service.model.answer([{ type: 'approve' }]);
    const resume = second.transports[second.transports.length - 1].lastTurn;
    expect(resume.request).toMatchObject({
      kind: 'resume',
      threadId: first.service.model.threadId
    });
  });

  it('saves the queue and a new title, and sends a failed save again', async () => {
    const store = new FakeConversationStore();
    const { service, library } = page(store);
    await library.start();
    service.model.send('first');
    service.queue.add('queued one', null);
    await jest.advanceTimersByTimeAsync(0);
    const id = service.current.id;
    expect((await store.get(id))?.queue).toMatchObject([
      { text: 'queued one' }
    ]);
    store.failPuts = 1;
    await library.rename(id, 'Renamed');
    await jest.advanceTimersByTimeAsync(0);
    expect((await store.get(id))?.title).toBe('first');
    service.queue.clear();
    await jest.advanceTimersByTimeAsync(0);
    const stored = await store.get(id);
    expect(stored?.title).toBe('Renamed');
    expect(stored?.queue).toEqual([]);
  });
});

describe('ConversationLibrary', () => {
  it('keeps the old conversation on New, and lists both newest first', async () => {
    const store = new FakeConversationStore();
    const { service, library, transports } = page(store);
    await library.start();
    service.model.send('one');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    const firstId = service.current.id;
    await jest.advanceTimersByTimeAsync(5000);
    const second = library.create();
    expect(service.current).toBe(second);
    second.model.send('two');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(1000);
    await library.refresh();
    expect(library.items.map(item => item.title)).toEqual(['two', 'one']);
    expect(library.items[0].current).toBe(true);

    await library.open(firstId);
    expect(service.current.id).toBe(firstId);
    expect(service.model.entries).toHaveLength(2);
    expect((service.model.entries[0] as { text: string }).text).toBe('one');
  });

  it('New starts an empty conversation on a new thread and tells the views', async () => {
    const store = new FakeConversationStore();
    const { service, library, transports } = page(store);
    await library.start();
    service.model.send('one');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    const first = service.model;
    let shown = 0;
    service.modelChanged.connect(() => (shown += 1));
    const second = library.create();
    expect(service.model).toBe(second.model);
    expect(second.model.entries).toHaveLength(0);
    expect(second.model.threadId).not.toBe(first.threadId);
    expect(second.model.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.model.status).toBe('idle');
    expect(shown).toBe(1);
  });

  it('offers the client tools registered before, in every conversation it opens or makes', async () => {
    const store = new FakeConversationStore();
    const { service, library, transports } = page(store);
    await library.start();
    service.registerClientTool({
      name: 'echo',
      description: 'Say the text back.',
      parameters: { type: 'object' },
      run: async () => ({})
    });
    const names = () => service.model.clientTools.offered().map(t => t.name);
    expect(names()).toEqual(['echo']);
    service.model.send('one');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    const first = service.current;
    library.create();
    expect(service.model).not.toBe(first.model);
    expect(names()).toEqual(['echo']);
    // Idle in the background: saved and released, then read back.
    await jest.advanceTimersByTimeAsync(0);
    expect(first.isDisposed).toBe(true);
    await library.open(first.id);
    expect(service.current.id).toBe(first.id);
    expect(names()).toEqual(['echo']);
  });

  it('keeps a turn running in the background: its frames land in its own conversation', async () => {
    const store = new FakeConversationStore();
    const { service, library, transports } = page(store);
    await library.start();
    service.model.send('slow question');
    const background = service.current;
    const transport = transports[transports.length - 1];
    transport.lastTurn.sink.frame(chunk('part 1 '));
    library.create();
    expect(transport.isDisposed).toBe(false);
    expect(library.items.find(i => i.id === background.id)?.status).toBe(
      'running'
    );
    transport.lastTurn.sink.frame(chunk('part 2'));
    transport.lastTurn.sink.frame(complete());
    expect(service.model.entries).toHaveLength(0);
    expect(turnText(background.model.entries[1])).toBe('part 1 part 2');
    // Idle in the background: saved, then released.
    await jest.advanceTimersByTimeAsync(0);
    expect(background.isDisposed).toBe(true);
    expect(transport.isDisposed).toBe(true);
    const stored = await store.get(background.id);
    expect(turnText(stored?.entries[1])).toBe('part 1 part 2');
    expect(stored?.status).toBe('idle');
    expect(library.items.find(i => i.id === background.id)?.status).toBe(
      'idle'
    );
  });

  it('renames, filters through the store, and deletes with the agent’s thread', async () => {
    const store = new FakeConversationStore();
    const { service, library, transports, threads } = page(store);
    await library.start();
    service.model.send('about apples');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    const apples = service.current.id;
    const applesThread = service.model.threadId;
    library.create().model.send('about pears');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(1000);

    await library.rename(apples, 'Fruit A');
    await jest.advanceTimersByTimeAsync(0);
    await library.refresh('fruit');
    expect(library.items.map(i => i.title)).toEqual(['Fruit A']);
    await library.refresh('pears');
    expect(library.items.map(i => i.title)).toEqual(['about pears']);
    await library.refresh('');

    await library.remove(apples);
    expect(store.has(apples)).toBe(false);
    expect(threads.forgotten).toEqual([`Alpha:${applesThread}`]);
    expect(library.items.map(i => i.title)).toEqual(['about pears']);
  });

  it('deleting the conversation shown stops its turn and shows a new one', async () => {
    const store = new FakeConversationStore();
    const { service, library, transports } = page(store);
    await library.start();
    service.model.send('running');
    const shown = service.current;
    const turn = transports[transports.length - 1].lastTurn;
    await library.remove(shown.id);
    expect(service.current).not.toBe(shown);
    expect(turn.stops).toBe(1);
    expect(store.has(shown.id)).toBe(false);
  });

  it('opens the conversation shown last on the next load', async () => {
    const store = new FakeConversationStore();
    const state = new MemoryState();
    const first = page(store, state);
    await first.library.start();
    first.service.model.send('remember me');
    first.transports[first.transports.length - 1].lastTurn.sink.frame(
      complete()
    );
    await jest.advanceTimersByTimeAsync(1000);
    expect(await state.fetch(LAST_SHOWN_KEY)).toBe(first.service.current.id);

    const second = page(store, state);
    expect(await second.library.start()).toEqual([]);
    expect(second.service.current.id).toBe(first.service.current.id);
    expect(second.service.model.threadId).toBe(first.service.model.threadId);

    // Deleted, it is not looked for at the next load.
    await second.library.remove(second.service.current.id);
    expect(state.has(LAST_SHOWN_KEY)).toBe(false);
  });

  it('a reload goes back to what this tab showed, before the workspace is saved', async () => {
    const store = new FakeConversationStore();
    const state = new MemoryState();
    const storage = new MemoryStorage();
    const first = page(store, state, storage);
    await first.library.start();
    first.service.model.send('older');
    first.transports[first.transports.length - 1].lastTurn.sink.frame(
      complete()
    );
    await jest.advanceTimersByTimeAsync(1000);
    const older = first.service.current.id;
    first.library.create();
    first.service.model.send('newer');
    first.transports[first.transports.length - 1].lastTurn.sink.frame(
      complete()
    );
    await jest.advanceTimersByTimeAsync(1000);
    const newer = first.service.current.id;
    // JupyterLab has not saved the workspace since the first conversation.
    await state.save(LAST_SHOWN_KEY, older);

    // Another tab (its own storage) goes by the workspace.
    const other = page(store, state, new MemoryStorage());
    await other.library.start();
    expect(other.service.current.id).toBe(older);
    const reloaded = page(store, state, storage);
    expect(await reloaded.library.start()).toEqual([]);
    expect(reloaded.service.current.id).toBe(newer);
  });

  it('restores the unload copy when it is newer than the store', async () => {
    const store = new FakeConversationStore();
    const state = new MemoryState();
    const storage = new MemoryStorage();
    const first = page(store, state, storage);
    await first.library.start();
    first.service.model.send('count');
    const turn = first.transports[first.transports.length - 1].lastTurn;
    turn.sink.frame(chunk('tick-1 '));
    await jest.advanceTimersByTimeAsync(1000);
    turn.sink.frame(chunk('tick-2'));
    // Nothing reaches the server once the page goes away.
    store.failPuts = 10;
    first.pageEvents.dispatchEvent(new Event('beforeunload'));
    turn.sink.end('connection to …/chat lost: network error');
    first.pageEvents.dispatchEvent(new Event('pagehide'));
    const id = first.service.current.id;
    expect(storage.getItem(unloadKey(id))).not.toBeNull();

    store.failPuts = 0;
    const second = page(store, state, storage);
    await second.library.start();
    const reopened = second.service.model.entries[1] as ITurnEntry;
    expect(turnText(reopened)).toBe('tick-1 tick-2');
    expect(reopened.interruptedByReload).toBe(true);
    expect(reopened.state.error).toBeNull();
    // The store gets the copy; the copy is then dropped.
    await jest.advanceTimersByTimeAsync(0);
    expect(turnText(store.entriesOf(id)[1])).toBe('tick-1 tick-2');
    expect(storage.getItem(unloadKey(id))).toBeNull();
  });

  it('moves the IStateDB snapshot and queue into the store once, then removes them', async () => {
    const old = new ChatModel('legacy-thread', trans);
    const transport = new FakeTransport();
    old.transport = transport;
    old.send('from the workspace');
    transport.lastTurn.sink.frame(chunk('kept'));
    transport.lastTurn.sink.frame(complete());
    const state = new MemoryState();
    await state.save(CHAT_STATE_KEY, snapshotOf(old));
    await state.save(QUEUE_STATE_KEY, {
      version: 1,
      items: [{ id: 'q1', text: 'later', context: null, queuedAt: 1 }]
    });
    const store = new FakeConversationStore();
    const { service, library } = page(store, state);
    expect(await library.start()).toEqual([]);
    expect(service.current.id).toBe('legacy-thread');
    expect(service.model.threadId).toBe('legacy-thread');
    expect(service.queue.items.map(i => i.text)).toEqual(['later']);
    const stored = await store.get('legacy-thread');
    expect(stored?.title).toBe('from the workspace');
    expect(stored?.entries).toHaveLength(2);
    expect(stored?.queue).toHaveLength(1);
    expect(state.has(CHAT_STATE_KEY)).toBe(false);
    expect(state.has(QUEUE_STATE_KEY)).toBe(false);

    // The next load opens it from the store, migrating nothing.
    const puts = store.puts.length;
    const again = page(store, state);
    await again.library.start();
    expect(again.service.current.id).toBe('legacy-thread');
    expect(store.puts.length).toBe(puts);
  });

  it('reports an IStateDB snapshot it cannot read and keeps working', async () => {
    const state = new MemoryState();
    await state.save(CHAT_STATE_KEY, { version: 2 });
    const { service, library } = page(new FakeConversationStore(), state);
    const problems = await library.start();
    expect(problems).toEqual([
      'the saved conversation was not moved to the server: the saved conversation has version 2, expected 1'
    ]);
    expect(service.model.entries).toEqual([]);
  });

  it('keeps the conversation in memory when the server has no store, and says so', async () => {
    const store = new FakeConversationStore();
    store.missing = true;
    const { service, library, transports } = page(store);
    await library.start();
    expect(library.unavailable).toBe(true);
    service.model.send('not lost');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(1000);
    expect(service.model.entries).toHaveLength(2);
    expect(library.items.map(i => i.title)).toEqual(['not lost']);
  });

  it('says so when the agent no longer remembers a conversation it opens', async () => {
    const store = new FakeConversationStore();
    const threads = new FakeThreads();
    const first = page(store, new MemoryState(), new MemoryStorage(), threads);
    await first.library.start();
    first.service.model.send('hi');
    first.transports[first.transports.length - 1].lastTurn.sink.frame(
      complete()
    );
    const id = first.service.current.id;
    first.library.create();
    await jest.advanceTimersByTimeAsync(0);

    threads.knownAnswer = true;
    await first.library.open(id);
    await jest.advanceTimersByTimeAsync(0);
    expect(first.service.current.notice).toBeNull();

    first.library.create();
    await jest.advanceTimersByTimeAsync(0);
    threads.knownAnswer = false;
    await first.library.open(id);
    await jest.advanceTimersByTimeAsync(0);
    expect(first.service.current.notice).toMatch(
      /^The agent no longer remembers this conversation/
    );
  });

  it('asks a transport that knows its memory (the kernel comm) instead of the server', async () => {
    const store = new FakeConversationStore();
    const threads = new FakeThreads();
    const { service, library, transports } = page(
      store,
      new MemoryState(),
      new MemoryStorage(),
      threads
    );
    const asked: IThreadRef[] = [];
    service.registerTransport('comm', () => {
      const transport = new FakeTransport();
      Object.assign(transport, {
        threadMemory: async (thread: IThreadRef) => {
          asked.push(thread);
          return false;
        }
      });
      transports.push(transport);
      return transport;
    });
    await library.start();
    service.selectEndpoint('Kernel');
    service.model.send('in the kernel');
    const turn = transports[transports.length - 1].lastTurn;
    turn.sink.remember?.({ kernelId: 'k1' });
    turn.sink.frame(complete());
    const id = service.current.id;
    library.create();
    await jest.advanceTimersByTimeAsync(0);
    await library.open(id);
    await jest.advanceTimersByTimeAsync(0);
    expect(asked).toMatchObject([{ memory: { kernelId: 'k1' } }]);
    expect(service.current.notice).toMatch(/no longer remembers/);
  });
});

describe('a conversation another tab answers in (issue 34)', () => {
  /** Tab A streams a turn; tab B, on the same store, opens the conversation. */
  async function twoTabs() {
    const store = new FakeConversationStore();
    const a = page(store);
    await a.library.start();
    a.service.model.send('slow question');
    const turn = a.transports[a.transports.length - 1].lastTurn;
    turn.sink.frame(chunk('part 1 '));
    await jest.advanceTimersByTimeAsync(1000);
    const id = a.service.current.id;
    const b = page(store, new MemoryState(), new MemoryStorage());
    await b.library.start();
    await b.library.open(id);
    const shown = () => b.service.model.entries[1] as ITurnEntry;
    return { store, a, b, turn, id, shown };
  }

  it('shows as still answering there, follows what it saves, and ends as it ends', async () => {
    const { store, turn, id, shown, b } = await twoTabs();
    expect(turnText(shown())).toBe('part 1 ');
    expect(shown().runningElsewhere).toBe(true);
    expect(shown().interruptedByReload).toBeFalsy();
    // B leaves the store to A: its status and A's turn as A saves them.
    expect((await store.get(id))?.status).toBe('running');
    const cutByB = () =>
      store.puts.some(put => JSON.stringify(put.update).includes('cancelled'));

    turn.sink.frame(chunk('part 2'));
    await jest.advanceTimersByTimeAsync(2500);
    expect(turnText(shown())).toBe('part 1 part 2');
    expect(shown().runningElsewhere).toBe(true);
    expect((await store.get(id))?.status).toBe('running');

    turn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(2500);
    expect(turnText(shown())).toBe('part 1 part 2');
    expect(shown().runningElsewhere).toBeFalsy();
    expect(shown().state.outcome).toBe('complete');
    expect(b.service.model.status).toBe('idle');
    expect((await store.get(id))?.status).toBe('idle');
    expect(turnText(store.entriesOf(id)[1])).toBe('part 1 part 2');
    expect(cutByB()).toBe(false);
  });

  it("a tab's own reload mid-turn shows its turn interrupted at once, not as answering elsewhere", async () => {
    const store = new FakeConversationStore();
    const state = new MemoryState();
    const storage = new MemoryStorage();
    const first = page(store, state, storage);
    await first.library.start();
    first.service.model.send('slow question');
    const turn = first.transports[first.transports.length - 1].lastTurn;
    turn.sink.frame(chunk('part 1 '));
    await jest.advanceTimersByTimeAsync(1000);
    // The store has everything: no unload copy is newer.
    first.pageEvents.dispatchEvent(new Event('pagehide'));
    const again = page(store, state, storage);
    await again.library.start();
    const reopened = again.service.model.entries[1] as ITurnEntry;
    expect(turnText(reopened)).toBe('part 1 ');
    expect(reopened.interruptedByReload).toBe(true);
    expect(reopened.runningElsewhere).toBeFalsy();
  });

  it('a turn whose tab went away without a word is shown interrupted after a while, and no longer running', async () => {
    const { store, a, id, shown } = await twoTabs();
    // Tab A is gone (its timers too): nothing more is saved.
    a.library.dispose();
    a.service.dispose();
    store.failPuts = 100;
    await jest.advanceTimersByTimeAsync(100);
    store.failPuts = 0;
    expect(shown().runningElsewhere).toBe(true);
    await jest.advanceTimersByTimeAsync(12000);
    expect(shown().runningElsewhere).toBeFalsy();
    expect(shown().interruptedByReload).toBe(true);
    expect((await store.get(id))?.status).toBe('idle');
  });
});

describe('a conversation shown idle in two tabs (issue 34)', () => {
  /** Tab A ran one turn in a conversation; tab B opened it too. */
  async function bothShowing() {
    const store = new FakeConversationStore();
    const a = page(store);
    await a.library.start();
    a.service.model.send('first');
    const first = a.transports[a.transports.length - 1].lastTurn;
    first.sink.frame(chunk('one'));
    first.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(1000);
    const id = a.service.current.id;
    const b = page(store, new MemoryState(), new MemoryStorage());
    await b.library.start();
    await b.library.open(id);
    expect(b.service.model.entries).toHaveLength(2);
    return { store, a, b, id };
  }

  it('shows the turn the other tab runs next, as it streams there, and how it ended', async () => {
    const { store, a, b, id } = await bothShowing();
    a.service.model.send('second');
    const turn = a.transports[a.transports.length - 1].lastTurn;
    turn.sink.frame(chunk('two '));
    await jest.advanceTimersByTimeAsync(4000);

    const shown = () => b.service.model.entries;
    expect(shown()).toHaveLength(4);
    expect(shown()[2]).toMatchObject({ kind: 'user', text: 'second' });
    expect(turnText(shown()[3])).toBe('two ');
    expect((shown()[3] as ITurnEntry).runningElsewhere).toBe(true);
    expect(b.service.model.status).toBe('idle');

    turn.sink.frame(chunk('done'));
    turn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(4000);
    expect(turnText(shown()[3])).toBe('two done');
    expect((shown()[3] as ITurnEntry).runningElsewhere).toBeFalsy();
    expect((shown()[3] as ITurnEntry).state.outcome).toBe('complete');
    expect((await store.get(id))?.status).toBe('idle');
    expect(store.entriesOf(id)).toHaveLength(4);
  });

  it('asks the store a cheap question while nothing changes, and writes nothing back', async () => {
    const { store, b, id } = await bothShowing();
    const entries = b.service.model.entries;
    const puts = store.puts.length;
    const asked = store.since.length;
    const revision = (await store.get(id))!.revision;

    await jest.advanceTimersByTimeAsync(10000);
    expect(store.since.length - asked).toBeGreaterThanOrEqual(3);
    expect(store.since.slice(asked).every(r => r === revision)).toBe(true);
    expect(b.service.model.entries).toBe(entries);
    expect(store.puts.length).toBe(puts);
  });

  it("shows the other tab's new title without saving it again", async () => {
    const { store, a, b, id } = await bothShowing();
    await a.library.rename(id, 'Renamed there');
    await jest.advanceTimersByTimeAsync(4000);
    expect(b.service.current.title).toBe('Renamed there');
    await jest.advanceTimersByTimeAsync(4000);
    expect(
      store.puts.filter(put => put.update.title === 'Renamed there')
    ).toHaveLength(1);
  });

  it("leaves a review the other tab's handlers answer to that tab", async () => {
    const { a, b } = await bothShowing();
    const decided: (string | null)[] = [];
    const handler = {
      handles: () => true,
      decide: async (action: { name: string | null }) => {
        decided.push(action.name);
        return { type: 'approve' as const };
      }
    };
    a.service.registerInterruptHandler({
      handles: () => true,
      decide: () => new Promise(() => undefined)
    });
    b.service.registerInterruptHandler(handler);
    a.service.model.send('change the notebook');
    const turn = a.transports[a.transports.length - 1].lastTurn;
    turn.sink.frame(
      frame({
        status: 'interrupt',
        interrupt: {
          action_requests: [{ name: 'insert_cell', args: {} }],
          review_configs: [
            { action_name: 'insert_cell', allowed_decisions: ['respond'] }
          ]
        }
      })
    );
    turn.sink.frame(complete('interrupted'));
    await jest.advanceTimersByTimeAsync(4000);
    expect(b.service.model.entries).toHaveLength(4);
    expect(b.service.model.status).toBe('awaiting-decision');
    expect(decided).toEqual([]);
  });

  it('leaves alone a tab that has something of its own under way', async () => {
    const { a, b } = await bothShowing();
    b.service.model.send('mine');
    a.service.model.send('theirs');
    await jest.advanceTimersByTimeAsync(4000);
    expect(
      b.service.model.entries
        .filter(entry => entry.kind === 'user')
        .map(entry => (entry as { text: string }).text)
    ).toEqual(['first', 'mine']);
  });
});

describe("a deployment's threads", () => {
  const withThreads = (
    threads: FakeThreads,
    store = new FakeConversationStore()
  ) => page(store, new MemoryState(), new MemoryStorage(), threads);
  const LAPTOP = '7f1c2a9e-0d2b-4c55-9d8e-2b7a3f1e6c01';
  const thread = (over: Partial<IAgentThread> = {}): IAgentThread => ({
    threadId: LAPTOP,
    // eslint-disable-next-line jupyter/no-untranslated-string -- test data
    title: 'Plan the week',
    createdAt: 1000,
    updatedAt: Date.now() + 60_000,
    status: 'idle',
    ...over
  });
  const history = (frames: unknown[]): IThreadHistory => ({
    ...thread(),
    turns: [
      {
        message: 'plan the week',
        frames: [
          {
            status: 'streaming',
            tool_calls: [{ name: 'calendar', args: {}, id: 'c1' }]
          },
          {
            status: 'streaming',
            tool_result: 'free all week',
            id: 'c1',
            name: 'calendar',
            tool_status: 'success'
          },
          ...frames
        ]
      }
    ]
  });

  it('are listed when the store lacks them, and open from their history into the store', async () => {
    const store = new FakeConversationStore();
    const threads = new FakeThreads();
    threads.listed.set('Alpha', [thread()]);
    threads.histories.set(
      LAPTOP,
      history([{ status: 'streaming', chunk: 'Monday: gym' }, complete()])
    );
    const { service, library } = withThreads(threads, store);
    await library.start();
    // The first is the deployment's; the second, the empty conversation shown.
    expect(library.items).toMatchObject([
      {
        id: LAPTOP,
        // eslint-disable-next-line jupyter/no-untranslated-string -- test data
        title: 'Plan the week',
        endpointName: 'Alpha',
        status: 'idle',
        current: false
      },
      { title: '', current: true }
    ]);

    await library.open(LAPTOP);
    await jest.advanceTimersByTimeAsync(0);

    const [user, turn] = service.current.model.entries;
    expect(user).toMatchObject({ kind: 'user', text: 'plan the week' });
    expect((turn as ITurnEntry).state.outcome).toBe('complete');
    expect((turn as ITurnEntry).state.items.map(item => item.kind)).toEqual([
      'tool',
      'text'
    ]);
    expect(((turn as ITurnEntry).state.items[1] as ITextBlock).text).toBe(
      'Monday: gym'
    );
    expect(service.current.model.threadId).toBe(LAPTOP);
    expect(service.current.model.endpointName).toBe('Alpha');
    const stored = await store.get(LAPTOP);
    expect(stored).toMatchObject({
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data
      title: 'Plan the week',
      threadId: LAPTOP,
      entryCount: 2
    });
    await library.refresh();
    expect(library.items.filter(i => i.id === LAPTOP)).toHaveLength(1);
  });

  it('that the store has are listed once, as the store keeps them', async () => {
    const store = new FakeConversationStore();
    const threads = new FakeThreads();
    const { service, library, transports } = withThreads(threads, store);
    await library.start();
    service.model.send('kept here');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(1000);
    threads.listed.set('Alpha', [
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data
      thread({ threadId: service.model.threadId, title: 'renamed elsewhere' })
    ]);

    await library.refresh();

    expect(library.items.map(i => i.title)).toEqual(['kept here']);
    expect(library.items[0].id).toBe(service.current.id);
  });

  it('with a review waiting open with the review to answer', async () => {
    const threads = new FakeThreads();
    threads.listed.set('Alpha', [thread({ status: 'interrupted' })]);
    const review = {
      action_requests: [{ name: 'publish', args: {}, description: 'Publish?' }],
      review_configs: [
        { action_name: 'publish', allowed_decisions: ['approve', 'reject'] }
      ],
      allowed_decisions: ['approve', 'reject']
    };
    threads.histories.set(
      LAPTOP,
      history([
        { status: 'interrupt', interrupt: review },
        { status: 'complete', outcome: 'interrupted' }
      ])
    );
    const { service, library } = withThreads(threads);
    await library.start();
    expect(library.items[0].status).toBe('review');

    await library.open(LAPTOP);

    expect(service.current.model.status).toBe('awaiting-decision');
  });

  it('are retitled and deleted with their conversation, and filtered by title', async () => {
    const threads = new FakeThreads();
    threads.listed.set('Alpha', [thread()]);
    const { library } = withThreads(threads);
    await library.start();

    await library.rename(LAPTOP, 'Weekly plan');
    expect(threads.retitled).toEqual([`Alpha:${LAPTOP}:Weekly plan`]);
    expect(library.items[0].title).toBe('Weekly plan');
    await library.refresh('nothing like it');
    expect(library.items).toEqual([]);
    await library.refresh('week');
    expect(library.items.map(i => i.id)).toEqual([LAPTOP]);

    await library.remove(LAPTOP);
    expect(threads.forgotten).toEqual([`Alpha:${LAPTOP}`]);
    expect(library.items).toEqual([]);
  });

  it("that cannot be listed leave the store's conversations listed", async () => {
    const warn = jest
      .spyOn(console, 'warn')
      .mockImplementation(() => undefined);
    const store = new FakeConversationStore();
    const threads = new FakeThreads();
    threads.listFailure = new Error('the deployment is down');
    const { service, library, transports } = withThreads(threads, store);
    await library.start();
    service.model.send('still here');
    transports[transports.length - 1].lastTurn.sink.frame(complete());
    await jest.advanceTimersByTimeAsync(1000);

    await library.refresh();

    expect(library.items.map(i => i.id)).toEqual([service.current.id]);
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('the deployment is down')
    );
    warn.mockRestore();
  });

  it('with a run in flight open up to that run: its message, and no turn yet', async () => {
    const threads = new FakeThreads();
    threads.listed.set('Alpha', [thread({ status: 'busy' })]);
    threads.histories.set(LAPTOP, {
      ...history([complete()]),
      turns: [
        ...history([complete()]).turns,
        { message: 'and the next week', frames: [] }
      ]
    });
    const { service, library } = withThreads(threads);
    await library.start();
    expect(library.items[0].status).toBe('running');

    await library.open(LAPTOP);

    expect(service.current.model.entries.map(entry => entry.kind)).toEqual([
      'user',
      'turn',
      'user'
    ]);
  });

  it('gone from the deployment cannot be opened, and say so', async () => {
    const threads = new FakeThreads();
    threads.listed.set('Alpha', [thread()]);
    const { library } = withThreads(threads);
    await library.start();

    await expect(library.open(LAPTOP)).rejects.toThrow('no longer kept');
  });
});
