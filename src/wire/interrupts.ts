/**
 * Interrupt payloads: normalising a graph's raw interrupt value the way core
 * does (docs/protocol.md §5.2), and reading a normalised payload into review rows
 * (docs/protocol.md §5.3–5.4).
 */
import type { IWireInterrupt, IWireInterruptRequest } from './frame-types';
import { isObject, type JsonObject } from './json';
import {
  CANONICAL_VERBS,
  type DecisionVerb,
  type IActionRequest,
  type IInterruptRequest
} from './types';

export interface IReviewRows {
  /** One row per action request; one synthetic row when there are none. */
  actions: IActionRequest[];
  /** The interrupt's top-level allowed decisions. */
  allowedDecisions: DecisionVerb[];
}

/** HumanInterrupt `config` flags and the verbs they allow. */
const CONFIG_FLAGS: [string, DecisionVerb][] = [
  ['allow_accept', 'approve'],
  ['allow_edit', 'edit'],
  ['allow_respond', 'respond'],
  ['allow_ignore', 'reject']
];

/**
 * The interrupt payload core (contract B) builds from a graph's
 * `interrupt(value)`, for producers that hand the panel the raw value (the
 * AG-UI `on_interrupt` event). Mirrors langstage-core's
 * `_normalize_interrupt` case for case.
 */
export function normalizeInterrupt(value: unknown): IWireInterrupt {
  const defaults = [...CANONICAL_VERBS];
  if (Array.isArray(value)) {
    // A list of legacy HumanInterrupts (agent-inbox shape).
    const allowed = new Set<string>();
    const actionRequests = value.map(item => {
      if (!isObject(item)) {
        return item;
      }
      const config = item.config;
      if (isObject(config)) {
        for (const [flag, verb] of CONFIG_FLAGS) {
          if (config[flag]) {
            allowed.add(verb);
          }
        }
      }
      return 'action_request' in item ? item.action_request : item;
    });
    const named = defaults.filter(verb => allowed.has(verb));
    return {
      action_requests: actionRequests,
      review_configs: [],
      allowed_decisions: named.length > 0 ? named : defaults
    };
  }
  if (isObject(value)) {
    if ('action_requests' in value) {
      const reviewConfigs = Array.isArray(value.review_configs)
        ? value.review_configs
        : [];
      return {
        action_requests: Array.isArray(value.action_requests)
          ? value.action_requests
          : [],
        review_configs: reviewConfigs,
        allowed_decisions: readAllowedDecisions(
          value.allowed_decisions,
          reviewConfigs
        )
      };
    }
    // Any other non-empty object is one action request.
    return {
      action_requests: Object.keys(value).length > 0 ? [value] : [],
      review_configs: [],
      allowed_decisions: defaults
    };
  }
  // A bare string or scalar is the question itself (contract B).
  return {
    action_requests:
      value === null || value === undefined || value === '' ? [] : [value],
    review_configs: [],
    allowed_decisions: defaults
  };
}

/** Core passes a given list through and derives a missing one. */
function readAllowedDecisions(
  value: unknown,
  reviewConfigs: unknown[]
): string[] | null {
  if (value === null || value === undefined) {
    return verbsOfReviewConfigs(reviewConfigs);
  }
  // Not a list: what a chunk-wire reader makes of core's pass-through.
  return Array.isArray(value) ? value.filter(isString) : null;
}

/**
 * HITL middleware names its verbs per review config: their union, canonical
 * verbs first in canonical order, then the others in first-seen order.
 */
function verbsOfReviewConfigs(reviewConfigs: unknown[]): string[] {
  const seen: string[] = [];
  for (const config of reviewConfigs) {
    const verbs = isObject(config) ? config.allowed_decisions : null;
    for (const verb of Array.isArray(verbs) ? verbs.filter(isString) : []) {
      if (!seen.includes(verb)) {
        seen.push(verb);
      }
    }
  }
  const union = [
    ...CANONICAL_VERBS.filter(verb => seen.includes(verb)),
    ...seen.filter(verb => !(CANONICAL_VERBS as string[]).includes(verb))
  ];
  return union.length > 0 ? union : [...CANONICAL_VERBS];
}

export function readReviewRows(payload: IWireInterrupt): IReviewRows {
  // Core advertises the default four when nothing usable is named.
  const named = canonicalVerbs(payload.allowed_decisions);
  const allowedDecisions = named.length > 0 ? named : [...CANONICAL_VERBS];
  if (payload.action_requests.length === 0) {
    return {
      allowedDecisions,
      actions: [
        {
          name: null,
          description: null,
          args: undefined,
          allowed: [...allowedDecisions],
          argsSchema: null,
          synthetic: true,
          raw: null
        }
      ]
    };
  }
  const actions = payload.action_requests.map((request, index) =>
    readActionRequest(request, index, payload.review_configs, allowedDecisions)
  );
  return { actions, allowedDecisions };
}

function readActionRequest(
  request: unknown,
  index: number,
  reviewConfigs: unknown[],
  topLevel: DecisionVerb[]
): IActionRequest {
  if (!isObject(request)) {
    return {
      name: null,
      // A bare-string request is the question itself (B, docs/protocol.md §5.3).
      description:
        typeof request === 'string' ? request : JSON.stringify(request),
      args: undefined,
      allowed: [...topLevel],
      argsSchema: null,
      synthetic: false,
      raw: request
    };
  }
  const source = isObject(request.action_request)
    ? request.action_request
    : request;
  const name =
    stringOrNull(source.name) ??
    stringOrNull(source.action) ??
    stringOrNull(request.tool);
  const config = findReviewConfig(reviewConfigs, index, name);
  const configVerbs = config ? canonicalVerbs(config.allowed_decisions) : [];
  return {
    name,
    description:
      stringOrNull(request.description) ?? stringOrNull(source.description),
    args: source.args,
    // A matching config that names no usable verb would leave a row that
    // cannot be answered; the top-level list is the producer's own fallback.
    allowed: configVerbs.length > 0 ? configVerbs : [...topLevel],
    argsSchema: config?.args_schema ?? null,
    synthetic: false,
    raw: request
  };
}

/**
 * The question a row asks when an answer is all it takes (its only verb is
 * `respond`, docs/protocol.md §5.4): its description, else a `question`
 * argument; null for any other row, and for one that says nothing.
 */
export function questionOf(action: IActionRequest): string | null {
  if (action.allowed.length !== 1 || action.allowed[0] !== 'respond') {
    return null;
  }
  const asked = isObject(action.args) ? action.args.question : undefined;
  const question =
    action.description ?? (typeof asked === 'string' ? asked : '');
  return question.trim() ? question : null;
}

/** docs/protocol.md §5.4: the config at the same index if its name matches, else the first match. */
function findReviewConfig(
  reviewConfigs: unknown[],
  index: number,
  name: string | null
): JsonObject | null {
  if (name === null) {
    return null;
  }
  const sameIndex = reviewConfigs[index];
  if (isObject(sameIndex) && sameIndex.action_name === name) {
    return sameIndex;
  }
  for (const config of reviewConfigs) {
    if (isObject(config) && config.action_name === name) {
      return config;
    }
  }
  return null;
}

/** The canonical verbs a list names, in canonical order. */
function canonicalVerbs(value: unknown): DecisionVerb[] {
  const named: unknown[] = Array.isArray(value) ? value : [];
  return CANONICAL_VERBS.filter(verb => named.includes(verb));
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/**
 * Whether an AG-UI 1.0 request can no longer be answered at `now` (ms):
 * its `expiresAt` has passed. A value that is not a date never expires, as
 * the protocol says a consumer reads it.
 */
export function isExpired(
  request: IInterruptRequest | undefined,
  now: number
): boolean {
  const at = expiryOf(request);
  return at !== null && at <= now;
}

/** When the request expires (ms), or null when it never does. */
export function expiryOf(
  request: IInterruptRequest | undefined
): number | null {
  const at = request?.expiresAt ? Date.parse(request.expiresAt) : NaN;
  return Number.isFinite(at) ? at : null;
}

/** What makes two interrupts "the same pending request" (F10c). */
export function interruptSignature(
  actions: readonly IActionRequest[],
  allowedDecisions: readonly DecisionVerb[],
  request: IInterruptRequest | undefined
): string {
  return JSON.stringify([
    allowedDecisions,
    actions.map(action => [
      action.raw,
      action.allowed,
      action.argsSchema,
      action.synthetic
    ]),
    request ?? null
  ]);
}

/** A request card's request (AG-UI 1.0, docs/protocol.md §8.9) in the turn model. */
export function readInterruptRequest(
  request: IWireInterruptRequest
): IInterruptRequest {
  return {
    reason: request.reason,
    message: request.message,
    responseSchema: request.response_schema,
    expiresAt: request.expires_at,
    toolCallId: request.tool_call_id
  };
}
