/**
 * Typed view of the `jupyterlab-agent-panel:plugin` settings.
 *
 * The schema validates shapes in the Settings Editor; this module reads the
 * composite again (it may come from a hand-edited overrides file), adds what
 * JSON Schema cannot say (unique names, a default that exists, a usable URL,
 * headers a browser can send) and reports each problem with the field it
 * concerns and what is used instead.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import {
  CONTEXT_KINDS,
  type ContextDefaults,
  DEFAULT_CONTEXT_DEFAULTS
} from '../context/workspace';
import { isObject } from '../wire/json';
import {
  BUILT_IN_ENDPOINTS,
  DEFAULT_ENDPOINT,
  type IEndpointSettings,
  parseEndpoint
} from './endpoint-settings';
import { FieldReader, type ISettingsProblem } from './settings-fields';
import { panelStrings } from './translation';

export {
  BUILT_IN_ENDPOINTS,
  DEFAULT_ENDPOINT,
  type IEndpointSettings,
  sameEndpoint,
  type TransportKind
} from './endpoint-settings';
export type { ISettingsProblem } from './settings-fields';

export interface IPanelSettings {
  /**
   * The endpoints the panel offers: the user's own, in their order, then the
   * built-in ones they did not replace or disable.
   */
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

export const DEFAULT_SETTINGS: IPanelSettings = {
  endpoints: [...BUILT_IN_ENDPOINTS],
  defaultEndpoint: DEFAULT_ENDPOINT.name,
  maxToolResultChars: 2000,
  insertPosition: 'below-active',
  sendKey: 'Enter',
  reviewNotebookReads: false,
  context: DEFAULT_CONTEXT_DEFAULTS
};

/** The schema's `minimum` of `maxToolResultChars`. */
export const MIN_TOOL_RESULT_CHARS = 100;

const INSERT_POSITIONS: readonly IPanelSettings['insertPosition'][] = [
  'below-active',
  'end'
];
const SEND_KEYS: readonly IPanelSettings['sendKey'][] = ['Enter', 'Ctrl+Enter'];

/**
 * Read the composite settings. Invalid endpoints are dropped and invalid
 * values replaced by their default (each reported, in `trans`'s language),
 * so one bad entry never disables the panel.
 */
export function parseSettings(
  composite: unknown,
  trans: TranslationBundle = panelStrings()
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
  const endpoints = readEndpoints(raw.endpoints, read);
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

/**
 * The endpoints the panel offers (`IPanelSettings.endpoints`) from the user's
 * list: a user endpoint with a built-in's name replaces it, so the built-in
 * ones never need copying into the settings.
 */
function readEndpoints(raw: unknown, read: FieldReader): IEndpointSettings[] {
  const { problems, trans } = read;
  let entries: unknown[] = [];
  if (Array.isArray(raw)) {
    entries = raw;
  } else if (raw !== undefined) {
    problems.push({
      field: 'endpoints',
      message: trans.__('must be a list of endpoints; using the built-in ones')
    });
  }
  const byName = new Map<string, IEndpointSettings | null>();
  entries.forEach((entry, index) => {
    const field = `endpoints[${index}]`;
    const parsed = parseEndpoint(entry, field, read);
    if (!parsed) {
      return;
    }
    if (byName.has(parsed.name)) {
      problems.push({
        field: `${field}.name`,
        message: trans.__(
          'the name "%1" is used by another endpoint; this one is left out',
          parsed.name
        )
      });
      return;
    }
    byName.set(parsed.name, parsed.endpoint);
  });
  const endpoints = [
    ...byName.values(),
    ...BUILT_IN_ENDPOINTS.filter(builtIn => !byName.has(builtIn.name))
  ].filter(endpoint => endpoint !== null);
  if (endpoints.length === 0) {
    problems.push({
      field: 'endpoints',
      message: trans.__('no usable endpoint; using the built-in agent')
    });
    endpoints.push(DEFAULT_ENDPOINT);
  }
  return endpoints;
}

/** One problem per line, for a notification or a log. */
export function describeProblems(
  problems: ISettingsProblem[],
  trans: TranslationBundle = panelStrings()
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
  trans: TranslationBundle = panelStrings()
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
