/**
 * The I/O of "Test connection": one GET of an endpoint the way its transport
 * would send it (same URL resolution, same credentials, same headers), a
 * `no-cors` retry that tells "no CORS" from "nothing there", and a request to
 * the Jupyter server's probe route, which can tell a DNS failure from a
 * refused connection or a timeout (a browser reports all of them as the same
 * `TypeError`). Classifying what was seen is
 * `model/connection/connection-check.ts`.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IEndpointSettings } from '../../contracts/settings';
import { errorMessage } from '../../wire/json';
import { makeEndpointFetch, resolveEndpoint } from '../endpoint';
import { describeHttpFailure } from './http-answer';
import type { FetchLike } from '../types';
import { panelStrings } from '../../contracts/translation';

/** The longest body excerpt kept from an answer. */
const BODY_LIMIT = 2000;

/** The URL a GET checks, and how it relates to the Jupyter server. */
export interface IHttpTarget {
  url: string;
  /** Jupyter's own origin and base URL: Jupyter credentials are used. */
  isJupyterRoute: boolean;
  /** Another origin than the page's: the answer needs CORS headers. */
  crossOrigin: boolean;
}

/** What one GET showed the browser. */
export type BrowserObservation =
  | {
      kind: 'response';
      status: number;
      statusText: string;
      contentType: string;
      /** The start of the body. */
      body: string;
    }
  | { kind: 'timeout'; afterMs: number }
  | {
      kind: 'network-error';
      /** The browser's message (it says nothing about the cause). */
      message: string;
      /**
       * Cross-origin only: a `no-cors` GET of the same URL got an (opaque)
       * answer, so something answers there but without CORS headers.
       */
      answersWithoutCors: boolean;
    };

/** What the Jupyter server saw when it tried the URL itself. */
export type ServerProbeResult =
  | { result: 'ok'; status: number; detail: string }
  | {
      result: 'dns' | 'refused' | 'timeout' | 'unreachable';
      detail: string;
    }
  /** The probe route is missing or failed: nothing is known. */
  | { result: 'unavailable'; detail: string };

export interface IConnectionProbe {
  /** The page's URL (its origin and protocol matter for CORS and mixed content). */
  readonly pageUrl: string;
  /**
   * What a GET checks for an HTTP endpoint: `<url>/health` for the chunk
   * wire, the endpoint itself for AG-UI over HTTP.
   */
  httpTarget(endpoint: IEndpointSettings): IHttpTarget;
  /** GET the target with the endpoint's own fetch. */
  observe(
    endpoint: IEndpointSettings,
    target: IHttpTarget,
    timeoutMs: number
  ): Promise<BrowserObservation>;
  /** Ask the Jupyter server to try `url` (`ws(s)` is tried as `http(s)`). */
  fromServer(url: string, timeoutSeconds: number): Promise<ServerProbeResult>;
}

export interface IConnectionProbeOptions {
  serverSettings: ServerConnection.ISettings;
  /** The page's URL; `window.location.href` by default. */
  pageUrl?: string;
  /** A plain fetch, for external endpoints and the `no-cors` retry. */
  plainFetch?: FetchLike;
  trans?: TranslationBundle;
}

export function createConnectionProbe(
  options: IConnectionProbeOptions
): IConnectionProbe {
  const { serverSettings } = options;
  const trans = options.trans ?? panelStrings();
  const pageUrl = options.pageUrl ?? window.location.href;
  const plainFetch: FetchLike =
    options.plainFetch ?? ((input, init) => fetch(input, init));
  return {
    pageUrl,
    httpTarget(endpoint) {
      const resolved = resolveEndpoint(endpoint.url, serverSettings.baseUrl);
      const url =
        endpoint.transport === 'http'
          ? URLExt.join(resolved.url, 'health')
          : resolved.url;
      return {
        url,
        isJupyterRoute: resolved.isJupyterRoute,
        crossOrigin: new URL(url).origin !== new URL(pageUrl).origin
      };
    },
    observe(endpoint, target, timeoutMs) {
      const resolved = {
        url: target.url,
        isJupyterRoute: target.isJupyterRoute
      };
      const endpointFetch = makeEndpointFetch(
        resolved,
        serverSettings,
        endpoint.headers,
        plainFetch
      );
      return observeGet(target, endpointFetch, plainFetch, timeoutMs);
    },
    fromServer(url, timeoutSeconds) {
      return probeFromServer(serverSettings, url, timeoutSeconds, trans);
    }
  };
}

/**
 * GET `target.url` with `endpointFetch`. A network error on a cross-origin
 * URL is retried as a `no-cors` GET with no headers and no credentials: an
 * opaque answer means the server is there but its answer lacks CORS headers.
 */
export async function observeGet(
  target: IHttpTarget,
  endpointFetch: FetchLike,
  plainFetch: FetchLike,
  timeoutMs: number
): Promise<BrowserObservation> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const response = await endpointFetch(target.url, {
      method: 'GET',
      cache: 'no-store',
      signal: controller.signal
    });
    const body = await response.text();
    return {
      kind: 'response',
      status: response.status,
      statusText: response.statusText,
      contentType: response.headers.get('Content-Type') ?? '',
      body: body.slice(0, BODY_LIMIT)
    };
  } catch (error) {
    if (timedOut) {
      return { kind: 'timeout', afterMs: timeoutMs };
    }
    return {
      kind: 'network-error',
      message: errorMessage(error),
      answersWithoutCors:
        target.crossOrigin &&
        (await answersOpaquely(target.url, plainFetch, controller.signal))
    };
  } finally {
    clearTimeout(timer);
  }
}

async function answersOpaquely(
  url: string,
  plainFetch: FetchLike,
  signal: AbortSignal
): Promise<boolean> {
  try {
    await plainFetch(url, {
      method: 'GET',
      mode: 'no-cors',
      credentials: 'omit',
      cache: 'no-store',
      signal
    });
    return true;
  } catch {
    return false;
  }
}

const PROBE_RESULTS = ['ok', 'dns', 'refused', 'timeout', 'unreachable'];

/** `POST <base_url>agent-panel/probe {url, timeout_seconds}`. */
export async function probeFromServer(
  serverSettings: ServerConnection.ISettings,
  url: string,
  timeoutSeconds: number,
  trans = panelStrings()
): Promise<ServerProbeResult> {
  const route = URLExt.join(serverSettings.baseUrl, 'agent-panel', 'probe');
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(
      route,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          url: asHttpUrl(url),
          timeout_seconds: timeoutSeconds
        })
      },
      serverSettings
    );
  } catch (error) {
    return {
      result: 'unavailable',
      detail: trans.__(
        'the Jupyter server did not answer: %1',
        errorMessage(error)
      )
    };
  }
  const body = await response.text();
  if (response.status === 404) {
    return {
      result: 'unavailable',
      detail: trans.__(
        'this Jupyter server has no agent-panel probe route (is the jupyterlab_agent_panel server extension enabled?)'
      )
    };
  }
  if (!response.ok) {
    return {
      result: 'unavailable',
      detail: describeHttpFailure(route, response, body, trans)
    };
  }
  let answer: any;
  try {
    answer = JSON.parse(body);
  } catch {
    answer = null;
  }
  if (
    !PROBE_RESULTS.includes(answer?.result) ||
    typeof answer.detail !== 'string'
  ) {
    return {
      result: 'unavailable',
      detail: trans.__('%1 answered something else than a probe result', route)
    };
  }
  if (answer.result === 'ok') {
    return {
      result: 'ok',
      status: typeof answer.status === 'number' ? answer.status : 0,
      detail: answer.detail
    };
  }
  return { result: answer.result, detail: answer.detail };
}

/** A websocket URL's HTTP twin (the same host and port answer both). */
export function asHttpUrl(url: string): string {
  return url.replace(/^ws(s?):/i, (_, secure: string) =>
    secure ? 'https:' : 'http:'
  );
}
