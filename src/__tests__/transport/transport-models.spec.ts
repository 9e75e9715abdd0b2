/**
 * The models of a chunk-wire endpoint (docs/protocol.md §16.3): `GET models`
 * read into a typed offer (a bad piece left out with the reason, a 404 or
 * no JSON offering no choice), the health answer's `model_choice` and
 * `model`, and the conversation's model in the `chat` and `resume` bodies.
 */
import { NO_MODEL_CHOICE } from '../../contracts/models';
import { ChunkWireHttpTransport } from '../../transport/http/http';
import type { ITurnSink, TurnRequest } from '../../wire/turn';
import { trans } from '../support/fake-transport';
import { response } from '../support/http-fakes';

const BASE = 'http://lab.test/agent-panel/';

/** A transport whose every GET answers `status` with `body`; it notes the URLs and POST bodies. */
function transportAnswering(
  status: number,
  body: string,
  contentType = 'application/json'
) {
  const urls: string[] = [];
  const posted: unknown[] = [];
  const transport = new ChunkWireHttpTransport({
    baseUrl: BASE,
    connectTimeoutMs: 1000,
    idleTimeoutMs: 0,
    trans,
    fetch: async (url, init) => {
      urls.push(url);
      if (init.method === 'POST') {
        posted.push(JSON.parse(String(init.body)));
        return new Response(
          'data: {"status": "complete", "outcome": "complete"}\n\n',
          { status: 200, headers: { 'Content-Type': 'text/event-stream' } }
        );
      }
      return response(status, body, contentType);
    }
  });
  return { transport, urls, posted };
}

const GPT = {
  id: 'openai:gpt-4.1-mini',
  provider: 'openai',
  name: 'gpt-4.1-mini',
  usable: true,
  vision: true,
  source: 'configured'
};
const CLAUDE = {
  id: 'anthropic:claude-sonnet-4-5',
  provider: 'anthropic',
  name: 'claude-sonnet-4-5',
  usable: false,
  reason: 'ANTHROPIC_API_KEY is not set (in the server’s environment)',
  vision: true,
  source: 'configured'
};

describe('listModels', () => {
  it('reads the answer of GET models', async () => {
    const { transport, urls } = transportAnswering(
      200,
      JSON.stringify({
        choosable: true,
        default: GPT.id,
        models: [
          GPT,
          CLAUDE,
          {
            id: 'openai:llama3.2',
            provider: 'openai',
            name: 'llama3.2',
            usable: true,
            vision: false,
            source: 'server'
          }
        ],
        problems: ['http://localhost:11434/v1/models did not answer']
      })
    );
    expect(await transport.listModels()).toEqual({
      choosable: true,
      defaultModel: GPT.id,
      models: [
        { ...GPT, reason: null },
        CLAUDE,
        {
          id: 'openai:llama3.2',
          provider: 'openai',
          name: 'llama3.2',
          usable: true,
          reason: null,
          vision: false,
          source: 'server'
        }
      ],
      problems: ['http://localhost:11434/v1/models did not answer']
    });
    expect(urls).toEqual([`${BASE}models`]);
  });

  it('reads an agent that offers no models, and a default of null', async () => {
    const { transport } = transportAnswering(
      200,
      '{"choosable": false, "default": null, "models": [], "problems": []}'
    );
    expect(await transport.listModels()).toEqual(NO_MODEL_CHOICE);
  });

  it('leaves out each model it cannot read, saying why', async () => {
    const { transport } = transportAnswering(
      200,
      JSON.stringify({
        choosable: true,
        default: 42,
        models: [
          'openai:gpt-4.1-mini',
          { provider: 'openai', usable: true },
          { id: 'x'.repeat(257), usable: true },
          { id: 'ollama:llama3.2', usable: 'yes' },
          { id: 'ollama:qwen3', usable: false },
          GPT,
          { ...GPT, name: 'again' }
        ],
        problems: ['one', 7]
      })
    );
    const offer = await transport.listModels();
    expect(offer.defaultModel).toBeNull();
    expect(offer.models).toEqual([
      {
        id: 'ollama:qwen3',
        provider: 'ollama',
        name: 'qwen3',
        usable: false,
        reason: null,
        vision: false,
        source: ''
      },
      { ...GPT, reason: null }
    ]);
    expect(offer.problems).toEqual([
      'one',
      'some of the problems reported are not text',
      'models[0] was left out: it is not an object',
      'models[1] was left out: it has no model id',
      'models[2] was left out: it has no model id',
      'models[3] was left out: ollama:llama3.2 does not say whether it is usable',
      'models[6] was left out: its id is listed already',
      'the default model is not a model id; the demo is assumed'
    ]);
  });

  it('says when "models" is not a list', async () => {
    const { transport } = transportAnswering(
      200,
      '{"choosable": true, "default": null, "models": {"id": "a:b"}}'
    );
    expect(await transport.listModels()).toEqual({
      choosable: true,
      defaultModel: null,
      models: [],
      problems: ['"models" is not a list; no model is offered']
    });
  });

  it('offers no choice when the route is missing or the answer is not JSON', async () => {
    const missing = transportAnswering(404, '<html>404: Not Found</html>');
    expect(await missing.transport.listModels()).toEqual(NO_MODEL_CHOICE);
    const page = transportAnswering(200, '<html>login</html>', 'text/html');
    expect(await page.transport.listModels()).toEqual(NO_MODEL_CHOICE);
  });

  it('fails on JSON that is no list of models, and on an error status', async () => {
    const other = transportAnswering(200, '[1, 2]');
    await expect(other.transport.listModels()).rejects.toThrow(
      `${BASE}models answered without "choosable": not a list of models`
    );
    const failing = transportAnswering(
      500,
      '{"message": "boom", "reason": "internal"}'
    );
    await expect(failing.transport.listModels()).rejects.toThrow(
      `HTTP 500 Error from ${BASE}models: boom`
    );
  });
});

describe('the health answer', () => {
  it('carries the model choice and its default when the endpoint offers one', async () => {
    const builtIn = transportAnswering(
      200,
      '{"status": "healthy", "ready": true, "message": "ok", "model_choice": true, "model": null}'
    );
    expect(await builtIn.transport.checkHealth()).toEqual({
      state: 'healthy',
      message: 'ok',
      agentName: null,
      modelChoice: true,
      defaultModel: null
    });
    const keyed = transportAnswering(
      200,
      '{"ready": false, "status": "model_unavailable", "message": "no key", "model_choice": true, "model": "anthropic:claude-sonnet-4-5"}'
    );
    expect(await keyed.transport.checkHealth()).toMatchObject({
      state: 'needs_setup',
      modelChoice: true,
      defaultModel: 'anthropic:claude-sonnet-4-5'
    });
  });

  it('is unreachable when the server says its deployment stopped answering', async () => {
    const gone = transportAnswering(
      200,
      '{"status": "unreachable", "ready": false, "message": "The Agent Server at http://127.0.0.1:1 is unreachable: ConnectError"}'
    );
    expect(await gone.transport.checkHealth()).toEqual({
      state: 'unreachable',
      message:
        'The Agent Server at http://127.0.0.1:1 is unreachable: ConnectError',
      agentName: null
    });
  });

  it('says nothing of models when the endpoint does not', async () => {
    const graph = transportAnswering(200, '{"ready": true, "message": "ok"}');
    expect(await graph.transport.checkHealth()).toEqual({
      state: 'healthy',
      message: 'ok',
      agentName: null
    });
  });
});

describe('the conversation’s model in a turn', () => {
  const sink = (): ITurnSink => ({
    frame: () => undefined,
    diagnostic: () => undefined,
    end: () => undefined
  });

  it('goes in the chat and resume bodies', async () => {
    const { transport, posted } = transportAnswering(200, '');
    const requests: TurnRequest[] = [
      { kind: 'chat', threadId: 't', message: 'hi', model: GPT.id },
      { kind: 'resume', threadId: 't', decisions: [], model: GPT.id }
    ];
    for (const request of requests) {
      await transport.startTurn(request, sink()).done;
    }
    expect(posted).toEqual([
      { message: 'hi', thread_id: 't', model: GPT.id },
      { thread_id: 't', decisions: [], model: GPT.id }
    ]);
  });

  it('is absent when the conversation chose none', async () => {
    const { transport, posted } = transportAnswering(200, '');
    await transport.startTurn(
      { kind: 'chat', threadId: 't', message: 'hi' },
      sink()
    ).done;
    await transport.startTurn(
      { kind: 'resume', threadId: 't', decisions: [] },
      sink()
    ).done;
    expect(posted).toEqual([
      { message: 'hi', thread_id: 't' },
      { thread_id: 't', decisions: [] }
    ]);
  });
});
