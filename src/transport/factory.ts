import type { ServerConnection } from '@jupyterlab/services';
import type { IEndpointSettings } from '../settings';
import { makeEndpointFetch, resolveEndpoint } from './endpoint';
import { ChunkWireHttpTransport } from './http';
import type { IAgentTransport } from './types';

/** Build the transport an endpoint setting describes. */
export function createTransport(
  endpoint: IEndpointSettings,
  serverSettings: ServerConnection.ISettings
): IAgentTransport {
  switch (endpoint.transport) {
    case 'http': {
      const resolved = resolveEndpoint(endpoint.url, serverSettings.baseUrl);
      return new ChunkWireHttpTransport({
        baseUrl: resolved.url,
        fetch: makeEndpointFetch(resolved, serverSettings, endpoint.headers),
        connectTimeoutMs: endpoint.connectTimeoutSeconds * 1000,
        idleTimeoutMs: endpoint.idleTimeoutSeconds * 1000
      });
    }
    default:
      throw new Error(
        `The ${endpoint.transport} transport of endpoint "${endpoint.name}" is not available yet.`
      );
  }
}
