/**
 * What keeps the panel bounded and honest under faults: the SSE event size
 * limit, the reducer's note limit (and no block limit: every character is
 * kept), a resume refused because the review was answered elsewhere, and
 * the conversation copy kept at unload.
 */
import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { ConversationSession } from '../../model/conversation/session';
import { readConversation } from '../../model/persistence/reading';
import { ConversationSaver, unloadKey } from '../../model/persistence/saver';
import { ReviewCardView } from '../../panel/review/review-card';
import { ChunkWireHttpTransport } from '../../transport/http/http';
import { MAX_EVENT_CHARS, readSse } from '../../transport/http/sse';
import type { ITurnSink, TurnRefusal } from '../../wire/turn';
import { TurnReducer } from '../../wire/reduce';
import {
  MAX_DIAGNOSTICS,
  type IInterruptCard,
  type ITextBlock,
  type IToolCard
} from '../../wire/types';
import {
  chunk,
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';
import { FakeConversationStore, MemoryStorage } from '../support/store-fakes';
import { fakeBody, toBytes } from '../support/wire-harness';

async function events(
  reads: string[],
  maxEventChars: number
): Promise<{ data: string[]; problems: string[] }> {
  const data: string[] = [];
  const problems: string[] = [];
  await readSse(
    fakeBody(reads.map(toBytes)),
    item => data.push(item),
    undefined,
    problem => problems.push(problem),
    { maxEventChars }
  );
  return { data, problems };
}

describe('the SSE event size limit', () => {
  it('is 16 MiB by default, room for large AG-UI snapshots', () => {
    expect(MAX_EVENT_CHARS).toBe(16 * 1024 * 1024);
  });

  it('drops an event over the limit, says so, and reads on', async () => {
    const big = 'x'.repeat(500);
    const { data, problems } = await events(
      [
        `data: before\n\ndata: ${big.slice(0, 200)}`,
        `${big}\n\ndata: after\n\n`
      ],
      100
    );
    expect(data).toEqual(['before', 'after']);
    expect(problems).toEqual([
      "dropped an event of more than 100 characters (the panel's limit for one event)"
    ]);
  });

  it('drops the rest of the line too when the limit falls inside it', async () => {
    const { data } = await events(
      [
        'data: ' + 'y'.repeat(150),
        'y'.repeat(50),
        'data: not a field\n\ndata: ok\n\n'
      ],
      100
    );
    // "data: not a field" is the dropped line's tail, not a line of its own.
    expect(data).toEqual(['ok']);
  });

  it('counts the lines of one event together', async () => {
    const line = `data: ${'z'.repeat(40)}\n`;
    const { data, problems } = await events(
      [line, line, line, '\ndata: ok\n\n'],
      100
    );
    expect(data).toEqual(['ok']);
    expect(problems).toHaveLength(1);
  });

  it('delivers an event just under the limit', async () => {
    const { data, problems } = await events(
      [`data: ${'w'.repeat(90)}\n\n`],
      100
    );
    expect(data).toEqual(['w'.repeat(90)]);
    expect(problems).toEqual([]);
  });
});

describe('the reducer limits', () => {
  // The requirement changed (issue 21): a block used to be cut at 1,000,000
  // characters; now nothing received is dropped, however long the block.
  const MILLION = 1_000_000;

  it('keeps every character of a text block past a million, with no note', () => {
    const reducer = new TurnReducer();
    reducer.apply(chunk('a'.repeat(MILLION - 3), { message_id: 'm' }));
    const changes = reducer.apply(chunk('bcdef', { message_id: 'm' }));
    const block = reducer.state.items[0] as ITextBlock;
    expect(block.text).toBe('a'.repeat(MILLION - 3) + 'bcdef');
    expect(changes.map(change => change.type)).toEqual(['updated']);
    reducer.apply(chunk('more', { message_id: 'm' }));
    expect(block.text).toBe('a'.repeat(MILLION - 3) + 'bcdefmore');
    expect(reducer.state.items).toHaveLength(1);
    expect(reducer.state.diagnostics).toEqual([]);
  });

  it('keeps a single 10 MB delta whole', () => {
    const reducer = new TurnReducer();
    const huge = 'r'.repeat(10e6 - 1) + 'Z';
    reducer.apply(frame({ status: 'streaming', reasoning: huge }));
    reducer.apply(complete());
    const block = reducer.state.items[0] as ITextBlock;
    expect(block.text.length).toBe(10e6);
    expect(block.text).toBe(huge);
    expect(reducer.state.outcome).toBe('complete');
    expect(reducer.state.diagnostics).toEqual([]);
  });

  it('keeps a surrogate pair where the old cut was whole', () => {
    const reducer = new TurnReducer();
    reducer.apply(chunk('a'.repeat(MILLION - 1) + '😀'));
    const text = (reducer.state.items[0] as ITextBlock).text;
    expect(text).toBe('a'.repeat(MILLION - 1) + '😀');
  });

  it('keeps a tool result string of any length', () => {
    const reducer = new TurnReducer();
    const result = 'x'.repeat(MILLION + 10);
    reducer.apply(
      frame({
        status: 'streaming',
        tool_result: result,
        id: null
      })
    );
    const card = reducer.state.items[0] as IToolCard;
    expect(card.result).toBe(result);
  });

  it('keeps the first notes and only counts the rest, without a change each', () => {
    const reducer = new TurnReducer();
    for (let i = 0; i < MAX_DIAGNOSTICS; i++) {
      expect(reducer.diagnostic(`note ${i}`)).toHaveLength(1);
    }
    expect(reducer.diagnostic('one more')).toEqual([
      { type: 'diagnostic', message: '1 more stream notes were not kept' }
    ]);
    let changes = 0;
    for (let i = 0; i < 50_000; i++) {
      changes += reducer.diagnostic('and more').length;
    }
    expect(changes).toBe(0);
    const notes = reducer.state.diagnostics;
    expect(notes).toHaveLength(MAX_DIAGNOSTICS + 1);
    expect(notes[0]).toBe('note 0');
    expect(notes[MAX_DIAGNOSTICS]).toBe(
      '50001 more stream notes were not kept'
    );
  });
});

const ASK = frame({
  status: 'interrupt',
  interrupt: {
    action_requests: [{ action: 'ask_user', args: { question: 'Name?' } }],
    review_configs: [],
    allowed_decisions: ['respond', 'approve']
  }
});

/** A fetch answering every request with one canned response. */
function answering(
  status: number,
  body: string
): {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  urls: string[];
} {
  const urls: string[] = [];
  const fetch = async (url: string) => {
    urls.push(url);
    return {
      ok: status >= 200 && status < 300,
      status,
      statusText: status === 409 ? 'Conflict' : '',
      headers: { get: () => 'application/json' },
      text: async () => body
    } as unknown as Response;
  };
  return { fetch, urls };
}

describe('a resume refused because the review was answered elsewhere', () => {
  async function endOf(
    status: number,
    body: string
  ): Promise<[string | undefined, TurnRefusal | undefined]> {
    const { fetch } = answering(status, body);
    const transport = new ChunkWireHttpTransport({
      baseUrl: 'http://agent.test/agent-panel/',
      fetch,
      connectTimeoutMs: 1000,
      idleTimeoutMs: 0
    });
    let ended: [string | undefined, TurnRefusal | undefined] | null = null;
    const sink: ITurnSink = {
      frame: () => undefined,
      diagnostic: () => undefined,
      end: (reason, refusal) => {
        ended = [reason, refusal];
      }
    };
    await transport.startTurn(
      { kind: 'resume', threadId: 't', decisions: [{ type: 'approve' }] },
      sink
    ).done;
    transport.dispose();
    if (!ended) {
      throw new Error('the turn finished without ending its sink');
    }
    return ended;
  }

  it('HTTP 409 nothing_pending ends the turn naming the URL and the refusal', async () => {
    const message = 'This review was already answered (in another tab).';
    expect(
      await endOf(409, JSON.stringify({ reason: 'nothing_pending', message }))
    ).toEqual([
      `HTTP 409 Conflict from http://agent.test/agent-panel/resume: ${message}`,
      'nothing_pending'
    ]);
  });

  it('HTTP 409 busy ends the turn with its refusal; other refusals carry none', async () => {
    const message = "A turn is already running on thread 't'";
    expect(
      await endOf(409, JSON.stringify({ reason: 'busy', message }))
    ).toEqual([
      `HTTP 409 Conflict from http://agent.test/agent-panel/resume: ${message}`,
      'busy'
    ]);
    const [reason, refusal] = await endOf(
      409,
      JSON.stringify({ reason: 'conflict', message: 'something else' })
    );
    expect(reason).toContain('something else');
    expect(refusal).toBeUndefined();
    expect((await endOf(500, '<html>oops</html>'))[1]).toBeUndefined();
  });

  it('a message refused because another tab is answering says so in words, and can be sent again', () => {
    const model = new ChatModel('thread', trans);
    const transport = new FakeTransport();
    model.transport = transport;
    model.send('me too');
    transport.lastTurn.sink.end(
      "HTTP 409 Conflict from …/chat: A turn is already running on thread 'thread'",
      'busy'
    );
    const turn = model.entries[1] as ITurnEntry;
    expect(turn.state.outcome).toBe('error');
    expect(turn.state.error?.message).toBe(
      'The agent is already answering in this conversation, in another tab or window: wait for that answer, then send again.'
    );
    expect(model.status).toBe('idle');
    model.retry();
    expect(transport.turns).toHaveLength(2);
    model.dispose();
  });

  it('marks the cards answered elsewhere, and the card says so', () => {
    const model = new ChatModel('thread', trans);
    const transport = new FakeTransport();
    model.transport = transport;
    model.send('ask me');
    transport.lastTurn.sink.frame(ASK);
    transport.lastTurn.sink.frame(complete('interrupted'));
    transport.lastTurn.sink.end();
    const card = (model.entries[1] as ITurnEntry).state
      .items[0] as IInterruptCard;
    const view = new ReviewCardView(trans, () => true);
    view.update(card);
    model.turnChanged.connect((_, update) => {
      for (const change of update.changes) {
        if (change.type === 'updated' && change.item === card) {
          view.update(card);
        }
      }
    });

    model.answer([{ type: 'approve' }]);
    expect(view.widget.node.dataset.state).toBe('answered');
    transport.lastTurn.sink.end(
      'HTTP 409 Conflict from …/resume: already answered',
      'nothing_pending'
    );

    expect(card.answeredElsewhere).toBe(true);
    expect(view.widget.node.dataset.state).toBe('answered-elsewhere');
    expect(view.widget.node.textContent).toContain(
      'Already answered elsewhere (in another tab or window)'
    );
    const resume = model.entries[2] as ITurnEntry;
    expect(resume.state.outcome).toBe('error');
    expect(resume.state.error?.message).toContain('already answered');
    expect(model.status).toBe('idle');
    view.dispose();
    model.dispose();
  });
});

describe('the conversation copy kept at unload', () => {
  /** A conversation `c1` saved in `store`, with a copy at unload in `storage`. */
  function saving(store: FakeConversationStore, storage: MemoryStorage) {
    const page = new EventTarget();
    const model = new ChatModel('thread', trans);
    const transport = new FakeTransport();
    model.transport = transport;
    const session = new ConversationSession('c1', model, trans);
    const saver = new ConversationSaver(session, store, {
      saveDelayMs: 60_000,
      unloadStore: storage,
      page
    });
    saver.markStored([]);
    return { page, model, transport, session, saver };
  }

  /** The page reloads: what it opens of `c1`. */
  async function reopen(store: FakeConversationStore, storage: MemoryStorage) {
    const read = readConversation(
      await store.get('c1'),
      storage.getItem(unloadKey('c1'))
    );
    const reloaded = new ChatModel(undefined, trans);
    reloaded.restore(read!.restore);
    return { reloaded, problems: read!.problems };
  }

  it('writes on pagehide what came after the last save, and restores the newer copy', async () => {
    const store = new FakeConversationStore();
    const storage = new MemoryStorage();
    const { page, model, transport, session, saver } = saving(store, storage);
    model.send('count');
    transport.lastTurn.sink.frame(chunk('tick-1 '));
    await saver.flush();
    transport.lastTurn.sink.frame(chunk('tick-2 '));
    transport.lastTurn.sink.frame(chunk('tick-3'));
    page.dispatchEvent(new Event('pagehide'));
    saver.dispose();
    session.dispose();

    // The page reloads: the store's copy stops at tick-1.
    const { reloaded, problems } = await reopen(store, storage);
    expect(problems).toEqual([]);
    const turn = reloaded.entries[1] as ITurnEntry;
    expect((turn.state.items[0] as ITextBlock).text).toBe(
      'tick-1 tick-2 tick-3'
    );
    expect(turn.interruptedByReload).toBe(true);
    reloaded.dispose();
  });

  it('keeps the turn the unload cut off running, so the reload marks it interrupted', async () => {
    const store = new FakeConversationStore();
    const storage = new MemoryStorage();
    const { page, model, transport, session, saver } = saving(store, storage);
    model.send('first');
    transport.lastTurn.sink.end('HTTP 500 from …/chat: a real failure');
    model.send('second');
    transport.lastTurn.sink.frame(chunk('partial'));
    page.dispatchEvent(new Event('beforeunload'));
    // The browser cuts the connection while the page goes away.
    transport.lastTurn.sink.end('connection to …/chat lost: network error');
    // The save of the failure reaches the store before the page goes.
    await saver.flush();
    page.dispatchEvent(new Event('pagehide'));
    saver.dispose();
    session.dispose();

    const { reloaded } = await reopen(store, storage);
    const [first, second] = reloaded.entries.filter(
      (entry): entry is ITurnEntry => entry.kind === 'turn'
    );
    expect(first.state.error?.message).toBe(
      'HTTP 500 from …/chat: a real failure'
    );
    expect(second.state.outcome).toBe('cancelled');
    expect(second.state.error).toBeNull();
    expect(second.interruptedByReload).toBe(true);
    expect((second.state.items[0] as ITextBlock).text).toBe('partial');
    reloaded.dispose();
  });

  it('prefers the store when another tab saved it later', async () => {
    const store = new FakeConversationStore();
    const storage = new MemoryStorage();
    storage.setItem(
      unloadKey('c1'),
      JSON.stringify({ version: 1, threadId: 'old', entries: [], savedAt: 1 })
    );
    await store.put('c1', {
      threadId: 'new',
      endpointName: null,
      status: 'idle',
      entries: []
    });
    const { reloaded } = await reopen(store, storage);
    expect(reloaded.threadId).toBe('new');
    reloaded.dispose();
  });

  it('reports an unreadable copy and restores the store’s', async () => {
    const store = new FakeConversationStore();
    const storage = new MemoryStorage();
    storage.setItem(unloadKey('c1'), '{not json');
    await store.put('c1', {
      threadId: 'kept',
      endpointName: null,
      status: 'idle',
      entries: []
    });
    const { reloaded, problems } = await reopen(store, storage);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^the copy kept at unload is not JSON/);
    expect(reloaded.threadId).toBe('kept');
    reloaded.dispose();
  });
});
