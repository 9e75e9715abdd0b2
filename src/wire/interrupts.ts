/**
 * Reading an interrupt payload into review rows (chunk-wire §6.2–6.4).
 */
import type { IWireInterrupt } from './frames';
import {
  CANONICAL_VERBS,
  type DecisionVerb,
  type IActionRequest
} from './types';

export interface IReviewRows {
  /** One row per action request; one synthetic row when there are none. */
  actions: IActionRequest[];
  /** The interrupt's top-level allowed decisions. */
  allowedDecisions: DecisionVerb[];
}

type JsonObject = Record<string, unknown>;

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
      // A bare-string request is the question itself (B, §6.3).
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

/** §6.4: the config at the same index if its name matches, else the first match. */
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

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
