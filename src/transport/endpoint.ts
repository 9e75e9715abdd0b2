import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { IEndpointSettings } from '../contracts/settings';
import type { FetchLike } from './types';

/** An endpoint's timeouts as transports take them (ms). */
export interface IEndpointTimeouts {
  connectTimeoutMs: number;
  /** 0 disables the idle timeout. */
  idleTimeoutMs: number;
}

export function endpointTimeouts(
  endpoint: IEndpointSettings
): IEndpointTimeouts {
  return {
    connectTimeoutMs: endpoint.connectTimeoutSeconds * 1000,
    idleTimeoutMs: endpoint.idleTimeoutSeconds * 1000
  };
}

/** What an HTTP transport needs of an endpoint. */
export interface IHttpEndpoint extends IEndpointTimeouts {
  /** The URL resolved against the Jupyter server. */
  url: string;
  /** The fetch for it (credentials already decided). */
  fetch: FetchLike;
  /** A route of this Jupyter server (docs/protocol.md §6.5). */
  isJupyterRoute: boolean;
}

export function httpEndpoint(
  endpoint: IEndpointSettings,
  serverSettings: ServerConnection.ISettings
): IHttpEndpoint {
  const resolved = resolveEndpoint(endpoint.url, serverSettings.baseUrl);
  return {
    url: resolved.url,
    fetch: makeEndpointFetch(resolved, serverSettings, endpoint.headers),
    isJupyterRoute: resolved.isJupyterRoute,
    ...endpointTimeouts(endpoint)
  };
}

/** An endpoint URL resolved against the Jupyter server. */
export interface IResolvedEndpoint {
  /** Absolute URL, ending with `/` when it is a base for sub-routes. */
  url: string;
  /** Same origin as Jupyter and under its base URL: Jupyter credentials apply. */
  isJupyterRoute: boolean;
}

/**
 * Resolve a settings URL: relative paths live under the Jupyter `baseUrl`
 * (so a JupyterHub prefix such as `/user/ada/` is kept), a leading `/` is
 * origin-relative, and absolute URLs are used as they are.
 */
export function resolveEndpoint(
  url: string,
  baseUrl: string
): IResolvedEndpoint {
  const base = new URL(baseUrl);
  let resolved: URL;
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    resolved = new URL(url);
  } else if (url.startsWith('/')) {
    resolved = new URL(url, base.origin);
  } else {
    resolved = new URL(URLExt.join(base.href, url));
  }
  const basePath = base.pathname.endsWith('/')
    ? base.pathname
    : `${base.pathname}/`;
  return {
    url: resolved.href,
    isJupyterRoute:
      resolved.origin === base.origin &&
      `${resolved.pathname}/`.startsWith(basePath)
  };
}

/**
 * The fetch to use for an endpoint. Jupyter routes go through
 * `ServerConnection.makeRequest`, which adds the token and XSRF header; any
 * other URL gets a plain fetch that omits cookies and carries only the
 * endpoint's own configured headers, so Jupyter credentials never leave.
 */
export function makeEndpointFetch(
  endpoint: IResolvedEndpoint,
  serverSettings: ServerConnection.ISettings,
  headers: Record<string, string>,
  plainFetch: FetchLike = (input, init) => fetch(input, init)
): FetchLike {
  if (endpoint.isJupyterRoute) {
    return (input, init) =>
      ServerConnection.makeRequest(input, init, serverSettings);
  }
  return (input, init) =>
    plainFetch(input, {
      ...init,
      credentials: 'omit',
      headers: withHeaders(init.headers, headers)
    });
}

/** The request's headers with the configured ones set over them (names are case-insensitive). */
function withHeaders(
  init: HeadersInit | undefined,
  configured: Record<string, string>
): Record<string, string> {
  const merged = new Headers(init);
  for (const [name, value] of Object.entries(configured)) {
    merged.set(name, value);
  }
  const result: Record<string, string> = {};
  merged.forEach((value, key) => {
    result[key] = value;
  });
  return result;
}
