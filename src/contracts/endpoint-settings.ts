/**
 * One endpoint of the settings: its typed shape and the reading of one entry
 * of `endpoints` (a usable URL, headers a browser can send), each problem
 * reported with its field.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { isObject, type JsonObject } from '../wire/json';
import type { HistoryMode } from '../wire/turn';
import type { FieldReader } from './settings-fields';

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
  /**
   * `agui`: what a run carries of the conversation, `full` (every message)
   * or `latest` (only the new ones, for a server that keeps its own).
   */
  history: HistoryMode;
}

export const DEFAULT_ENDPOINT: IEndpointSettings = {
  name: 'Built-in agent (server)',
  transport: 'http',
  url: 'agent-panel/',
  headers: {},
  commTarget: 'agent_panel',
  notebook: '',
  connectTimeoutSeconds: 30,
  idleTimeoutSeconds: 600,
  history: 'full'
};

/**
 * The endpoints every user is offered, whatever their settings hold: a user
 * endpoint of the same name replaces one, a disabled one hides it.
 */
export const BUILT_IN_ENDPOINTS: readonly IEndpointSettings[] = [
  DEFAULT_ENDPOINT,
  {
    ...DEFAULT_ENDPOINT,
    name: 'Notebook kernel',
    transport: 'comm',
    url: ''
  },
  {
    // The server's built-in keyless demo of the notebook tools.
    ...DEFAULT_ENDPOINT,
    name: 'Notebook demo (server)',
    url: 'agent-panel/agents/notebook-demo/'
  }
];

const TRANSPORTS: readonly TransportKind[] = ['http', 'comm', 'agui'];
const HISTORY_MODES: readonly HistoryMode[] = ['full', 'latest'];

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers a page may not set: the browser drops them without a word. */
const FORBIDDEN_HEADERS = new Set([
  'accept-charset',
  'accept-encoding',
  'access-control-request-headers',
  'access-control-request-method',
  'connection',
  'content-length',
  'cookie',
  'cookie2',
  'date',
  'dnt',
  'expect',
  'host',
  'keep-alive',
  'origin',
  'referer',
  'set-cookie',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'via'
]);

/** Whether two endpoints would build the same transport. */
export function sameEndpoint(
  a: IEndpointSettings,
  b: IEndpointSettings
): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * One entry of the user's `endpoints`: the endpoint it names, or null for a
 * disabled one (which offers nothing, and so hides a built-in of its name).
 */
export interface IEndpointEntry {
  name: string;
  endpoint: IEndpointSettings | null;
}

/**
 * One entry of `endpoints`, or null when it is left out (the reason is among
 * the problems).
 */
export function parseEndpoint(
  entry: unknown,
  field: string,
  read: FieldReader
): IEndpointEntry | null {
  const { problems, trans } = read;
  if (!isObject(entry)) {
    problems.push({ field, message: trans.__('must be an object; left out') });
    return null;
  }
  const name = read.string(entry.name, `${field}.name`, '').trim();
  if (!name) {
    problems.push({
      field: `${field}.name`,
      message: trans.__('a name is required; this endpoint is left out')
    });
    return null;
  }
  if (read.boolean(entry.disabled, `${field}.disabled`, false)) {
    return { name, endpoint: null };
  }
  const endpoint = readEndpoint(entry, name, field, read);
  return endpoint && { name, endpoint };
}

/** The fields of an enabled endpoint, or null when it cannot be used. */
function readEndpoint(
  entry: JsonObject,
  name: string,
  field: string,
  read: FieldReader
): IEndpointSettings | null {
  const { problems, trans } = read;
  const transport = entry.transport ?? DEFAULT_ENDPOINT.transport;
  if (!TRANSPORTS.includes(transport as TransportKind)) {
    problems.push({
      field: `${field}.transport`,
      message: trans.__(
        '%1 is not one of %2; this endpoint is left out',
        JSON.stringify(transport),
        TRANSPORTS.join(', ')
      )
    });
    return null;
  }
  const kind = transport as TransportKind;
  const url = read.string(entry.url, `${field}.url`, '').trim();
  if (kind !== 'comm') {
    const urlProblem = checkUrl(url, kind, trans);
    if (urlProblem) {
      problems.push({ field: `${field}.url`, message: urlProblem });
      return null;
    }
  }
  return {
    name,
    transport: kind,
    url,
    headers: readHeaders(entry.headers, field, kind, url, read),
    commTarget:
      read.string(entry.commTarget, `${field}.commTarget`, '').trim() ||
      DEFAULT_ENDPOINT.commTarget,
    notebook: read.string(entry.notebook, `${field}.notebook`, '').trim(),
    connectTimeoutSeconds: read.number(
      entry.connectTimeoutSeconds,
      `${field}.connectTimeoutSeconds`,
      DEFAULT_ENDPOINT.connectTimeoutSeconds,
      1
    ),
    idleTimeoutSeconds: read.number(
      entry.idleTimeoutSeconds,
      `${field}.idleTimeoutSeconds`,
      DEFAULT_ENDPOINT.idleTimeoutSeconds,
      0
    ),
    history: read.oneOf(
      entry.history,
      `${field}.history`,
      HISTORY_MODES,
      DEFAULT_ENDPOINT.history
    )
  };
}

/** The headers a browser will really send; the others are reported. */
function readHeaders(
  raw: unknown,
  field: string,
  transport: TransportKind,
  url: string,
  { problems, trans }: FieldReader
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (raw === undefined) {
    return headers;
  }
  if (!isObject(raw)) {
    problems.push({
      field: `${field}.headers`,
      message: trans.__('must be an object of header names to values; ignored')
    });
    return headers;
  }
  for (const [name, value] of Object.entries(raw)) {
    const where = `${field}.headers.${name}`;
    if (typeof value !== 'string') {
      problems.push({
        field: where,
        message: trans.__('a header value must be a string; not sent')
      });
    } else if (!HEADER_NAME.test(name)) {
      problems.push({
        field: where,
        message: trans.__('"%1" is not a valid header name; not sent', name)
      });
    } else if (/[\r\n\0]/.test(value)) {
      problems.push({
        field: where,
        message: trans.__('a header value cannot contain line breaks; not sent')
      });
    } else if (isForbiddenHeader(name)) {
      problems.push({
        field: where,
        message: trans.__('browsers do not let a page set "%1"; not sent', name)
      });
    } else {
      headers[name] = value;
    }
  }
  if (Object.keys(headers).length === 0) {
    return headers;
  }
  const ignored =
    transport === 'comm'
      ? trans.__('the comm transport sends no HTTP requests; ignored')
      : /^wss?:/i.test(url)
        ? trans.__('browsers cannot send headers with a websocket; ignored')
        : isUnderJupyterBaseUrl(url)
          ? trans.__(
              "a relative URL is a Jupyter server route, which gets Jupyter's own credentials instead; ignored"
            )
          : null;
  if (ignored !== null) {
    problems.push({ field: `${field}.headers`, message: ignored });
  }
  return headers;
}

function isForbiddenHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    FORBIDDEN_HEADERS.has(lower) ||
    lower.startsWith('proxy-') ||
    lower.startsWith('sec-')
  );
}

/**
 * A relative path with no `..` segment resolves under the Jupyter base URL
 * whatever that is (see `transport/endpoint.ts`).
 */
function isUnderJupyterBaseUrl(url: string): boolean {
  if (hasScheme(url) || url.startsWith('/')) {
    return false;
  }
  const path = url.split(/[?#]/)[0];
  return !path.split('/').includes('..');
}

/** Why a URL setting cannot be used, or null when it can. */
function checkUrl(
  url: string,
  transport: TransportKind,
  trans: TranslationBundle
): string | null {
  if (!url) {
    return trans.__(
      'a URL is required for this transport; this endpoint is left out'
    );
  }
  if (hasScheme(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return trans.__('"%1" is not a valid URL', url);
    }
    // An AG-UI endpoint may also be a chanx websocket route.
    const allowed =
      transport === 'agui'
        ? ['http:', 'https:', 'ws:', 'wss:']
        : ['http:', 'https:'];
    if (!allowed.includes(parsed.protocol)) {
      return trans.__(
        '"%1" URLs are not supported; use %2',
        parsed.protocol,
        allowed.reduce((list, next) => trans.__('%1 or %2', list, next))
      );
    }
  }
  return null;
}

function hasScheme(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(url);
}
