/**
 * Typed view of the `jupyterlab-agent-panel:plugin` settings.
 *
 * The schema validates shapes; this module adds what JSON Schema cannot say
 * (unique names, a default that exists, a usable URL) and reports each problem
 * with the field it concerns.
 */

export type TransportKind = 'http' | 'comm' | 'agui';

export interface IEndpointSettings {
  name: string;
  transport: TransportKind;
  url: string;
  headers: Record<string, string>;
  commTarget: string;
  notebook: string;
  connectTimeoutSeconds: number;
  idleTimeoutSeconds: number;
}

export interface IPanelSettings {
  endpoints: IEndpointSettings[];
  defaultEndpoint: string;
  maxToolResultChars: number;
  insertPosition: 'below-active' | 'end';
  sendKey: 'Enter' | 'Ctrl+Enter';
}

export interface ISettingsProblem {
  /** JSON-pointer-like path of the offending field, e.g. `endpoints[1].url`. */
  field: string;
  message: string;
}

export const DEFAULT_ENDPOINT: IEndpointSettings = {
  name: 'Built-in agent (server)',
  transport: 'http',
  url: 'agent-panel/',
  headers: {},
  commTarget: 'agent_panel',
  notebook: '',
  connectTimeoutSeconds: 30,
  idleTimeoutSeconds: 600
};

export const DEFAULT_SETTINGS: IPanelSettings = {
  endpoints: [
    DEFAULT_ENDPOINT,
    {
      ...DEFAULT_ENDPOINT,
      name: 'Notebook kernel',
      transport: 'comm',
      url: ''
    }
  ],
  defaultEndpoint: DEFAULT_ENDPOINT.name,
  maxToolResultChars: 2000,
  insertPosition: 'below-active',
  sendKey: 'Enter'
};

const TRANSPORTS: readonly TransportKind[] = ['http', 'comm', 'agui'];

/**
 * Read the composite settings. Invalid endpoints are dropped (and reported),
 * so one bad entry never disables the panel.
 */
export function parseSettings(composite: unknown): {
  settings: IPanelSettings;
  problems: ISettingsProblem[];
} {
  const raw = isObject(composite) ? composite : {};
  const problems: ISettingsProblem[] = [];
  const endpoints: IEndpointSettings[] = [];
  const rawEndpoints = Array.isArray(raw.endpoints)
    ? raw.endpoints
    : DEFAULT_SETTINGS.endpoints;
  rawEndpoints.forEach((entry: unknown, index: number) => {
    const field = `endpoints[${index}]`;
    const endpoint = parseEndpoint(entry, field, problems);
    if (!endpoint) {
      return;
    }
    if (endpoints.some(e => e.name === endpoint.name)) {
      problems.push({
        field: `${field}.name`,
        message: `the name "${endpoint.name}" is used by another endpoint`
      });
      return;
    }
    endpoints.push(endpoint);
  });
  if (endpoints.length === 0) {
    problems.push({
      field: 'endpoints',
      message: 'no usable endpoint; using the built-in agent'
    });
    endpoints.push(DEFAULT_ENDPOINT);
  }
  let defaultEndpoint = stringOr(raw.defaultEndpoint, endpoints[0].name);
  if (!endpoints.some(e => e.name === defaultEndpoint)) {
    problems.push({
      field: 'defaultEndpoint',
      message: `no endpoint is named "${defaultEndpoint}"; using "${endpoints[0].name}"`
    });
    defaultEndpoint = endpoints[0].name;
  }
  return {
    settings: {
      endpoints,
      defaultEndpoint,
      maxToolResultChars: positiveOr(
        raw.maxToolResultChars,
        DEFAULT_SETTINGS.maxToolResultChars
      ),
      insertPosition: raw.insertPosition === 'end' ? 'end' : 'below-active',
      sendKey: raw.sendKey === 'Ctrl+Enter' ? 'Ctrl+Enter' : 'Enter'
    },
    problems
  };
}

function parseEndpoint(
  entry: unknown,
  field: string,
  problems: ISettingsProblem[]
): IEndpointSettings | null {
  if (!isObject(entry)) {
    problems.push({ field, message: 'must be an object' });
    return null;
  }
  const name = stringOr(entry.name, '').trim();
  if (!name) {
    problems.push({ field: `${field}.name`, message: 'a name is required' });
    return null;
  }
  const transport = entry.transport ?? 'http';
  if (!TRANSPORTS.includes(transport as TransportKind)) {
    problems.push({
      field: `${field}.transport`,
      message: `"${String(transport)}" is not one of ${TRANSPORTS.join(', ')}`
    });
    return null;
  }
  const url = stringOr(entry.url, '').trim();
  if (transport !== 'comm') {
    const urlProblem = checkUrl(url, transport as TransportKind);
    if (urlProblem) {
      problems.push({ field: `${field}.url`, message: urlProblem });
      return null;
    }
  }
  const headers: Record<string, string> = {};
  if (isObject(entry.headers)) {
    for (const [key, value] of Object.entries(entry.headers)) {
      if (typeof value === 'string') {
        headers[key] = value;
      } else {
        problems.push({
          field: `${field}.headers.${key}`,
          message: 'a header value must be a string'
        });
      }
    }
  }
  return {
    name,
    transport: transport as TransportKind,
    url,
    headers,
    commTarget:
      stringOr(entry.commTarget, '').trim() || DEFAULT_ENDPOINT.commTarget,
    notebook: stringOr(entry.notebook, '').trim(),
    connectTimeoutSeconds: positiveOr(
      entry.connectTimeoutSeconds,
      DEFAULT_ENDPOINT.connectTimeoutSeconds
    ),
    idleTimeoutSeconds: nonNegativeOr(
      entry.idleTimeoutSeconds,
      DEFAULT_ENDPOINT.idleTimeoutSeconds
    )
  };
}

/** Why a URL setting cannot be used, or null when it can. */
function checkUrl(url: string, transport: TransportKind): string | null {
  if (!url) {
    return 'a URL is required for this transport';
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `"${url}" is not a valid URL`;
    }
    // An AG-UI endpoint may also be a chanx websocket route.
    const allowed =
      transport === 'agui'
        ? ['http:', 'https:', 'ws:', 'wss:']
        : ['http:', 'https:'];
    if (!allowed.includes(parsed.protocol)) {
      return `"${parsed.protocol}" URLs are not supported; use ${allowed.join(' or ')}`;
    }
  }
  return null;
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function positiveOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? value
    : fallback;
}

function nonNegativeOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? value
    : fallback;
}
