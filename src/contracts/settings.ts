/**
 * Typed view of the `jupyterlab-agent-panel:plugin` settings.
 *
 * The schema validates shapes in the Settings Editor; this module reads the
 * composite again (it may come from a hand-edited overrides file), adds what
 * JSON Schema cannot say (unique names, a default that exists, a usable URL,
 * headers a browser can send) and reports each problem with the field it
 * concerns and what is used instead.
 */
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import {
  CONTEXT_KINDS,
  type ContextDefaults,
  DEFAULT_CONTEXT_DEFAULTS
} from '../wire/context';
import { isObject } from '../wire/json';
import type { HistoryMode } from '../wire/turn';

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

export interface IPanelSettings {
  endpoints: IEndpointSettings[];
  defaultEndpoint: string;
  maxToolResultChars: number;
  insertPosition: 'below-active' | 'end';
  sendKey: 'Enter' | 'Ctrl+Enter';
  /**
   * Whether the notebook tools that only read (list, read, active cell) wait
   * for the user's review too, as the changing ones always do.
   */
  reviewNotebookReads: boolean;
  /** Which context goes with a message unless removed from it. */
  context: ContextDefaults;
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
  idleTimeoutSeconds: 600,
  history: 'full'
};

export const DEFAULT_SETTINGS: IPanelSettings = {
  endpoints: [
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
  ],
  defaultEndpoint: DEFAULT_ENDPOINT.name,
  maxToolResultChars: 2000,
  insertPosition: 'below-active',
  sendKey: 'Enter',
  reviewNotebookReads: false,
  context: DEFAULT_CONTEXT_DEFAULTS
};

/** The schema's `minimum` of `maxToolResultChars`. */
export const MIN_TOOL_RESULT_CHARS = 100;

const TRANSPORTS: readonly TransportKind[] = ['http', 'comm', 'agui'];
const INSERT_POSITIONS: readonly IPanelSettings['insertPosition'][] = [
  'below-active',
  'end'
];
const SEND_KEYS: readonly IPanelSettings['sendKey'][] = ['Enter', 'Ctrl+Enter'];
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

/**
 * Read the composite settings. Invalid endpoints are dropped and invalid
 * values replaced by their default (each reported, in `trans`'s language),
 * so one bad entry never disables the panel.
 */
export function parseSettings(
  composite: unknown,
  trans: TranslationBundle = nullTranslator.load('jupyterlab_agent_panel')
): {
  settings: IPanelSettings;
  problems: ISettingsProblem[];
} {
  const problems: ISettingsProblem[] = [];
  const read = new FieldReader(problems, trans);
  const raw = isObject(composite) ? composite : {};
  if (!isObject(composite) && composite !== undefined && composite !== null) {
    problems.push({
      field: '(settings)',
      message: trans.__(
        'the settings are not a JSON object; using the defaults'
      )
    });
  }
  let rawEndpoints: unknown[] = DEFAULT_SETTINGS.endpoints;
  if (Array.isArray(raw.endpoints)) {
    rawEndpoints = raw.endpoints;
  } else if (raw.endpoints !== undefined) {
    problems.push({
      field: 'endpoints',
      message: trans.__('must be a list of endpoints; using the built-in ones')
    });
  }
  const endpoints: IEndpointSettings[] = [];
  rawEndpoints.forEach((entry, index) => {
    const field = `endpoints[${index}]`;
    const endpoint = parseEndpoint(entry, field, read);
    if (!endpoint) {
      return;
    }
    if (endpoints.some(e => e.name === endpoint.name)) {
      problems.push({
        field: `${field}.name`,
        message: trans.__(
          'the name "%1" is used by another endpoint; this one is left out',
          endpoint.name
        )
      });
      return;
    }
    endpoints.push(endpoint);
  });
  if (endpoints.length === 0) {
    problems.push({
      field: 'endpoints',
      message: trans.__('no usable endpoint; using the built-in agent')
    });
    endpoints.push(DEFAULT_ENDPOINT);
  }
  let defaultEndpoint = read.string(
    raw.defaultEndpoint,
    'defaultEndpoint',
    endpoints[0].name
  );
  if (!endpoints.some(e => e.name === defaultEndpoint)) {
    problems.push({
      field: 'defaultEndpoint',
      message: trans.__(
        'no endpoint is named "%1"; using "%2"',
        defaultEndpoint,
        endpoints[0].name
      )
    });
    defaultEndpoint = endpoints[0].name;
  }
  return {
    settings: {
      endpoints,
      defaultEndpoint,
      maxToolResultChars: read.number(
        raw.maxToolResultChars,
        'maxToolResultChars',
        DEFAULT_SETTINGS.maxToolResultChars,
        MIN_TOOL_RESULT_CHARS,
        true
      ),
      insertPosition: read.oneOf(
        raw.insertPosition,
        'insertPosition',
        INSERT_POSITIONS,
        DEFAULT_SETTINGS.insertPosition
      ),
      sendKey: read.oneOf(
        raw.sendKey,
        'sendKey',
        SEND_KEYS,
        DEFAULT_SETTINGS.sendKey
      ),
      reviewNotebookReads: read.boolean(
        raw.reviewNotebookReads,
        'reviewNotebookReads',
        DEFAULT_SETTINGS.reviewNotebookReads
      ),
      context: readContextDefaults(raw.context, problems, trans)
    },
    problems
  };
}

/** One problem per line, for a notification or a log. */
export function describeProblems(
  problems: ISettingsProblem[],
  trans: TranslationBundle = nullTranslator.load('jupyterlab_agent_panel')
): string {
  return problems
    .map(problem => trans.__('%1: %2', problem.field, problem.message))
    .join('\n');
}

/**
 * The `context` setting read leniently: each kind a boolean, absent kinds
 * from the defaults; what is wrong is reported by field.
 */
export function readContextDefaults(
  raw: unknown,
  problems: ISettingsProblem[],
  trans: TranslationBundle = nullTranslator.load('jupyterlab_agent_panel')
): ContextDefaults {
  const defaults = { ...DEFAULT_CONTEXT_DEFAULTS };
  if (raw === undefined) {
    return defaults;
  }
  if (!isObject(raw)) {
    problems.push({
      field: 'context',
      message: trans.__(
        'must be an object of true/false values; using the defaults'
      )
    });
    return defaults;
  }
  for (const kind of CONTEXT_KINDS) {
    const value = raw[kind];
    if (typeof value === 'boolean') {
      defaults[kind] = value;
    } else if (value !== undefined) {
      problems.push({
        field: `context.${kind}`,
        message: trans.__(
          'must be true or false (got %1); using %2',
          JSON.stringify(value),
          String(defaults[kind])
        )
      });
    }
  }
  return defaults;
}

/** Whether two endpoints would build the same transport. */
export function sameEndpoint(
  a: IEndpointSettings,
  b: IEndpointSettings
): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function parseEndpoint(
  entry: unknown,
  field: string,
  read: FieldReader
): IEndpointSettings | null {
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

/** Reads optional fields: absent gives the default quietly, wrong reports. */
class FieldReader {
  constructor(
    readonly problems: ISettingsProblem[],
    readonly trans: TranslationBundle
  ) {}

  string(value: unknown, field: string, fallback: string): string {
    if (value === undefined || typeof value === 'string') {
      return value ?? fallback;
    }
    this._replaced(
      field,
      this.trans.__('must be a string'),
      JSON.stringify(fallback)
    );
    return fallback;
  }

  number(
    value: unknown,
    field: string,
    fallback: number,
    minimum: number,
    integer = false
  ): number {
    if (value === undefined) {
      return fallback;
    }
    const valid =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= minimum &&
      (!integer || Number.isInteger(value));
    if (valid) {
      return value;
    }
    const got = JSON.stringify(value);
    this._replaced(
      field,
      integer
        ? this.trans.__(
            'must be a whole number of at least %1 (got %2)',
            minimum,
            got
          )
        : this.trans.__(
            'must be a number of at least %1 (got %2)',
            minimum,
            got
          ),
      String(fallback)
    );
    return fallback;
  }

  oneOf<T extends string>(
    value: unknown,
    field: string,
    allowed: readonly T[],
    fallback: T
  ): T {
    if (value === undefined) {
      return fallback;
    }
    if (allowed.includes(value as T)) {
      return value as T;
    }
    this._replaced(
      field,
      this.trans.__(
        '%1 is not one of %2',
        JSON.stringify(value),
        allowed.map(a => JSON.stringify(a)).join(', ')
      ),
      JSON.stringify(fallback)
    );
    return fallback;
  }

  boolean(value: unknown, field: string, fallback: boolean): boolean {
    if (value === undefined || typeof value === 'boolean') {
      return value ?? fallback;
    }
    this._replaced(
      field,
      this.trans.__('%1 is not true or false', JSON.stringify(value)),
      JSON.stringify(fallback)
    );
    return fallback;
  }

  private _replaced(field: string, why: string, used: string): void {
    this.problems.push({
      field,
      message: this.trans.__('%1; using %2', why, used)
    });
  }
}

function hasScheme(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(url);
}
