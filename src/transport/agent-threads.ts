/**
 * The thread routes of this server's agents (docs/protocol.md §6.1):
 * `GET|DELETE <agent>/threads/<thread_id>`, for `http` endpoints served by
 * this Jupyter server under `agent-panel/`. Other endpoints keep their
 * memory where the panel cannot see it: nothing is asked of them.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { IEndpointSettings } from '../contracts/settings';
import { isObject } from '../wire/json';
import { resolveEndpoint } from './endpoint';
import type { FetchLike } from './types';

export interface IAgentThreads {
  /** Whether the agent remembers `threadId`; null when it cannot tell. */
  known(endpoint: IEndpointSettings, threadId: string): Promise<boolean | null>;
  /** Delete the thread from the agent's checkpointer (nothing for other endpoints). */
  forget(endpoint: IEndpointSettings, threadId: string): Promise<void>;
}

export function serverAgentThreads(
  serverSettings: ServerConnection.ISettings,
  fetchFn: FetchLike = (input, init) =>
    ServerConnection.makeRequest(input, init, serverSettings)
): IAgentThreads {
  const agents = URLExt.join(serverSettings.baseUrl, 'agent-panel/');
  const routeOf = (endpoint: IEndpointSettings, threadId: string) => {
    if (endpoint.transport !== 'http') {
      return null;
    }
    const resolved = resolveEndpoint(endpoint.url, serverSettings.baseUrl);
    const base = resolved.url.endsWith('/') ? resolved.url : `${resolved.url}/`;
    return resolved.isJupyterRoute && base.startsWith(agents)
      ? URLExt.join(base, 'threads', encodeURIComponent(threadId))
      : null;
  };
  return {
    async known(endpoint, threadId) {
      const url = routeOf(endpoint, threadId);
      if (!url) {
        return null;
      }
      const response = await fetchFn(url, { method: 'GET' });
      if (!response.ok) {
        // 404: a server older than the thread routes; it cannot tell.
        return null;
      }
      const body: unknown = await response.json().catch(() => null);
      return isObject(body) && typeof body.known === 'boolean'
        ? body.known
        : null;
    },
    async forget(endpoint, threadId) {
      const url = routeOf(endpoint, threadId);
      if (!url) {
        return;
      }
      const response = await fetchFn(url, { method: 'DELETE' });
      if (!response.ok && response.status !== 404) {
        throw new Error(
          `${url} answered ${response.status}: the agent keeps the thread`
        );
      }
    }
  };
}
