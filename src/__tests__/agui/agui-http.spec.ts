/**
 * The AG-UI HTTP transport against a scripted fetch: the request it sends,
 * how it reads and ends a stream, Stop, failures naming the endpoint, health.
 */
import { AguiHttpTransport } from '../../transport/agui/agui-http';
import type { FetchLike } from '../../transport/types';
import type { TurnRequest } from '../../wire/turn';
import { BUILT_IN_ENDPOINTS, parseSettings } from '../../contracts/settings';
import { fixtureSse, reducingSink } from '../support/agui-harness';
import { response, ScriptedBody } from '../support/http-fakes';

const URL = 'http://127.0.0.1:8050/';

interface ICall {
  url: string;
  init: RequestInit;
}

function transportWith(
  answer: (call: ICall) => Promise<Response>,
  options: { idleTimeoutMs?: number; drainMs?: number } = {}
) {
  const calls: ICall[] = [];
  const fetch: FetchLike = (url, init) => {
    const call = { url, init };
    calls.push(call);
    if (init.signal?.aborted) {
      return Promise.reject(new Error('aborted'));
    }
    return answer(call);
  };
  const transport = new AguiHttpTransport({
    url: URL,
    fetch,
    connectTimeoutMs: 5000,
    idleTimeoutMs: options.idleTimeoutMs ?? 0,
    drainMs: options.drainMs ?? 10
  });
  return { transport, calls };
}

const chat = (message: string, threadId = 't-1'): TurnRequest => ({
  kind: 'chat',
  threadId,
  message
});

describe('AguiHttpTransport', () => {
  it('POSTs a RunAgentInput and renders the recorded "hello" stream', async () => {
    const { transport, calls: sent } = transportWith(async () => {
      const body = new ScriptedBody();
      body.push(fixtureSse('hello.sse'));
      body.close();
      return response(200, body);
    });
    const { sink, reducer, ended } = reducingSink();
    await transport.startTurn(chat('hello'), sink).done;
    expect(sent).toHaveLength(1);
    const { url, init } = sent[0];
    expect(url).toBe(URL);
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({
      'Content-Type': 'application/json',
      Accept: 'text/event-stream'
    });
    const body = JSON.parse(init.body as string);
    expect(body).toEqual({
      threadId: 't-1',
      runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      protocolVersion: '1.0',
      messages: [
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          role: 'user',
          content: 'hello'
        }
      ],
      tools: [],
      context: [],
      forwardedProps: {},
      state: {}
    });
    expect(ended).toEqual([undefined]);
    expect(reducer.state.outcome).toBe('complete');
    expect(
      reducer.state.items.map(item => item.kind === 'text' && item.text)
    ).toEqual(['(demo agent) You said: hello']);
  });

  it('resumes with the interrupt ids the paused run revealed', async () => {
    const bodies = [fixtureSse('ask.sse'), fixtureSse('ask-resume.sse')];
    const { transport, calls } = transportWith(async () => {
      const body = new ScriptedBody();
      body.push(bodies.shift()!);
      body.close();
      return response(200, body);
    });
    const first = reducingSink();
    await transport.startTurn(chat('ask me a question', 'agui-ask'), first.sink)
      .done;
    expect(first.reducer.state.outcome).toBe('interrupted');
    const decisions = [{ type: 'respond' as const, message: 'Ada' }];
    const second = reducingSink();
    await transport.startTurn(
      {
        kind: 'resume',
        threadId: 'agui-ask',
        decisions,
        memory: first.memory
      },
      second.sink
    ).done;
    const body = JSON.parse(calls[1].init.body as string);
    const events = fixtureSse('ask.sse')
      .split('\n')
      .filter(line => line.startsWith('data: '))
      .map(line => JSON.parse(line.slice(6)));
    // The resume carries the thread as the paused run's snapshot left it.
    expect(body.messages).toEqual(
      events.find(event => event.type === 'MESSAGES_SNAPSHOT').messages
    );
    expect(body.forwardedProps).toEqual({ command: { resume: { decisions } } });
    // The id the recorded paused run revealed (CUSTOM on_interrupt rawEvent.id).
    const paused = events.find(event => event.type === 'CUSTOM');
    expect(body.resume).toEqual([
      {
        interruptId: paused.rawEvent.id,
        status: 'resolved',
        payload: { decisions }
      }
    ]);
    expect(second.reducer.state.outcome).toBe('complete');
  });

  it('ends a stopped turn as cancelled and closes the body', async () => {
    const body = new ScriptedBody();
    const { transport } = transportWith(async () => response(200, body));
    const { sink, reducer, ended } = reducingSink();
    const handle = transport.startTurn(chat('hello'), sink);
    body.push(
      'data: {"type":"RUN_STARTED","threadId":"t-1","runId":"r"}\n\n' +
        'data: {"type":"TEXT_MESSAGE_START","messageId":"m"}\n\n' +
        'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"partial"}\n\n'
    );
    await new Promise(resolve => setTimeout(resolve, 20));
    handle.stop();
    await handle.done;
    expect(ended).toEqual([undefined]);
    expect(reducer.state.outcome).toBe('cancelled');
    expect(reducer.state.cancelMessage).toBe('Execution cancelled by user');
    expect(reducer.state.items).toHaveLength(1);
    expect(body.cancelled).toBe(true);
  });

  it('names the endpoint and status of a refused request', async () => {
    const { transport } = transportWith(async () =>
      response(422, '{"detail":[{"msg":"Field required"}]}', 'application/json')
    );
    const { sink, reducer, ended } = reducingSink();
    await transport.startTurn(chat('hello'), sink).done;
    expect(ended).toEqual([
      `HTTP 422 Unprocessable Entity from ${URL}: {"detail":[{"msg":"Field required"}]}`
    ]);
    expect(reducer.state.outcome).toBe('error');
  });

  it('names the endpoint when it cannot be reached', async () => {
    const { transport } = transportWith(async () => {
      throw new TypeError('Failed to fetch');
    });
    const { sink, ended } = reducingSink();
    await transport.startTurn(chat('hello'), sink).done;
    expect(ended).toEqual([`cannot reach ${URL}: Failed to fetch`]);
  });

  it('refuses an answer that is not an event stream', async () => {
    const { transport } = transportWith(async () =>
      response(200, '<html>login</html>', 'text/html')
    );
    const { sink, ended } = reducingSink();
    await transport.startTurn(chat('hello'), sink).done;
    expect(ended).toEqual([
      `${URL} answered with text/html, not an AG-UI event stream`
    ]);
  });

  it('ends without a terminal event as "stream ended unexpectedly"', async () => {
    const body = new ScriptedBody();
    const { transport } = transportWith(async () => response(200, body));
    const { sink, reducer } = reducingSink();
    const handle = transport.startTurn(chat('hello'), sink);
    body.push('data: {"type":"RUN_STARTED","threadId":"t-1","runId":"r"}\n\n');
    body.close();
    await handle.done;
    expect(reducer.state.error?.message).toBe('stream ended unexpectedly');
  });

  it('reports events after the terminal one, then lets the request go', async () => {
    const warn = jest
      .spyOn(console, 'warn')
      .mockImplementation(() => undefined);
    const body = new ScriptedBody();
    const { transport } = transportWith(async () => response(200, body), {
      drainMs: 30
    });
    const { sink, reducer, ended } = reducingSink();
    const handle = transport.startTurn(chat('hello'), sink);
    body.push(
      'data: {"type":"RUN_STARTED","threadId":"t-1","runId":"r"}\n\n' +
        'data: {"type":"RUN_ERROR","message":"boom"}\n\n' +
        'data: {"type":"RUN_FINISHED","threadId":"t-1","runId":"r"}\n\n'
    );
    // The body never closes: the drain timer ends the request.
    await handle.done;
    expect(ended).toEqual([undefined]);
    expect(reducer.state.error?.message).toBe('boom');
    expect(reducer.state.diagnostics).toEqual([
      `${URL}: ignored RUN_FINISHED and any later events: the run already ended with RUN_ERROR`
    ]);
    // The transport logs what the pure mapper reports as a warning.
    expect(warn.mock.calls).toEqual([
      [
        `Agent Panel: ${URL}: ignored RUN_FINISHED and any later events: the run already ended with RUN_ERROR`
      ]
    ]);
    expect(body.cancelled).toBe(true);
    warn.mockRestore();
  });

  it('ends an idle stream with the idle timeout', async () => {
    const body = new ScriptedBody();
    const { transport } = transportWith(async () => response(200, body), {
      idleTimeoutMs: 30
    });
    const { sink, ended } = reducingSink();
    const handle = transport.startTurn(chat('hello'), sink);
    body.push('data: {"type":"RUN_STARTED","threadId":"t-1","runId":"r"}\n\n');
    await handle.done;
    expect(ended).toEqual([`no event from ${URL} for 0.03 s (idle timeout)`]);
  });

  it('reads langstage-agui health', async () => {
    const { transport, calls } = transportWith(async () =>
      response(
        200,
        '{"status":"ok","agent":{"name":"Tool Demo Agent"}}',
        'application/json'
      )
    );
    await expect(transport.checkHealth()).resolves.toEqual({
      state: 'healthy',
      message: 'Tool Demo Agent',
      agentName: 'Tool Demo Agent'
    });
    expect(calls[0].init.method).toBe('GET');
  });

  it('reports an unhealthy answer with the endpoint and status', async () => {
    const { transport } = transportWith(async () =>
      response(422, 'Method Not Allowed', 'text/plain')
    );
    await expect(transport.checkHealth()).rejects.toThrow(
      `HTTP 422 Unprocessable Entity from ${URL}: Method Not Allowed`
    );
  });

  it('counts a POST-only endpoint (405 on GET) as reachable, and does not ask again', async () => {
    const { transport, calls } = transportWith(async () =>
      response(405, '{"detail":"Method Not Allowed"}', 'application/json')
    );
    const reachable = {
      state: 'healthy',
      message: 'reachable (POST only)',
      agentName: null
    };
    await expect(transport.checkHealth()).resolves.toEqual(reachable);
    await expect(transport.checkHealth()).resolves.toEqual(reachable);
    expect(calls).toHaveLength(1);
  });

  it('offers no client tools to an agent whose capabilities say it takes none', async () => {
    const { transport, calls } = transportWith(async call => {
      if (call.init.method === 'GET') {
        return response(
          200,
          JSON.stringify({
            status: 'ok',
            capabilities: { tools: { clientProvided: false } }
          }),
          'application/json'
        );
      }
      const body = new ScriptedBody();
      body.push(fixtureSse('hello.sse'));
      body.close();
      return response(200, body);
    });
    const request: TurnRequest = {
      ...chat('hello'),
      tools: [{ name: 'echo', description: 'Say it back.', parameters: {} }]
    };
    await transport.startTurn(request, reducingSink().sink).done;
    await transport.checkHealth();
    await transport.startTurn(request, reducingSink().sink).done;
    const [before, , after] = calls.map(call =>
      call.init.body ? JSON.parse(call.init.body as string) : null
    );
    expect(before.tools).toEqual(request.tools);
    expect(after.tools).toEqual([]);
  });

  it('remembers the thread when a run finishes, not when it fails', async () => {
    const bodies = [fixtureSse('hello.sse'), fixtureSse('failing.sse')];
    const { transport } = transportWith(async () => {
      const body = new ScriptedBody();
      body.push(bodies.shift()!);
      body.close();
      return response(200, body);
    });
    const finished = reducingSink();
    await transport.startTurn(chat('hello'), finished.sink).done;
    expect(finished.memory).toMatchObject({
      agui: 1,
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: '(demo agent) You said: hello' }
      ]
    });
    const failed = reducingSink();
    await transport.startTurn(
      { ...chat('fail'), memory: finished.memory },
      failed.sink
    ).done;
    expect(failed.reducer.state.outcome).toBe('error');
    expect(failed.memory).toBeUndefined();
  });

  it('aborts its requests when disposed', async () => {
    const body = new ScriptedBody();
    const { transport } = transportWith(async () => response(200, body));
    const { sink, ended } = reducingSink();
    const handle = transport.startTurn(chat('hello'), sink);
    await new Promise(resolve => setTimeout(resolve, 10));
    transport.dispose();
    await handle.done;
    expect(ended).toEqual([undefined]);
    expect(body.cancelled).toBe(true);
  });
});

describe('settings for AG-UI endpoints', () => {
  it('accept ws:// and wss:// URLs for agui only', () => {
    const { settings, problems } = parseSettings({
      endpoints: [
        { name: 'AG-UI socket', transport: 'agui', url: 'ws://127.0.0.1:9/ws' },
        { name: 'Chunk socket', transport: 'http', url: 'wss://example.org/' }
      ]
    });
    expect(settings.endpoints.map(endpoint => endpoint.name)).toEqual([
      'AG-UI socket',
      ...BUILT_IN_ENDPOINTS.map(endpoint => endpoint.name)
    ]);
    expect(problems).toEqual([
      {
        field: 'endpoints[1].url',
        message: '"wss:" URLs are not supported; use http: or https:'
      }
    ]);
  });
});
