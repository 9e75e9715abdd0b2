/**
 * "Test connection": check the current endpoint once and say precisely what
 * is wrong. The I/O is `transport/http/probe.ts` (and the transport's own health
 * check for the comm and websocket); the classification here and in
 * `http-verdict.ts` is pure.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IEndpointSettings } from '../../contracts/settings';
import type {
  IConnectionProbe,
  ServerProbeResult
} from '../../transport/http/probe';
import type { IAgentTransport, IHealthReport } from '../../contracts/transport';
import { errorMessage } from '../../wire/json';
import {
  classifyHttp,
  credentialsReport,
  fromServerOnly,
  hostOf,
  joinSentences,
  report,
  type IConnectionReport
} from './http-verdict';
import { panelStrings } from '../../contracts/translation';

export type { ConnectionVerdict, IConnectionReport } from './http-verdict';
export { hostOf };

/** The longest a check waits for an answer, whatever the connect timeout. */
export const MAX_CHECK_SECONDS = 10;
/** The server's probe gets less: it must answer before the browser gives up. */
export const MAX_SERVER_PROBE_SECONDS = 5;

export interface ICheckConnectionOptions {
  endpoint: IEndpointSettings;
  /** The endpoint's transport; null when none could be built. */
  transport: IAgentTransport | null;
  /** Why there is no transport. */
  problem?: string | null;
  probe: IConnectionProbe;
  trans?: TranslationBundle;
}

/**
 * Check `endpoint`: HTTP `GET health`, AG-UI `GET <url>` (both through the
 * probe, with the endpoint's credentials), a websocket by opening it, the
 * comm by its `hello`.
 */
export async function checkConnection(
  options: ICheckConnectionOptions
): Promise<IConnectionReport> {
  const { endpoint, transport, probe } = options;
  const trans = options.trans ?? panelStrings();
  const seconds = Math.min(endpoint.connectTimeoutSeconds, MAX_CHECK_SECONDS);
  const serverSeconds = Math.min(seconds, MAX_SERVER_PROBE_SECONDS);
  if (!transport) {
    return report(endpoint, endpoint.url, 'no_transport', trans, {
      summary: trans.__('No transport for this endpoint'),
      detail:
        options.problem ??
        trans.__('No %1 transport is available.', endpoint.transport)
    });
  }
  if (endpoint.transport === 'comm') {
    return classifyHealth(
      endpoint,
      transport.label,
      await settle(transport.checkHealth()),
      trans
    );
  }
  if (/^wss?:/i.test(endpoint.url)) {
    return checkWebSocket(endpoint, transport, probe, serverSeconds, trans);
  }
  const target = probe.httpTarget(endpoint);
  const observation = await probe.observe(endpoint, target, seconds * 1000);
  const needsServer =
    observation.kind === 'timeout' ||
    (observation.kind === 'network-error' && !observation.answersWithoutCors);
  const server = needsServer
    ? await probe.fromServer(target.url, serverSeconds)
    : null;
  return classifyHttp(
    {
      endpoint,
      target,
      pageUrl: probe.pageUrl,
      observation,
      server
    },
    trans
  );
}

/** The socket opens (healthy) or not; the server probe says why not. */
async function checkWebSocket(
  endpoint: IEndpointSettings,
  transport: IAgentTransport,
  probe: IConnectionProbe,
  serverSeconds: number,
  trans: TranslationBundle
): Promise<IConnectionReport> {
  const opened = settle(transport.checkHealth());
  const server = probe.fromServer(endpoint.url, serverSeconds);
  // No need to wait for the socket's own timeout when the host is not there.
  const first = await Promise.race([
    opened.then(() => null),
    server.then(result =>
      result.result === 'dns' || result.result === 'refused' ? result : null
    )
  ]);
  const health = first ? null : await opened;
  return classifyWebSocket(
    endpoint,
    health,
    first ?? (health?.ok ? null : await server),
    trans
  );
}

/** A health check's outcome, never rejected. */
export type SettledHealth =
  { ok: true; report: IHealthReport } | { ok: false; message: string };

async function settle(check: Promise<IHealthReport>): Promise<SettledHealth> {
  try {
    return { ok: true, report: await check };
  } catch (error) {
    return {
      ok: false,
      message: errorMessage(error)
    };
  }
}

/** A transport's own health check (the comm's `hello`). */
export function classifyHealth(
  endpoint: IEndpointSettings,
  target: string,
  health: SettledHealth,
  trans: TranslationBundle
): IConnectionReport {
  if (!health.ok) {
    return report(endpoint, target, 'unreachable', trans, {
      summary: trans.__('Cannot reach the agent'),
      detail: health.message
    });
  }
  const { state, message, agentName } = health.report;
  if (state === 'healthy') {
    return report(endpoint, target, 'ok', trans, {
      summary: trans.__('Connected: %1', agentName ?? message),
      detail: message
    });
  }
  return report(
    endpoint,
    target,
    state === 'needs_setup' ? 'needs_setup' : 'unreachable',
    trans,
    {
      summary:
        state === 'needs_setup'
          ? trans.__('The agent needs setup')
          : trans.__('Cannot reach the agent'),
      detail: message
    }
  );
}

/** A websocket endpoint: it opened, or what the server probe saw. */
export function classifyWebSocket(
  endpoint: IEndpointSettings,
  health: SettledHealth | null,
  server: ServerProbeResult | null,
  trans: TranslationBundle
): IConnectionReport {
  const url = endpoint.url;
  if (health?.ok && health.report.state === 'healthy') {
    return report(endpoint, url, 'ok', trans, {
      summary: trans.__('Connected: the websocket opened'),
      detail: health.report.message
    });
  }
  const socketMessage = health && !health.ok ? health.message : '';
  const byServer = server ? fromServerOnly(url, server, trans) : null;
  if (byServer) {
    return report(endpoint, url, byServer.verdict, trans, {
      summary: byServer.summary,
      detail: joinSentences(socketMessage, byServer.detail)
    });
  }
  if (server?.result === 'ok') {
    const { status } = server;
    if (status === 404) {
      return report(endpoint, url, 'not_found', trans, {
        summary: trans.__('Not found (HTTP 404): wrong path'),
        detail: trans.__(
          'From the Jupyter server: %1 answers HTTP 404 for this path. Check the path of the websocket route.',
          hostOf(url)
        )
      });
    }
    if (status === 401 || status === 403) {
      return credentialsReport(endpoint, url, status, false, trans);
    }
  }
  return report(endpoint, url, 'unreachable', trans, {
    summary: trans.__('The websocket did not open'),
    detail: joinSentences(
      socketMessage,
      server?.result === 'ok'
        ? trans.__(
            'From the Jupyter server: %1 answers HTTP %2, so the server is up: the path may be wrong, or it refuses websockets from this page (%3).',
            hostOf(url),
            server.status,
            server.detail
          )
        : server
          ? trans.__('The Jupyter server could not tell why: %1', server.detail)
          : ''
    )
  });
}
