/**
 * Reading what an HTTP endpoint answered: the words for a refused request,
 * and the health answers of the chunk wire (docs/protocol.md §6.1) and of langstage-agui,
 * read here once for the transports' health checks and for "Test
 * connection" (`model/connection/http-verdict.ts`).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { isModelId } from '../../contracts/models';
import { isObject, type JsonObject } from '../../wire/json';
import type { FetchLike } from '../types';

/** The longest excerpt of a body a message quotes. */
const EXCERPT_LENGTH = 200;

/** "HTTP 404 Not Found" */
export function httpStatus(response: {
  status: number;
  statusText: string;
}): string {
  return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

/** "HTTP 404 Not Found from <url>: <server message>" */
export function describeHttpFailure(
  url: string,
  response: { status: number; statusText: string },
  body: string,
  trans: TranslationBundle
): string {
  const detail = jsonMessage(body) || excerpt(body);
  const status = httpStatus(response);
  return detail
    ? trans.__('%1 from %2: %3', status, url, detail)
    : trans.__('%1 from %2', status, url);
}

/** A body's text without markup, white space folded. */
export function plainText(body: string): string {
  return body
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The start of a body's plain text, for a message. */
export function excerpt(body: string): string {
  const flat = plainText(body);
  return flat.length > EXCERPT_LENGTH
    ? `${flat.slice(0, EXCERPT_LENGTH)}…`
    : flat;
}

/** A JSON error's `message` (Jupyter and this extension send one), or ''. */
export function jsonMessage(body: string): string {
  const message = jsonFields(body)?.message;
  return typeof message === 'string' ? message : '';
}

/**
 * GET `url`: the body, or a failure naming the status and the URL. A status
 * in `accepted` gives null instead of a failure.
 */
export async function fetchHealth(
  fetch: FetchLike,
  url: string,
  trans: TranslationBundle
): Promise<string>;
export async function fetchHealth(
  fetch: FetchLike,
  url: string,
  trans: TranslationBundle,
  accepted: readonly number[]
): Promise<string | null>;
export async function fetchHealth(
  fetch: FetchLike,
  url: string,
  trans: TranslationBundle,
  accepted: readonly number[] = []
): Promise<string | null> {
  const response = await fetch(url, { method: 'GET' });
  const body = await response.text();
  if (accepted.includes(response.status)) {
    return null;
  }
  if (!response.ok) {
    throw new Error(describeHttpFailure(url, response, body, trans));
  }
  return body;
}

/**
 * chunk-wire `GET health`: `{"ready", "message"?, "agent_name"?,
 * "model_choice"?, "model"?, "prompts"?, …}` (docs/protocol.md §6.1, §16.3).
 */
export interface IChunkWireHealth {
  /** `ready` when it is a boolean: else this is no chunk-wire health. */
  ready: boolean | null;
  /** `status` is `unreachable`: the agent (a deployment) stopped answering its server. */
  unreachable: boolean;
  message: string | null;
  agentName: string | null;
  /** `model_choice` is true: a conversation may choose its model. */
  modelChoice: boolean;
  /** `model`, the default model, when it is a model id. */
  defaultModel: string | null;
  /** `prompts`, what the agent suggests asking it first (`readPrompts`). */
  prompts: string[];
}

/** The health answer of a chunk-wire API; null when the body is not JSON. */
export function readChunkWireHealth(body: string): IChunkWireHealth | null {
  const fields = jsonFields(body);
  if (!fields) {
    return null;
  }
  const { ready, status, message, agent_name, model_choice, model, prompts } =
    fields;
  return {
    ready: typeof ready === 'boolean' ? ready : null,
    unreachable: status === 'unreachable',
    message: typeof message === 'string' ? message : null,
    agentName: typeof agent_name === 'string' ? agent_name : null,
    modelChoice: model_choice === true,
    defaultModel: isModelId(model) ? model : null,
    prompts: readPrompts(prompts)
  };
}

/** The most prompts an endpoint may suggest (docs/protocol.md §6.1). */
export const MAX_PROMPTS = 5;
/** The longest prompt, in characters: a button's label, not a document. */
export const MAX_PROMPT_LENGTH = 200;

/**
 * The prompts an endpoint suggests: its strings, trimmed, that are not blank,
 * not longer than `MAX_PROMPT_LENGTH` and not said before, the first
 * `MAX_PROMPTS` of them. Anything else is left out: a bad suggestion must not
 * cost the health answer.
 */
export function readPrompts(value: unknown): string[] {
  const prompts: string[] = [];
  for (const item of Array.isArray(value) ? value : []) {
    const text = typeof item === 'string' ? item.trim() : '';
    if (text && text.length <= MAX_PROMPT_LENGTH && !prompts.includes(text)) {
      prompts.push(text);
      if (prompts.length === MAX_PROMPTS) {
        break;
      }
    }
  }
  return prompts;
}

/** langstage-agui's `GET <endpoint>`: `{"status": "ok", "agent": {"name"}}`. */
export interface IAguiHealth {
  /** The answer is a JSON object (not a list, a string, a number, null). */
  isObject: boolean;
  /** `status` as sent; undefined when absent. */
  status: unknown;
  agentName: string | null;
  /**
   * AG-UI 1.0 `AgentCapabilities`, when the answer carries them under
   * `capabilities` (no installed server publishes them yet).
   */
  capabilities: JsonObject | null;
}

/** The answer of an AG-UI endpoint to GET; null when the body is not JSON. */
export function readAguiHealth(body: string): IAguiHealth | null {
  const fields = jsonFields(body);
  if (!fields) {
    return null;
  }
  const agent = isObject(fields.agent) ? fields.agent : {};
  return {
    isObject: fields !== NOT_AN_OBJECT,
    status: fields.status,
    agentName: typeof agent.name === 'string' ? agent.name : null,
    capabilities: isObject(fields.capabilities) ? fields.capabilities : null
  };
}

/** The fields of JSON that is not an object: none. */
const NOT_AN_OBJECT: JsonObject = Object.freeze({});

/** A JSON body's fields (`NOT_AN_OBJECT` for a list, …); null when not JSON. */
export function jsonFields(body: string): JsonObject | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  return isObject(json) ? json : NOT_AN_OBJECT;
}
