/**
 * Where an endpoint URL points under a Jupyter base URL such as JupyterHub's
 * `/user/ada/`, and which credentials go with the requests to it.
 */
import { ServerConnection } from '@jupyterlab/services';
import { aguiHttpTransportFactory } from '../../transport/agui/agui-http';
import { aguiWsTransportFactory } from '../../transport/agui/agui-ws';
import { makeEndpointFetch, resolveEndpoint } from '../../transport/endpoint';
import { httpTransportFactory } from '../../transport/http/http';
import {
  DEFAULT_ENDPOINT,
  type IEndpointSettings
} from '../../contracts/settings';

const BASE = 'http://hub.example.org/user/ada/';
const TOKEN = 'jupyter-token-ada';
const XSRF = 'xsrf-cookie-ada';

describe('resolveEndpoint under /user/ada/', () => {
  it.each([
    ['agent-panel/', 'http://hub.example.org/user/ada/agent-panel/', true],
    [
      'agent-panel/agents/research/',
      'http://hub.example.org/user/ada/agent-panel/agents/research/',
      true
    ],
    ['./agent-panel/', 'http://hub.example.org/user/ada/agent-panel/', true],
    // Another user's server on the same hub is not ours to authenticate to.
    [
      '../bob/agent-panel/',
      'http://hub.example.org/user/bob/agent-panel/',
      false
    ],
    [
      '%2e%2e/bob/agent-panel/',
      'http://hub.example.org/user/bob/agent-panel/',
      false
    ],
    ['/agent-panel/', 'http://hub.example.org/agent-panel/', false],
    [
      '/user/ada/agent-panel/',
      'http://hub.example.org/user/ada/agent-panel/',
      true
    ],
    [
      '/user/adam/agent-panel/',
      'http://hub.example.org/user/adam/agent-panel/',
      false
    ],
    [
      'http://hub.example.org/user/ada/agent-panel/',
      'http://hub.example.org/user/ada/agent-panel/',
      true
    ],
    // Same origin spelled differently is still the same origin.
    [
      'HTTP://HUB.example.org:80/user/ada/agent-panel/',
      'http://hub.example.org/user/ada/agent-panel/',
      true
    ],
    ['http://hub.example.org/other/', 'http://hub.example.org/other/', false],
    [
      'https://hub.example.org/user/ada/agent-panel/',
      'https://hub.example.org/user/ada/agent-panel/',
      false
    ],
    [
      'http://hub.example.org:8080/user/ada/',
      'http://hub.example.org:8080/user/ada/',
      false
    ],
    ['http://127.0.0.1:8050/agent', 'http://127.0.0.1:8050/agent', false]
  ])('%s → %s (Jupyter route: %s)', (url, resolved, isJupyterRoute) => {
    expect(resolveEndpoint(url, BASE)).toEqual({
      url: resolved,
      isJupyterRoute
    });
  });

  it('treats the base URL itself without its slash as a Jupyter route', () => {
    expect(resolveEndpoint('/user/ada', BASE).isJupyterRoute).toBe(true);
  });
});

/** A ServerConnection whose fetch records the requests it is given. */
function fakeServer(baseUrl = BASE) {
  const jupyterRequests: Request[] = [];
  const serverSettings = ServerConnection.makeSettings({
    baseUrl,
    token: TOKEN,
    fetch: async (request: RequestInfo) => {
      jupyterRequests.push(request as Request);
      return new Response('{}', { status: 200 });
    }
  });
  const plainRequests: { url: string; init: RequestInit }[] = [];
  const plainFetch = async (url: string, init: RequestInit) => {
    plainRequests.push({ url, init });
    return new Response('{}', { status: 200 });
  };
  return { serverSettings, jupyterRequests, plainRequests, plainFetch };
}

function headersOf(init: RequestInit): Record<string, string> {
  const result: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => {
    result[key] = value;
  });
  return result;
}

describe('makeEndpointFetch', () => {
  beforeEach(() => {
    document.cookie = `_xsrf=${XSRF}; path=/`;
  });

  afterEach(() => {
    document.cookie = '_xsrf=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  });

  it('sends the Jupyter token and XSRF header to a Jupyter route, not the configured headers', async () => {
    const server = fakeServer();
    const endpoint = resolveEndpoint('agent-panel/', BASE);
    const fetch = makeEndpointFetch(
      endpoint,
      server.serverSettings,
      { Authorization: 'Bearer external' },
      server.plainFetch
    );
    await fetch(`${endpoint.url}chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}'
    });
    expect(server.plainRequests).toEqual([]);
    const [request] = server.jupyterRequests;
    // ServerConnection adds a cache-busting query; never a token.
    expect(request.url).toMatch(
      /^http:\/\/hub\.example\.org\/user\/ada\/agent-panel\/chat\?\d+$/
    );
    expect(request.headers.get('Authorization')).toBe(`token ${TOKEN}`);
    expect(request.headers.get('X-XSRFToken')).toBe(XSRF);
  });

  it.each([
    'http://127.0.0.1:8050/agent/',
    '../bob/agent-panel/',
    '/agent-panel/'
  ])(
    'sends %s only its configured headers, without cookies or a token',
    async url => {
      const server = fakeServer();
      const endpoint = resolveEndpoint(url, BASE);
      const fetch = makeEndpointFetch(
        endpoint,
        server.serverSettings,
        { Authorization: 'Bearer test-123' },
        server.plainFetch
      );
      await fetch(`${endpoint.url}chat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}'
      });
      expect(server.jupyterRequests).toEqual([]);
      const [{ url: sent, init }] = server.plainRequests;
      expect(sent).toBe(`${endpoint.url}chat`);
      expect(sent).not.toContain('token');
      expect(init.credentials).toBe('omit');
      expect(headersOf(init)).toEqual({
        authorization: 'Bearer test-123',
        'content-type': 'application/json'
      });
    }
  );

  it('lets a configured header win over the request’s own', async () => {
    const server = fakeServer();
    const endpoint = resolveEndpoint('https://example.org/', BASE);
    const fetch = makeEndpointFetch(
      endpoint,
      server.serverSettings,
      { Accept: 'application/x-ndjson' },
      server.plainFetch
    );
    await fetch(endpoint.url, {
      method: 'GET',
      headers: { Accept: 'text/event-stream' }
    });
    expect(headersOf(server.plainRequests[0].init)).toEqual({
      accept: 'application/x-ndjson'
    });
  });
});

/** Each transport's requests, through a ServerConnection that records them. */
describe('transports keep Jupyter credentials to Jupyter routes', () => {
  const endpoint = (
    url: string,
    transport: 'http' | 'agui'
  ): IEndpointSettings => ({
    ...DEFAULT_ENDPOINT,
    transport,
    url,
    headers: { Authorization: 'Bearer test-123' }
  });

  let plainRequests: { url: string; init: RequestInit }[];
  let originalFetch: typeof fetch;

  beforeEach(() => {
    document.cookie = `_xsrf=${XSRF}; path=/`;
    plainRequests = [];
    originalFetch = window.fetch;
    window.fetch = (async (url: string, init: RequestInit) => {
      plainRequests.push({ url, init });
      return new Response('{"ready": true, "status": "ok"}', { status: 200 });
    }) as typeof fetch;
  });

  afterEach(() => {
    window.fetch = originalFetch;
    document.cookie = '_xsrf=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  });

  it.each([
    ['http', httpTransportFactory],
    ['agui', aguiHttpTransportFactory]
  ] as const)(
    'the %s transport checks an external endpoint with its headers only',
    async (kind, factory) => {
      const server = fakeServer();
      const transport = factory(server.serverSettings)(
        endpoint('http://127.0.0.1:8050/agent/', kind)
      );
      await transport.checkHealth();
      transport.dispose();
      expect(server.jupyterRequests).toEqual([]);
      expect(plainRequests).toHaveLength(1);
      const { url, init } = plainRequests[0];
      expect(url.startsWith('http://127.0.0.1:8050/agent/')).toBe(true);
      expect(url).not.toContain('token');
      expect(init.credentials).toBe('omit');
      expect(headersOf(init)).toEqual({ authorization: 'Bearer test-123' });
    }
  );

  it.each([
    ['http', httpTransportFactory],
    ['agui', aguiHttpTransportFactory]
  ] as const)(
    'the %s transport checks a Jupyter route with Jupyter credentials',
    async (kind, factory) => {
      const server = fakeServer();
      const transport = factory(server.serverSettings)(
        endpoint('agent-panel/', kind)
      );
      await transport.checkHealth().catch(() => undefined);
      transport.dispose();
      expect(plainRequests).toEqual([]);
      const [request] = server.jupyterRequests;
      expect(request.url.startsWith(BASE)).toBe(true);
      expect(request.headers.get('Authorization')).toBe(`token ${TOKEN}`);
      expect(request.headers.get('X-XSRFToken')).toBe(XSRF);
    }
  );

  it('the websocket transport opens the configured URL as it is, with no token', async () => {
    const opened: string[] = [];
    const originalWebSocket = window.WebSocket;
    window.WebSocket = class {
      constructor(url: string) {
        opened.push(url);
        throw new Error('no sockets in this test');
      }
    } as unknown as typeof WebSocket;
    try {
      const transport = aguiWsTransportFactory()(
        endpoint('ws://127.0.0.1:8050/ws/agent', 'agui')
      );
      const health = transport.checkHealth().catch(() => undefined);
      transport.dispose();
      await health;
    } finally {
      window.WebSocket = originalWebSocket;
    }
    expect(opened.length).toBeGreaterThan(0);
    expect(new Set(opened)).toEqual(new Set(['ws://127.0.0.1:8050/ws/agent']));
  });
});
