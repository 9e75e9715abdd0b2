/**
 * The HTTP-SSE turn both HTTP transports run on (`transport/http/sse-turn.ts`),
 * on its own: the request, how each failure is worded and through the
 * translator, the idle watch, deadlines and abort.
 */
import { Gettext, type TranslationBundle } from '@jupyterlab/translation';
import { AguiHttpTransport } from '../../transport/agui/agui-http';
import { ChunkWireHttpTransport } from '../../transport/http/http';
import { SseTurn, type ISseTurnOptions } from '../../transport/http/sse-turn';
import type { FetchLike } from '../../transport/types';
import { response, ScriptedBody } from '../support/http-fakes';
import { panelStrings } from '../../contracts/translation';

const URL = 'http://agent.test/run';

/** The translator's msgids as they are used, with English words. */
function recordingTrans(): { trans: TranslationBundle; msgids: string[] } {
  const msgids: string[] = [];
  const trans = Object.assign(Object.create(panelStrings()), {
    __: (msgid: string, ...args: string[]) => {
      msgids.push(msgid);
      return Gettext.strfmt(msgid, ...args);
    }
  }) as TranslationBundle;
  return { trans, msgids };
}

interface IRun {
  turn: SseTurn;
  requests: RequestInit[];
  data: string[];
  problems: string[];
  msgids: string[];
}

function run(
  answer: (init: RequestInit) => Promise<Response>,
  options: Partial<ISseTurnOptions> & {
    connectTimeoutMs?: number;
    idleTimeoutMs?: number;
  } = {}
): IRun {
  const requests: RequestInit[] = [];
  const data: string[] = [];
  const problems: string[] = [];
  const { trans, msgids } = recordingTrans();
  const fetch: FetchLike = (url, init) => {
    expect(url).toBe(URL);
    requests.push(init);
    return answer(init);
  };
  const turn = new SseTurn(
    {
      fetch,
      connectTimeoutMs: options.connectTimeoutMs ?? 1000,
      idleTimeoutMs: options.idleTimeoutMs ?? 0
    },
    {
      url: URL,
      body: { hello: 'world' },
      trans,
      onData: item => data.push(item),
      onProblem: problem => problems.push(problem),
      idleFailure: seconds => `quiet for ${seconds} s`,
      notAStream: (type, body) => `not a stream: ${type || '-'} ${body}`,
      ...options
    }
  );
  return { turn, requests, data, problems, msgids };
}

/** A fetch that never answers but honours its abort signal. */
function hanging(init: RequestInit): Promise<Response> {
  return new Promise((_, reject) =>
    init.signal?.addEventListener('abort', () =>
      reject(new Error('The operation was aborted.'))
    )
  );
}

describe('SseTurn', () => {
  it('POSTs the JSON body for an event stream and hands over each event', async () => {
    const body = new ScriptedBody();
    const { turn, requests, data } = run(async () => response(200, body));
    body.push('data: one\n\ndata: tw');
    body.push('o\n\n');
    body.close();
    await expect(turn.ended).resolves.toEqual({});
    expect(data).toEqual(['one', 'two']);
    expect(requests).toHaveLength(1);
    const [init] = requests;
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({
      'Content-Type': 'application/json',
      Accept: 'text/event-stream'
    });
    expect(JSON.parse(init.body as string)).toEqual({ hello: 'world' });
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it('names the status and URL of a refused request, and asks why', async () => {
    const refusals: [number, string][] = [];
    const { turn, msgids } = run(
      async () =>
        response(409, '{"message":"nothing to resume"}', 'application/json'),
      {
        refusalOf: (status, body) => {
          refusals.push([status, body]);
          return 'nothing_pending';
        }
      }
    );
    await expect(turn.ended).resolves.toEqual({
      failure: `HTTP 409 Conflict from ${URL}: nothing to resume`,
      refusal: 'nothing_pending'
    });
    expect(refusals).toEqual([[409, '{"message":"nothing to resume"}']]);
    expect(msgids).toContain('%1 from %2: %3');
  });

  it('fails when no answer comes within the connect timeout', async () => {
    const { turn, msgids } = run(hanging, { connectTimeoutMs: 30 });
    await expect(turn.ended).resolves.toEqual({
      failure: `no answer from ${URL} within 0.03 s`
    });
    expect(turn.aborted).toBe(true);
    expect(msgids).toEqual(['no answer from %1 within %2 s']);
  });

  it('names the URL when it cannot be reached', async () => {
    const { turn, msgids } = run(async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(turn.ended).resolves.toEqual({
      failure: `cannot reach ${URL}: Failed to fetch`
    });
    expect(msgids).toEqual(['cannot reach %1: %2']);
  });

  it('lets the transport word an answer that is not an event stream', async () => {
    const typed = run(async () => response(200, '<p>login</p>', 'text/html'));
    await expect(typed.turn.ended).resolves.toEqual({
      failure: 'not a stream: text/html <p>login</p>'
    });
    const untyped = run(async () => response(200, 'plain', ''));
    await expect(untyped.turn.ended).resolves.toEqual({
      failure: 'not a stream: - plain'
    });
  });

  it('fails an event stream without a body', async () => {
    const { turn, msgids } = run(async () => response(200, null));
    await expect(turn.ended).resolves.toEqual({
      failure: `${URL} answered with an empty body`
    });
    expect(msgids).toEqual(['%1 answered with an empty body']);
  });

  it('fails a stream that goes quiet, in the words of the transport', async () => {
    const body = new ScriptedBody();
    const { turn, data } = run(async () => response(200, body), {
      idleTimeoutMs: 40
    });
    body.push('data: one\n\n');
    await expect(turn.ended).resolves.toEqual({ failure: 'quiet for 0.04 s' });
    expect(data).toEqual(['one']);
    expect(body.cancelled).toBe(true);
  });

  it('names the URL when the connection is lost mid-stream', async () => {
    const body = new ScriptedBody();
    const { turn, data, msgids } = run(async () => response(200, body));
    body.push('data: one\n\n');
    await new Promise(resolve => setTimeout(resolve, 10));
    body.fail(new Error('network reset'));
    await expect(turn.ended).resolves.toEqual({
      failure: `connection to ${URL} lost: network reset`
    });
    expect(data).toEqual(['one']);
    expect(msgids).toEqual(['connection to %1 lost: %2']);
  });

  it('reports unreadable lines and reads on', async () => {
    const body = new ScriptedBody();
    const { turn, data, problems, msgids } = run(async () =>
      response(200, body)
    );
    body.push('bogus: 1\ndata: a\n\n');
    body.close();
    await expect(turn.ended).resolves.toEqual({});
    expect(data).toEqual(['a']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^unreadable event-stream line: .*bogus/);
    expect(msgids).toEqual(['unreadable event-stream line: %1']);
  });

  it('ends with no failure when aborted', async () => {
    const body = new ScriptedBody();
    const { turn } = run(async () => response(200, body), {
      idleTimeoutMs: 20
    });
    body.push('data: one\n\n');
    await new Promise(resolve => setTimeout(resolve, 5));
    turn.abort();
    await expect(turn.ended).resolves.toEqual({});
    expect(turn.aborted).toBe(true);
    expect(body.cancelled).toBe(true);
  });

  it('reads on until a deadline, quiet or not once the watch is off', async () => {
    const body = new ScriptedBody();
    const { turn, data } = run(async () => response(200, body), {
      idleTimeoutMs: 20
    });
    body.push('data: one\n\n');
    await new Promise(resolve => setTimeout(resolve, 5));
    turn.stopIdleWatch();
    turn.abortAfter(60);
    await new Promise(resolve => setTimeout(resolve, 30));
    // Past the idle timeout, before the deadline: still reading.
    body.push('data: late\n\n');
    const started = Date.now();
    await expect(turn.ended).resolves.toEqual({});
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    expect(data).toEqual(['one', 'late']);
    expect(body.cancelled).toBe(true);
  });
});

describe('the HTTP transports on the shared turn', () => {
  it('word what differs through the translator they are given', async () => {
    const { trans, msgids } = recordingTrans();
    const html = async () => response(200, '<p>login</p>', 'text/html');
    const chunkWire = new ChunkWireHttpTransport({
      baseUrl: 'http://agent.test/agent-panel/',
      fetch: html,
      connectTimeoutMs: 1000,
      idleTimeoutMs: 0,
      trans
    });
    await expect(chunkWire.checkHealth()).rejects.toThrow(
      'http://agent.test/agent-panel/health did not answer with JSON: not a chunk-wire API'
    );
    const ended: (string | undefined)[] = [];
    const sink = {
      frame: () => undefined,
      diagnostic: () => undefined,
      end: (reason?: string) => void ended.push(reason)
    };
    await chunkWire.startTurn(
      { kind: 'chat', threadId: 't', message: 'hi' },
      sink
    ).done;
    const agui = new AguiHttpTransport({
      url: URL,
      fetch: html,
      connectTimeoutMs: 1000,
      idleTimeoutMs: 0,
      trans
    });
    await agui.startTurn({ kind: 'chat', threadId: 't', message: 'hi' }, sink)
      .done;
    expect(ended).toEqual([
      'http://agent.test/agent-panel/chat answered with text/html, not an event stream: login',
      `${URL} answered with text/html, not an AG-UI event stream`
    ]);
    expect(msgids).toEqual([
      '%1 did not answer with JSON: not a chunk-wire API',
      '%1 answered with %2, not an event stream: %3',
      '%1 answered with %2, not an AG-UI event stream'
    ]);
    chunkWire.dispose();
    agui.dispose();
  });
});

describe('problems of the pure layers', () => {
  it('reach the user through the translator of the transport', async () => {
    const { trans, msgids } = recordingTrans();
    const stream = (text: string) => async () => {
      const body = new ScriptedBody();
      body.push(text);
      body.close();
      return response(200, body);
    };
    const diagnostics: string[] = [];
    const sink = {
      frame: () => undefined,
      diagnostic: (message: string) => void diagnostics.push(message),
      end: () => undefined
    };
    const chunkWire = new ChunkWireHttpTransport({
      baseUrl: 'http://agent.test/agent-panel/',
      fetch: stream('data: [1]\n\ndata: {"status":"complete"}\n\n'),
      connectTimeoutMs: 1000,
      idleTimeoutMs: 0,
      trans
    });
    await chunkWire.startTurn(
      { kind: 'chat', threadId: 't', message: 'hi' },
      sink
    ).done;
    const agui = new AguiHttpTransport({
      url: URL,
      fetch: stream(
        'data: {"type":"STEP_STARTED","stepName":"a"}\n\n' +
          'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
      ),
      connectTimeoutMs: 1000,
      idleTimeoutMs: 0,
      drainMs: 0,
      trans
    });
    await agui.startTurn({ kind: 'chat', threadId: 't', message: 'hi' }, sink)
      .done;
    expect(diagnostics).toEqual([
      'http://agent.test/agent-panel/chat: frame is not a JSON object (got an array)',
      `${URL}: the first event is STEP_STARTED, not RUN_STARTED`
    ]);
    expect(msgids).toEqual(
      expect.arrayContaining([
        'frame is not a JSON object (got %1)',
        'the first event is %1, not RUN_STARTED'
      ])
    );
    chunkWire.dispose();
    agui.dispose();
  });
});
