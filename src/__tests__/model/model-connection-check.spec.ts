/**
 * "Test connection": each failure a user can meet gets its own verdict and
 * words, through the real probe (`transport/http/probe.ts`) over a fake network.
 */
import { ServerConnection } from '@jupyterlab/services';
import {
  checkConnection,
  classifyHealth,
  hostOf,
  type IConnectionReport
} from '../../model/connection/connection-check';
import {
  DEFAULT_ENDPOINT,
  type IEndpointSettings
} from '../../contracts/settings';
import {
  asHttpUrl,
  createConnectionProbe,
  probeFromServer,
  type ServerProbeResult
} from '../../transport/http/probe';
import type { FetchLike } from '../../transport/types';
import type { IAgentTransport } from '../../contracts/transport';
import { FakeTransport, trans } from '../support/fake-transport';

const PAGE = 'http://lab.example.org/user/ada/lab';
const BASE = 'http://lab.example.org/user/ada/';
const EXTERNAL = 'http://agents.example.org:8050/agent/';

type Answer = Response | 'network-error' | 'hang';

/** A network where each URL (without query) answers as told. */
class FakeNetwork {
  /** What a CORS-mode fetch of the URL gets. */
  cors = new Map<string, Answer>();
  /** Whether a `no-cors` fetch of the URL gets an opaque answer. */
  opaque = new Set<string>();
  /** What the Jupyter server's probe route answers. */
  serverProbe: ServerProbeResult | Response = {
    result: 'unreachable',
    detail: 'not asked'
  };
  readonly probeRequests: unknown[] = [];
  readonly plainRequests: { url: string; init: RequestInit }[] = [];

  readonly plainFetch: FetchLike = async (url, init) => {
    this.plainRequests.push({ url, init });
    const key = url.split('?')[0];
    if (init.mode === 'no-cors') {
      if (this.opaque.has(key)) {
        return new Response(null, { status: 200 });
      }
      throw new TypeError('Failed to fetch');
    }
    return this._answer(this.cors.get(key) ?? 'network-error', init);
  };

  readonly serverSettings = ServerConnection.makeSettings({
    baseUrl: BASE,
    fetch: async (input: RequestInfo) => {
      const request = input as Request;
      const url = request.url.split('?')[0];
      if (url === `${BASE}agent-panel/probe`) {
        this.probeRequests.push(JSON.parse(await request.text()));
        return this.serverProbe instanceof Response
          ? this.serverProbe
          : json(this.serverProbe);
      }
      return this._answer(this.cors.get(url) ?? 'network-error', {
        signal: request.signal
      });
    }
  });

  probe(pageUrl = PAGE) {
    return createConnectionProbe({
      serverSettings: this.serverSettings,
      pageUrl,
      plainFetch: this.plainFetch
    });
  }

  private _answer(answer: Answer, init: RequestInit): Promise<Response> {
    if (answer === 'network-error') {
      return Promise.reject(new TypeError('Failed to fetch'));
    }
    if (answer === 'hang') {
      return new Promise((_, reject) =>
        init.signal?.addEventListener('abort', () =>
          reject(new DOMException('aborted', 'AbortError'))
        )
      );
    }
    return Promise.resolve(answer.clone());
  }
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' }
  });
}

function endpoint(settings: Partial<IEndpointSettings>): IEndpointSettings {
  return { ...DEFAULT_ENDPOINT, name: 'Agent', ...settings };
}

/** Check an endpoint; a plain fake transport when none is given. */
async function check(
  network: FakeNetwork,
  settings: Partial<IEndpointSettings>,
  transport?: IAgentTransport,
  pageUrl = PAGE
): Promise<IConnectionReport> {
  const plain = new FakeTransport();
  const report = await checkConnection({
    endpoint: endpoint(settings),
    transport: transport ?? plain,
    probe: network.probe(pageUrl),
    trans
  });
  plain.dispose();
  transport?.dispose();
  return report;
}

const HEALTHY = {
  status: 'healthy',
  agent_loaded: true,
  ready: true,
  message: 'Agent is ready',
  agent_name: 'Demo Agent'
};

describe('checkConnection over HTTP', () => {
  it('is ok when health says ready, and names the agent', async () => {
    const network = new FakeNetwork();
    network.cors.set(`${BASE}agent-panel/health`, json(HEALTHY));
    const report = await check(network, { url: 'agent-panel/' });
    expect(report).toEqual({
      endpoint: 'Agent',
      target: `${BASE}agent-panel/health`,
      verdict: 'ok',
      ok: true,
      summary: 'Connected: Demo Agent',
      detail: 'Agent is ready'
    });
    expect(network.probeRequests).toEqual([]);
  });

  it('says the agent needs setup when health is not ready', async () => {
    const network = new FakeNetwork();
    network.cors.set(
      `${BASE}agent-panel/health`,
      json({
        ...HEALTHY,
        ready: false,
        status: 'agent_not_loaded',
        message: 'Could not load agent: ModuleNotFoundError'
      })
    );
    const report = await check(network, { url: 'agent-panel/' });
    expect(report).toMatchObject({
      verdict: 'needs_setup',
      ok: false,
      summary: 'Reachable, but the agent is not ready',
      detail: 'Could not load agent: ModuleNotFoundError'
    });
  });

  it('says 404 is a wrong path, with the server’s message', async () => {
    const network = new FakeNetwork();
    network.cors.set(
      `${BASE}agent-panel/agents/nope/health`,
      json({ message: "No agent named 'nope'", reason: 'not_found' }, 404)
    );
    const report = await check(network, { url: 'agent-panel/agents/nope/' });
    expect(report.verdict).toBe('not_found');
    expect(report.summary).toBe('Not found (HTTP 404): wrong path');
    expect(report.detail).toContain("No agent named 'nope'");
    expect(report.detail).toContain('the base of its chunk-wire routes');
  });

  it('says a Jupyter 403 means the Jupyter session', async () => {
    const network = new FakeNetwork();
    network.cors.set(
      `${BASE}agent-panel/health`,
      new Response('', { status: 403 })
    );
    const report = await check(network, { url: 'agent-panel/' });
    expect(report.verdict).toBe('credentials');
    expect(report.summary).toBe(
      'Access denied (HTTP 403): check the credentials'
    );
    expect(report.detail).toContain('your Jupyter session may have expired');
  });

  it('says an external 401 means the configured headers', async () => {
    const network = new FakeNetwork();
    network.cors.set(`${EXTERNAL}health`, json({ message: 'bad token' }, 401));
    const report = await check(network, {
      url: EXTERNAL,
      headers: { Authorization: 'Bearer wrong' }
    });
    expect(report.verdict).toBe('credentials');
    expect(report.summary).toBe(
      'Access denied (HTTP 401): check the credentials'
    );
    expect(report.detail).toBe(
      'bad token. The endpoint refused the credentials it was sent: check the request headers (Authorization) of the endpoint in the settings.'
    );
  });

  it('says an external 401 without headers wants credentials', async () => {
    const network = new FakeNetwork();
    network.cors.set(`${EXTERNAL}health`, new Response('', { status: 401 }));
    const report = await check(network, { url: EXTERNAL });
    expect(report.detail).toContain('add them as request headers');
    expect(report.detail).toContain('Jupyter credentials are never sent to it');
  });

  it('says an answer that is not health JSON is not a chunk-wire endpoint', async () => {
    const network = new FakeNetwork();
    network.cors.set(
      `${EXTERNAL}health`,
      new Response('<html><body>Welcome to nginx</body></html>', {
        headers: { 'Content-Type': 'text/html; charset=utf-8' }
      })
    );
    const report = await check(network, { url: EXTERNAL });
    expect(report.verdict).toBe('not_agent');
    expect(report.summary).toBe('Not a chunk-wire endpoint');
    expect(report.detail).toContain('text/html (“Welcome to nginx”)');
  });

  it('says JSON without "ready" is not a chunk-wire endpoint either', async () => {
    const network = new FakeNetwork();
    network.cors.set(`${EXTERNAL}health`, json({ status: 'ok' }));
    const report = await check(network, { url: EXTERNAL });
    expect(report.verdict).toBe('not_agent');
  });

  it('reports a server error with its status and message', async () => {
    const network = new FakeNetwork();
    network.cors.set(`${EXTERNAL}health`, json({ message: 'Traceback…' }, 500));
    const report = await check(network, { url: EXTERNAL });
    expect(report.verdict).toBe('server_error');
    expect(report.summary).toBe('Server error (HTTP 500)');
    expect(report.detail).toContain('Traceback…');
  });

  it('reports other refusals with their status', async () => {
    const network = new FakeNetwork();
    network.cors.set(`${EXTERNAL}health`, new Response('', { status: 429 }));
    const report = await check(network, { url: EXTERNAL });
    expect(report).toMatchObject({
      verdict: 'http_error',
      summary: 'Refused: HTTP 429'
    });
  });

  it('tells CORS from "nothing there" with a no-cors retry', async () => {
    const network = new FakeNetwork();
    network.opaque.add(`${EXTERNAL}health`);
    const report = await check(network, {
      url: EXTERNAL,
      headers: { Authorization: 'Bearer x' }
    });
    expect(report.verdict).toBe('cors');
    expect(report.summary).toBe(
      'Blocked by CORS: agents.example.org:8050 does not allow http://lab.example.org'
    );
    expect(report.detail).toContain(
      'Allow the origin http://lab.example.org on the endpoint (Access-Control-Allow-Origin) and the request headers Content-Type, Authorization'
    );
    // The retry carries no credentials and no configured header.
    const retry = network.plainRequests.find(r => r.init.mode === 'no-cors')!;
    expect(retry.init.credentials).toBe('omit');
    expect(retry.init.headers).toBeUndefined();
    expect(network.probeRequests).toEqual([]);
  });

  it.each([
    [
      'dns',
      "the name 'agents.example.org' cannot be resolved (Name or service not known)",
      'Host name not found: agents.example.org'
    ],
    [
      'refused',
      'nothing listens at agents.example.org:8050 (connection refused)',
      'Connection refused: nothing listens at agents.example.org:8050'
    ],
    [
      'timeout',
      'no TCP connection to agents.example.org:8050 within 5 s',
      'Timed out: no answer from agents.example.org:8050'
    ],
    [
      'unreachable',
      'cannot connect to agents.example.org:8050: Network is unreachable',
      'Cannot reach agents.example.org:8050'
    ]
  ] as const)(
    'asks the Jupyter server when the browser sees nothing: %s',
    async (result, detail, summary) => {
      const network = new FakeNetwork();
      network.serverProbe = { result, detail };
      const report = await check(network, { url: EXTERNAL });
      expect(report.verdict).toBe(result);
      expect(report.summary).toBe(summary);
      expect(report.detail).toContain(`From the Jupyter server: ${detail}`);
      expect(network.probeRequests).toEqual([
        { url: `${EXTERNAL}health`, timeout_seconds: 5 }
      ]);
    }
  );

  it('says the server reaches it when only the browser cannot', async () => {
    const network = new FakeNetwork();
    network.serverProbe = {
      result: 'ok',
      status: 200,
      detail: 'agents.example.org:8050 answers HTTP 200 OK'
    };
    const report = await check(network, { url: EXTERNAL });
    expect(report.verdict).toBe('unreachable');
    expect(report.detail).toContain(
      'From the Jupyter server it answers (agents.example.org:8050 answers HTTP 200 OK), so it is reachable from the server but not from your browser'
    );
  });

  it('still reports "cannot reach" when the server cannot tell', async () => {
    const network = new FakeNetwork();
    network.serverProbe = new Response('', { status: 404 });
    const report = await check(network, { url: EXTERNAL });
    expect(report.verdict).toBe('unreachable');
    expect(report.detail).toContain(
      'The Jupyter server could not tell why: this Jupyter server has no agent-panel probe route'
    );
  });

  it('says the Jupyter server is down when its own route fails', async () => {
    const network = new FakeNetwork();
    network.serverProbe = new Response('', { status: 502 });
    const report = await check(network, { url: 'agent-panel/' });
    expect(report.verdict).toBe('unreachable');
    expect(report.detail).toContain(
      'The Jupyter server itself does not answer: is it running?'
    );
  });

  it('times out after the connect timeout and says what the server saw', async () => {
    const network = new FakeNetwork();
    network.cors.set(`${EXTERNAL}health`, 'hang');
    network.serverProbe = {
      result: 'timeout',
      detail:
        'connected to agents.example.org:8050, but no HTTP answer within 0.05 s'
    };
    const report = await check(network, {
      url: EXTERNAL,
      connectTimeoutSeconds: 0.05
    });
    expect(report.verdict).toBe('timeout');
    expect(report.summary).toBe(
      'Timed out: no answer from agents.example.org:8050 within 0.05 s'
    );
    expect(report.detail).toContain(
      'Your browser got no answer within 0.05 s.'
    );
    expect(report.detail).toContain('no HTTP answer within 0.05 s');
  });

  it('caps the wait of a check at 10 s whatever the connect timeout', async () => {
    const network = new FakeNetwork();
    network.serverProbe = { result: 'refused', detail: 'refused' };
    await check(network, { url: EXTERNAL, connectTimeoutSeconds: 600 });
    expect(network.probeRequests).toEqual([
      { url: `${EXTERNAL}health`, timeout_seconds: 5 }
    ]);
  });

  it('says an https page cannot call an http endpoint', async () => {
    const report = await check(
      new FakeNetwork(),
      { url: EXTERNAL },
      undefined,
      'https://lab.example.org/lab'
    );
    expect(report.verdict).toBe('mixed_content');
  });

  it('does not call http://127.0.0.1 mixed content (browsers allow loopback)', async () => {
    const network = new FakeNetwork();
    network.serverProbe = { result: 'refused', detail: 'refused' };
    const report = await check(
      network,
      { url: 'http://127.0.0.1:9/' },
      undefined,
      'https://lab.example.org/lab'
    );
    expect(report.verdict).toBe('refused');
  });

  it('says when the endpoint has no transport', async () => {
    const report = await checkConnection({
      endpoint: endpoint({ transport: 'agui', url: EXTERNAL }),
      transport: null,
      problem: 'No agui transport is available for endpoint "Agent".',
      probe: new FakeNetwork().probe(),
      trans
    });
    expect(report).toMatchObject({
      verdict: 'no_transport',
      summary: 'No transport for this endpoint',
      detail: 'No agui transport is available for endpoint "Agent".'
    });
  });
});

describe('checkConnection for AG-UI over HTTP', () => {
  it('GETs the endpoint itself and names the agent', async () => {
    const network = new FakeNetwork();
    network.cors.set(
      EXTERNAL,
      json({ status: 'ok', agent: { name: 'tools' } })
    );
    const report = await check(network, { transport: 'agui', url: EXTERNAL });
    expect(report).toMatchObject({
      target: EXTERNAL,
      verdict: 'ok',
      summary: 'Connected: tools'
    });
  });

  it('takes a 405 to GET as a POST-only AG-UI endpoint', async () => {
    const network = new FakeNetwork();
    network.cors.set(
      EXTERNAL,
      new Response('', { status: 405, statusText: 'Method Not Allowed' })
    );
    const report = await check(network, { transport: 'agui', url: EXTERNAL });
    expect(report).toMatchObject({
      verdict: 'ok',
      summary: 'Reachable (it only accepts POST)'
    });
  });

  it('says a page that is not JSON is not an AG-UI endpoint', async () => {
    const network = new FakeNetwork();
    network.cors.set(
      EXTERNAL,
      new Response('<!doctype html><title>JupyterLab</title>', {
        headers: { 'Content-Type': 'text/html' }
      })
    );
    const report = await check(network, { transport: 'agui', url: EXTERNAL });
    expect(report).toMatchObject({
      verdict: 'not_agent',
      summary: 'Not an AG-UI endpoint'
    });
  });

  it('says an unhealthy status needs setup', async () => {
    const network = new FakeNetwork();
    network.cors.set(EXTERNAL, json({ status: 'loading' }));
    const report = await check(network, { transport: 'agui', url: EXTERNAL });
    expect(report).toMatchObject({
      verdict: 'needs_setup',
      detail: `${EXTERNAL} reports status "loading".`
    });
  });
});

describe('checkConnection for a websocket', () => {
  const WS = 'ws://agents.example.org:8050/ws/agent';

  it('is ok when the socket opens', async () => {
    const network = new FakeNetwork();
    const transport = new FakeTransport();
    transport.health = async () => ({
      state: 'healthy',
      message: 'connected',
      agentName: null
    });
    const report = await check(
      network,
      { transport: 'agui', url: WS },
      transport
    );
    expect(report).toMatchObject({
      verdict: 'ok',
      summary: 'Connected: the websocket opened'
    });
  });

  it('reports a refused port without waiting for the socket timeout', async () => {
    const network = new FakeNetwork();
    network.serverProbe = {
      result: 'refused',
      detail: 'nothing listens at agents.example.org:8050 (connection refused)'
    };
    const transport = new FakeTransport();
    transport.health = () => new Promise(() => undefined);
    const report = await check(
      network,
      { transport: 'agui', url: WS },
      transport
    );
    expect(report.verdict).toBe('refused');
    expect(network.probeRequests).toEqual([
      { url: 'http://agents.example.org:8050/ws/agent', timeout_seconds: 5 }
    ]);
  });

  it('says a 404 from the server is a wrong websocket path', async () => {
    const network = new FakeNetwork();
    network.serverProbe = { result: 'ok', status: 404, detail: 'HTTP 404' };
    const transport = new FakeTransport();
    transport.health = async () => {
      throw new Error('the websocket closed before it opened');
    };
    const report = await check(
      network,
      { transport: 'agui', url: WS },
      transport
    );
    expect(report).toMatchObject({
      verdict: 'not_found',
      summary: 'Not found (HTTP 404): wrong path'
    });
  });

  it('says the server is up but refused the socket otherwise', async () => {
    const network = new FakeNetwork();
    network.serverProbe = {
      result: 'ok',
      status: 200,
      detail: 'agents.example.org:8050 answers HTTP 200 OK'
    };
    const transport = new FakeTransport();
    transport.health = async () => {
      throw new Error('the websocket closed before it opened');
    };
    const report = await check(
      network,
      { transport: 'agui', url: WS },
      transport
    );
    expect(report.verdict).toBe('unreachable');
    expect(report.summary).toBe('The websocket did not open');
    expect(report.detail).toBe(
      'the websocket closed before it opened. From the Jupyter server: agents.example.org:8050 answers HTTP 200, so the server is up: the path may be wrong, or it refuses websockets from this page (agents.example.org:8050 answers HTTP 200 OK).'
    );
  });
});

describe('checkConnection for the kernel comm', () => {
  it.each([
    [
      { state: 'healthy', message: 'ready', agentName: 'Kernel Agent' },
      'ok',
      'Connected: Kernel Agent'
    ],
    [
      {
        state: 'needs_setup',
        message: 'Run %load_ext jupyterlab_agent_panel in the notebook.',
        agentName: null
      },
      'needs_setup',
      'The agent needs setup'
    ],
    [
      { state: 'unreachable', message: 'No kernel is bound', agentName: null },
      'unreachable',
      'Cannot reach the agent'
    ]
  ] as const)('reports the hello: %j', async (health, verdict, summary) => {
    const transport = new FakeTransport();
    transport.health = async () => ({ ...health });
    const report = await check(
      new FakeNetwork(),
      { transport: 'comm', url: '' },
      transport
    );
    expect(report).toMatchObject({
      target: 'fake://agent',
      verdict,
      summary,
      detail: health.message
    });
  });

  it('reports a failed check with its message', () => {
    expect(
      classifyHealth(
        endpoint({ transport: 'comm' }),
        'nb.ipynb',
        { ok: false, message: 'The kernel connection was closed' },
        trans
      )
    ).toMatchObject({
      verdict: 'unreachable',
      detail: 'The kernel connection was closed'
    });
  });
});

describe('probe helpers', () => {
  it('spells out default ports', () => {
    expect(hostOf('https://example.org/x')).toBe('example.org:443');
    expect(hostOf('http://example.org/x')).toBe('example.org:80');
    expect(hostOf('wss://example.org/x')).toBe('example.org:443');
    expect(hostOf('http://127.0.0.1:8050/')).toBe('127.0.0.1:8050');
  });

  it('probes a websocket URL as its HTTP twin', () => {
    expect(asHttpUrl('ws://h:1/ws')).toBe('http://h:1/ws');
    expect(asHttpUrl('WSS://h/ws')).toBe('https://h/ws');
    expect(asHttpUrl('http://h/')).toBe('http://h/');
  });

  it('refuses a probe answer that is not one', async () => {
    const network = new FakeNetwork();
    network.serverProbe = json({ result: 'maybe', detail: 'x' });
    expect(
      await probeFromServer(network.serverSettings, 'http://h/', 1)
    ).toEqual({
      result: 'unavailable',
      detail: `${BASE}agent-panel/probe answered something else than a probe result`
    });
  });

  it('reports a probe route that fails', async () => {
    const network = new FakeNetwork();
    network.serverProbe = json({ message: 'boom' }, 500);
    expect(
      await probeFromServer(network.serverSettings, 'http://h/', 1)
    ).toEqual({
      result: 'unavailable',
      detail: `HTTP 500 from ${BASE}agent-panel/probe: boom`
    });
  });
});
