/**
 * The verdict of "Test connection" on an HTTP endpoint (chunk-wire `health`
 * or an AG-UI URL), from what the browser and the Jupyter server saw. Pure:
 * the I/O is `transport/http/probe.ts`.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IEndpointSettings } from '../../contracts/settings';
import {
  httpStatus,
  jsonMessage,
  plainText,
  readAguiHealth,
  readChunkWireHealth
} from '../../transport/http/http-answer';
import type {
  BrowserObservation,
  IHttpTarget,
  ServerProbeResult
} from '../../transport/http/probe';

export type ConnectionVerdict =
  | 'ok'
  | 'needs_setup'
  | 'dns'
  | 'refused'
  | 'timeout'
  | 'unreachable'
  | 'credentials'
  | 'not_found'
  | 'cors'
  | 'mixed_content'
  | 'not_agent'
  | 'server_error'
  | 'http_error'
  | 'no_transport';

export interface IConnectionReport {
  /** The endpoint's name. */
  endpoint: string;
  /** What was checked: a URL, or the comm's notebook and kernel. */
  target: string;
  verdict: ConnectionVerdict;
  ok: boolean;
  /** One short sentence (a notification shows 140 characters). */
  summary: string;
  /** What was seen and what to do about it. */
  detail: string;
}

export interface IHttpCheck {
  endpoint: IEndpointSettings;
  target: IHttpTarget;
  pageUrl: string;
  observation: BrowserObservation;
  /** The server probe's answer, asked when the browser saw no answer. */
  server: ServerProbeResult | null;
}

/** An HTTP endpoint (chunk-wire `health`, or an AG-UI URL). */
export function classifyHttp(
  check: IHttpCheck,
  trans: TranslationBundle
): IConnectionReport {
  const { endpoint, target, observation } = check;
  const url = target.url;
  switch (observation.kind) {
    case 'response':
      return classifyResponse(endpoint, target, observation, trans);
    case 'timeout': {
      const seconds = observation.afterMs / 1000;
      const server = check.server;
      const byServer =
        server && server.result !== 'timeout'
          ? fromServerOnly(url, server, trans)
          : null;
      if (byServer) {
        return report(endpoint, url, byServer.verdict, trans, byServer);
      }
      return report(endpoint, url, 'timeout', trans, {
        summary: trans.__(
          'Timed out: no answer from %1 within %2 s',
          hostOf(url),
          seconds
        ),
        detail: joinSentences(
          trans.__('Your browser got no answer within %1 s.', seconds),
          server?.result === 'ok'
            ? trans.__(
                'From the Jupyter server it answers (%1): it may be slow, or reachable from the server but not from your browser.',
                server.detail
              )
            : server?.result === 'timeout'
              ? trans.__('From the Jupyter server: %1', server.detail)
              : ''
        )
      });
    }
    case 'network-error':
      return classifyNetworkError(check, observation, trans);
  }
}

function classifyNetworkError(
  check: IHttpCheck,
  observation: Extract<BrowserObservation, { kind: 'network-error' }>,
  trans: TranslationBundle
): IConnectionReport {
  const { endpoint, target, pageUrl, server } = check;
  const url = target.url;
  const browserSaw = trans.__(
    'Your browser could not fetch %1 (%2).',
    url,
    observation.message
  );
  if (isMixedContent(pageUrl, url)) {
    return report(endpoint, url, 'mixed_content', trans, {
      summary: trans.__(
        'Blocked (mixed content): this https page cannot call an http URL'
      ),
      detail: joinSentences(
        browserSaw,
        trans.__(
          'Browsers block plain http requests from a page served over https (mixed content). Serve the endpoint over https, or proxy it through the Jupyter server.'
        )
      )
    });
  }
  if (observation.answersWithoutCors) {
    const origin = new URL(pageUrl).origin;
    const headers = Object.keys(endpoint.headers);
    return report(endpoint, url, 'cors', trans, {
      summary: trans.__(
        'Blocked by CORS: %1 does not allow %2',
        hostOf(url),
        origin
      ),
      detail: joinSentences(
        browserSaw,
        trans.__(
          'The server answers, but its answer lacks the CORS headers that let this page (%1) read it. Allow the origin %1 on the endpoint (Access-Control-Allow-Origin)%2, or serve the agent from the Jupyter server.',
          origin,
          headers.length > 0
            ? trans.__(
                ' and the request headers Content-Type, %1 (Access-Control-Allow-Headers)',
                headers.join(', ')
              )
            : ''
        )
      )
    });
  }
  const byServer = server ? fromServerOnly(url, server, trans) : null;
  if (byServer) {
    return report(endpoint, url, byServer.verdict, trans, {
      summary: byServer.summary,
      detail: joinSentences(browserSaw, byServer.detail)
    });
  }
  return report(endpoint, url, 'unreachable', trans, {
    summary: trans.__('Cannot reach %1', hostOf(url)),
    detail: joinSentences(
      browserSaw,
      target.isJupyterRoute
        ? trans.__('The Jupyter server itself does not answer: is it running?')
        : server?.result === 'ok'
          ? trans.__(
              'From the Jupyter server it answers (%1), so it is reachable from the server but not from your browser (a name or address such as 127.0.0.1 means a different machine for each).',
              server.detail
            )
          : server
            ? trans.__(
                'The Jupyter server could not tell why: %1',
                server.detail
              )
            : ''
    )
  });
}

/** The server probe's DNS / refused / timeout / unreachable verdicts. */
export function fromServerOnly(
  url: string,
  server: ServerProbeResult,
  trans: TranslationBundle
): { verdict: ConnectionVerdict; summary: string; detail: string } | null {
  const where = trans.__('From the Jupyter server: %1', server.detail);
  switch (server.result) {
    case 'dns':
      return {
        verdict: 'dns',
        summary: trans.__('Host name not found: %1', new URL(url).hostname),
        detail: joinSentences(
          where,
          trans.__('Check the host name in the endpoint URL.')
        )
      };
    case 'refused':
      return {
        verdict: 'refused',
        summary: trans.__(
          'Connection refused: nothing listens at %1',
          hostOf(url)
        ),
        detail: joinSentences(
          where,
          trans.__('Is the agent server running, on this port?')
        )
      };
    case 'timeout':
      return {
        verdict: 'timeout',
        summary: trans.__('Timed out: no answer from %1', hostOf(url)),
        detail: joinSentences(
          where,
          trans.__('A firewall may drop the connection, or the server hangs.')
        )
      };
    case 'unreachable':
      return {
        verdict: 'unreachable',
        summary: trans.__('Cannot reach %1', hostOf(url)),
        detail: where
      };
    default:
      return null;
  }
}

function classifyResponse(
  endpoint: IEndpointSettings,
  target: IHttpTarget,
  response: Extract<BrowserObservation, { kind: 'response' }>,
  trans: TranslationBundle
): IConnectionReport {
  const url = target.url;
  const { status } = response;
  const said = jsonMessage(response.body);
  const http = httpStatus(response);
  if (status === 401 || status === 403) {
    return credentialsReport(
      endpoint,
      url,
      status,
      target.isJupyterRoute,
      trans,
      said
    );
  }
  if (status === 404) {
    return report(endpoint, url, 'not_found', trans, {
      summary: trans.__('Not found (HTTP 404): wrong path'),
      detail: joinSentences(
        trans.__('Nothing answers at %1.', url),
        said,
        endpoint.transport === 'http'
          ? trans.__(
              'The URL of an http endpoint is the base of its chunk-wire routes (the path before chat, resume, cancel and health), e.g. agent-panel/ or agent-panel/agents/<name>/.'
            )
          : trans.__('Check the path of the AG-UI endpoint.')
      )
    });
  }
  if (status >= 500) {
    return report(endpoint, url, 'server_error', trans, {
      summary: trans.__('Server error (%1)', http),
      detail: joinSentences(trans.__('%1 answered %2.', url, http), said)
    });
  }
  if (endpoint.transport === 'agui' && status === 405) {
    return report(endpoint, url, 'ok', trans, {
      summary: trans.__('Reachable (it only accepts POST)'),
      detail: trans.__(
        '%1 answers GET with %2, as AG-UI endpoints that only take POST do; whether it speaks AG-UI shows with the first message.',
        url,
        http
      )
    });
  }
  if (status < 200 || status >= 300) {
    return report(endpoint, url, 'http_error', trans, {
      summary: trans.__('Refused: %1', http),
      detail: joinSentences(trans.__('%1 answered %2.', url, http), said)
    });
  }
  return endpoint.transport === 'http'
    ? classifyChunkWireHealth(endpoint, url, response, trans)
    : classifyAguiGet(endpoint, url, response, trans);
}

/** docs/protocol.md §6.1: `{"status", "agent_loaded", "ready", "message", "agent_name"?}`. */
function classifyChunkWireHealth(
  endpoint: IEndpointSettings,
  url: string,
  response: Extract<BrowserObservation, { kind: 'response' }>,
  trans: TranslationBundle
): IConnectionReport {
  const health = readChunkWireHealth(response.body);
  if (!health || health.ready === null) {
    return report(endpoint, url, 'not_agent', trans, {
      summary: trans.__('Not a chunk-wire endpoint'),
      detail: trans.__(
        '%1 answers, but with %2 instead of the chunk-wire health JSON ({"ready": …}). The URL of an http endpoint is the base of its chunk-wire routes (the path before chat and health).',
        url,
        describeBody(response)
      )
    });
  }
  const message = health.message ?? '';
  const { agentName } = health;
  if (!health.ready) {
    return report(endpoint, url, 'needs_setup', trans, {
      summary: trans.__('Reachable, but the agent is not ready'),
      detail: message || trans.__('%1 reports ready: false.', url)
    });
  }
  return report(endpoint, url, 'ok', trans, {
    summary: trans.__('Connected: %1', agentName ?? trans.__('ready')),
    detail: message
  });
}

/** langstage-agui answers `{"status": "ok", "agent": {"name": …}}`. */
function classifyAguiGet(
  endpoint: IEndpointSettings,
  url: string,
  response: Extract<BrowserObservation, { kind: 'response' }>,
  trans: TranslationBundle
): IConnectionReport {
  const health = readAguiHealth(response.body);
  if (!health?.isObject) {
    return report(endpoint, url, 'not_agent', trans, {
      summary: trans.__('Not an AG-UI endpoint'),
      detail: trans.__(
        '%1 answers GET with %2, not with JSON: it looks like another kind of page. Check the URL of the AG-UI endpoint.',
        url,
        describeBody(response)
      )
    });
  }
  const { agentName, status } = health;
  if (status !== undefined && status !== 'ok') {
    return report(endpoint, url, 'needs_setup', trans, {
      summary: trans.__('Reachable, but the agent is not ready'),
      detail: trans.__('%1 reports status "%2".', url, String(status))
    });
  }
  return report(endpoint, url, 'ok', trans, {
    summary: trans.__('Connected: %1', agentName ?? trans.__('reachable')),
    detail: agentName ? '' : trans.__('%1 answers GET with JSON.', url)
  });
}

export function credentialsReport(
  endpoint: IEndpointSettings,
  url: string,
  status: number,
  isJupyterRoute: boolean,
  trans: TranslationBundle,
  said = ''
): IConnectionReport {
  const hasHeaders = Object.keys(endpoint.headers).length > 0;
  return report(endpoint, url, 'credentials', trans, {
    summary: trans.__('Access denied (HTTP %1): check the credentials', status),
    detail: joinSentences(
      said,
      isJupyterRoute
        ? trans.__(
            'The Jupyter server refused the request: your Jupyter session may have expired. Reload the page and log in again.'
          )
        : hasHeaders
          ? trans.__(
              'The endpoint refused the credentials it was sent: check the request headers (%1) of the endpoint in the settings.',
              Object.keys(endpoint.headers).join(', ')
            )
          : trans.__(
              'The endpoint wants credentials: add them as request headers of the endpoint in the settings (e.g. Authorization). Jupyter credentials are never sent to it.'
            )
    )
  });
}

export function report(
  endpoint: IEndpointSettings,
  target: string,
  verdict: ConnectionVerdict,
  trans: TranslationBundle,
  text: { summary: string; detail: string }
): IConnectionReport {
  return {
    endpoint: endpoint.name,
    target,
    verdict,
    ok: verdict === 'ok',
    summary: text.summary,
    detail: text.detail
  };
}

function isMixedContent(pageUrl: string, url: string): boolean {
  const target = new URL(url);
  return (
    new URL(pageUrl).protocol === 'https:' &&
    target.protocol === 'http:' &&
    !isLoopback(target.hostname)
  );
}

/** Browsers let an https page call these over http. */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname)
  );
}

/** `host:port` of a URL, with the scheme's default port spelled out. */
export function hostOf(url: string): string {
  const parsed = new URL(url);
  const defaultPort = /^(https|wss):$/.test(parsed.protocol) ? '443' : '80';
  return `${parsed.hostname}:${parsed.port || defaultPort}`;
}

function describeBody(
  response: Extract<BrowserObservation, { kind: 'response' }>
): string {
  const type = response.contentType.split(';')[0].trim() || 'no content type';
  const text = plainText(response.body);
  return text
    ? `${type} (“${text.slice(0, 80)}${text.length > 80 ? '…' : ''}”)`
    : type;
}

export function joinSentences(...parts: string[]): string {
  return parts
    .map(part => part.trim())
    .filter(Boolean)
    .map(part => (/[.!?)]$/.test(part) ? part : `${part}.`))
    .join(' ');
}
