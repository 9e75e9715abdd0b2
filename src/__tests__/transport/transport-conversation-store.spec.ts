/**
 * The store and thread-route clients: the requests they make, the answers
 * they read, and a server without the routes told apart from an unknown
 * conversation.
 */
import type { ServerConnection } from '@jupyterlab/services';
import { parseSettings } from '../../contracts/settings';
import { serverAgentThreads } from '../../transport/server/agent-threads';
import {
  BODY_SLICE_CHARS,
  ConversationStoreClient,
  requestBody,
  StoreUnavailableError
} from '../../transport/server/conversation-store';

/** What a Blob holds, as text (jsdom's Blob has no `text()`). */
function blobText(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(blob);
  });
}

interface ICall {
  url: string;
  init: RequestInit;
}

function answering(...answers: [number, unknown][]): {
  calls: ICall[];
  fetch: (url: string, init: RequestInit) => Promise<Response>;
} {
  const calls: ICall[] = [];
  return {
    calls,
    fetch: async (url, init) => {
      calls.push({ url, init });
      const [status, body] = answers.shift() ?? [500, 'no answer left'];
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      return new Response(status === 204 ? null : text, { status });
    }
  };
}

const BASE = 'http://lab.example.org/user/ada/agent-panel/conversations';
const SUMMARY = {
  id: 'c1',
  // eslint-disable-next-line jupyter/no-untranslated-string -- test data: a stored title
  title: 'First',
  threadId: 't1',
  endpointName: 'Alpha',
  status: 'review',
  createdAt: 1,
  updatedAt: 2,
  revision: 3,
  entryCount: 4
};

describe('ConversationStoreClient', () => {
  it('lists, filtered by q, and reads the summaries', async () => {
    const { calls, fetch } = answering([200, { conversations: [SUMMARY] }]);
    const store = new ConversationStoreClient(BASE, fetch);
    expect(await store.list('été & co')).toEqual([SUMMARY]);
    expect(calls[0].url).toBe(`${BASE}?q=%C3%A9t%C3%A9%20%26%20co`);
    expect(calls[0].init.method).toBe('GET');
  });

  it('puts an update as JSON and reads the revision', async () => {
    const { calls, fetch } = answering([200, { revision: 5, updatedAt: 9 }]);
    const store = new ConversationStoreClient(BASE, fetch);
    const update = {
      threadId: 't1',
      endpointName: null,
      status: 'idle' as const,
      entries: [{ key: 'k1', kind: 'user' }]
    };
    expect(await store.put('c1', update)).toEqual({
      revision: 5,
      updatedAt: 9
    });
    expect(calls[0].url).toBe(`${BASE}/c1`);
    expect(calls[0].init.method).toBe('PUT');
    expect(JSON.parse(String(calls[0].init.body))).toEqual(update);
  });

  it('sends a long update as a Blob encoded a slice per task, every character kept', async () => {
    const { calls, fetch } = answering([200, { revision: 6, updatedAt: 10 }]);
    const store = new ConversationStoreClient(BASE, fetch);
    // Over two slices, astral characters ("𝑥": a surrogate pair) across every cut.
    const text = '𝑥a'.repeat(BODY_SLICE_CHARS);
    const update = {
      threadId: 't1',
      endpointName: null,
      status: 'idle' as const,
      entries: [{ key: 'k1', kind: 'turn', text }]
    };
    const timers = jest.spyOn(window, 'setTimeout');
    try {
      await store.put('c1', update);
      const body = calls[0].init.body;
      expect(body).toBeInstanceOf(Blob);
      expect(JSON.parse(await blobText(body as Blob))).toEqual(update);
      // One task per slice after the first.
      const slices = Math.ceil(
        JSON.stringify(update).length / BODY_SLICE_CHARS
      );
      expect(timers.mock.calls.filter(([, ms]) => ms === 0)).toHaveLength(
        slices - 1
      );
    } finally {
      timers.mockRestore();
    }
  });

  it('keeps a surrogate pair whole where a slice ends', async () => {
    // The cut after 3 characters falls inside the pair: it moves before it.
    const json = JSON.stringify('a𝑥b𝑥c');
    const body = await requestBody(json, 3);
    expect(body).toBeInstanceOf(Blob);
    expect(await blobText(body as Blob)).toBe(json);
    expect(await requestBody('"short"', 3 * 1024)).toBe('"short"');
  });

  it('gets a conversation, null when the store does not have it', async () => {
    const { fetch } = answering(
      [
        200,
        {
          ...SUMMARY,
          entries: [{ key: 'k' }],
          transportMemory: null,
          queue: []
        }
      ],
      [404, { message: 'No conversation c2', reason: 'not_found' }]
    );
    const store = new ConversationStoreClient(BASE, fetch);
    expect((await store.get('c1'))?.entries).toEqual([{ key: 'k' }]);
    expect(await store.get('c2')).toBeNull();
  });

  it('asks whether a conversation changed since a revision: unchanged, the whole of it, or gone', async () => {
    const { calls, fetch } = answering(
      [204, null],
      [200, { ...SUMMARY, entries: [{ key: 'k' }], transportMemory: null }],
      [404, { message: 'No conversation c1', reason: 'not_found' }],
      [404, '<html>404: Not Found</html>']
    );
    const store = new ConversationStoreClient(BASE, fetch);
    expect(await store.getIfChanged('c1', 3)).toBe('unchanged');
    const changed = await store.getIfChanged('c1', 2);
    expect(changed !== 'unchanged' && changed?.entries).toEqual([{ key: 'k' }]);
    expect(await store.getIfChanged('c1', 3)).toBeNull();
    await expect(store.getIfChanged('c1', 3)).rejects.toBeInstanceOf(
      StoreUnavailableError
    );
    expect(calls.map(call => call.url)).toEqual([
      `${BASE}/c1?since=3`,
      `${BASE}/c1?since=2`,
      `${BASE}/c1?since=3`,
      `${BASE}/c1?since=3`
    ]);
  });

  it('tells a server without the routes from an unknown conversation', async () => {
    const { fetch } = answering([404, '<html>404: Not Found</html>']);
    const store = new ConversationStoreClient(BASE, fetch);
    await expect(store.list()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('names the route and the server’s message when a save is refused', async () => {
    const { fetch } = answering([
      413,
      { message: 'The body is over 256 MiB', reason: 'too_large' }
    ]);
    const store = new ConversationStoreClient(BASE, fetch);
    await expect(
      store.put('c1', { threadId: 't', endpointName: null, status: 'idle' })
    ).rejects.toThrow(`${BASE}/c1 answered 413: The body is over 256 MiB`);
  });

  it('renames with PATCH and deletes (already gone is fine)', async () => {
    const { calls, fetch } = answering(
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data: a stored title
      [200, { ...SUMMARY, title: 'New' }],
      [204, null],
      [404, { message: 'gone', reason: 'not_found' }]
    );
    const store = new ConversationStoreClient(BASE, fetch);
    expect((await store.rename('c1', 'New')).title).toBe('New');
    await store.remove('c1');
    await store.remove('c1');
    expect(calls.map(c => c.init.method)).toEqual([
      'PATCH',
      'DELETE',
      'DELETE'
    ]);
  });
});

describe('serverAgentThreads', () => {
  const serverSettings = {
    baseUrl: 'http://lab.example.org/user/ada/'
  } as ServerConnection.ISettings;
  const endpoints = parseSettings({
    endpoints: [
      { name: 'Default', transport: 'http', url: 'agent-panel/' },
      { name: 'Named', transport: 'http', url: 'agent-panel/agents/research/' },
      {
        name: 'Elsewhere',
        transport: 'http',
        url: 'https://agents.example.org/'
      },
      { name: 'Remote', transport: 'agui', url: 'agent-panel/agents/research/' }
    ]
  }).settings.endpoints;
  const [own, named, elsewhere, agui] = endpoints;

  it('asks this server’s agents about a thread, and only them', async () => {
    const { calls, fetch } = answering(
      [200, { threadId: 't1', known: false, interrupted: false }],
      [200, { threadId: 't1', known: true, interrupted: true }]
    );
    const threads = serverAgentThreads(serverSettings, fetch);
    expect(await threads.known(own, 't1')).toBe(false);
    expect(await threads.known(named, 't1')).toBe(true);
    expect(await threads.known(elsewhere, 't1')).toBeNull();
    expect(await threads.known(agui, 't1')).toBeNull();
    expect(calls.map(c => c.url)).toEqual([
      'http://lab.example.org/user/ada/agent-panel/threads/t1',
      'http://lab.example.org/user/ada/agent-panel/agents/research/threads/t1'
    ]);
  });

  it('cannot tell on a server without the thread routes', async () => {
    const { fetch } = answering([404, '<html>Not Found</html>']);
    expect(
      await serverAgentThreads(serverSettings, fetch).known(own, 't')
    ).toBeNull();
  });

  it('deletes the thread; a refusal (busy) is an error', async () => {
    const { calls, fetch } = answering(
      [204, null],
      [409, { message: 'busy', reason: 'busy' }]
    );
    const threads = serverAgentThreads(serverSettings, fetch);
    await threads.forget(named, 't1');
    await expect(threads.forget(named, 't1')).rejects.toThrow('409');
    await threads.forget(elsewhere, 't1');
    expect(calls.map(c => `${c.init.method} ${c.url}`)).toEqual([
      'DELETE http://lab.example.org/user/ada/agent-panel/agents/research/threads/t1',
      'DELETE http://lab.example.org/user/ada/agent-panel/agents/research/threads/t1'
    ]);
  });

  it('lists a deployment’s threads and reads one back; other endpoints have none', async () => {
    const thread = {
      thread_id: 't1',
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data
      title: 'Plan',
      created_at: 1,
      updated_at: 2,
      status: 'interrupted'
    };
    const turns = [{ message: 'plan', frames: [{ status: 'complete' }] }];
    const { calls, fetch } = answering(
      [200, { threads: [thread, { ...thread, thread_id: 't2', status: '?' }] }],
      [200, { ...thread, turns }],
      [404, { message: 'no thread', reason: 'not_found' }]
    );
    const threads = serverAgentThreads(serverSettings, fetch);
    expect(await threads.list(named)).toEqual([
      {
        threadId: 't1',
        // eslint-disable-next-line jupyter/no-untranslated-string -- test data
        title: 'Plan',
        createdAt: 1,
        updatedAt: 2,
        status: 'interrupted'
      },
      {
        threadId: 't2',
        // eslint-disable-next-line jupyter/no-untranslated-string -- test data
        title: 'Plan',
        createdAt: 1,
        updatedAt: 2,
        status: 'idle'
      }
    ]);
    expect(await threads.history(named, 't1')).toMatchObject({
      threadId: 't1',
      turns
    });
    expect(await threads.history(named, 'gone')).toBeNull();
    expect(await threads.list(elsewhere)).toEqual([]);
    expect(await threads.list(agui)).toEqual([]);
    expect(calls.map(c => c.url)).toEqual([
      'http://lab.example.org/user/ada/agent-panel/agents/research/threads',
      'http://lab.example.org/user/ada/agent-panel/agents/research/threads/t1/history',
      'http://lab.example.org/user/ada/agent-panel/agents/research/threads/gone/history'
    ]);
  });

  it('says what was wrong with a list it cannot use', async () => {
    const { fetch } = answering(
      [503, { message: 'Agent not loaded: unreachable', reason: 'no_agent' }],
      [200, { nothing: [] }],
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data
      [200, { threads: [{ title: 'no id' }] }]
    );
    const threads = serverAgentThreads(serverSettings, fetch);
    await expect(threads.list(named)).rejects.toThrow(
      'answered 503: Agent not loaded: unreachable'
    );
    await expect(threads.list(named)).rejects.toThrow(
      'the answer has no list of threads'
    );
    await expect(threads.list(named)).rejects.toThrow(
      'a thread has no thread_id'
    );
  });

  it('retitles the thread; a refusal is an error', async () => {
    const { calls, fetch } = answering(
      [204, null],
      [400, { message: 'title must be a string', reason: 'bad_request' }]
    );
    const threads = serverAgentThreads(serverSettings, fetch);
    await threads.retitle(named, 't1', 'Weekly plan');
    await expect(threads.retitle(named, 't1', 'x')).rejects.toThrow(
      '400: title must be a string'
    );
    await threads.retitle(elsewhere, 't1', 'x');
    expect(calls.map(c => `${c.init.method} ${c.url} ${c.init.body}`)).toEqual([
      'PATCH http://lab.example.org/user/ada/agent-panel/agents/research/threads/t1 {"title":"Weekly plan"}',
      'PATCH http://lab.example.org/user/ada/agent-panel/agents/research/threads/t1 {"title":"x"}'
    ]);
  });
});
