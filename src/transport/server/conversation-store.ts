/**
 * The server's conversation store (docs/protocol.md §13): the panel's
 * conversations, kept per user by the Jupyter server under
 * `<base_url>agent-panel/conversations`. Same origin as Jupyter, so the
 * requests go through `ServerConnection` (token and XSRF).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { isModelId } from '../../contracts/models';
import { isHighSurrogate } from '../../context/capped-text';
import { isObject, type JsonObject } from '../../wire/json';
import { answerError, finiteNumber, jsonAnswer } from './json-answer';
import { nextTask } from '../next-task';
import type { FetchLike } from '../types';

export type ConversationStatus = 'idle' | 'running' | 'review';

/** A conversation as the list shows it. */
export interface IConversationSummary {
  id: string;
  /** "" until set. */
  title: string;
  threadId: string;
  endpointName: string | null;
  status: ConversationStatus;
  createdAt: number;
  updatedAt: number;
  revision: number;
  entryCount: number;
}

/** A whole stored conversation. */
export interface IStoredConversation extends IConversationSummary {
  /** The model it chose; null: its endpoint's default (docs/protocol.md §13.2). */
  model: string | null;
  entries: JsonObject[];
  transportMemory: JsonObject | null;
  queue: unknown[];
}

/** What a save sends: the entries changed since the last save, by key. */
export interface IConversationUpdate {
  threadId: string;
  endpointName: string | null;
  status: ConversationStatus;
  title?: string;
  model?: string | null;
  entries?: JsonObject[];
  removedKeys?: string[];
  transportMemory?: JsonObject | null;
  queue?: unknown[];
}

/** The store's routes, as the model uses them (a fake in unit tests). */
export interface IConversationStore {
  list(query?: string): Promise<IConversationSummary[]>;
  /** Null when the store has no conversation `id`. */
  get(id: string): Promise<IStoredConversation | null>;
  /**
   * `get`, or `'unchanged'` while the stored revision is still `revision`
   * (one cheap answer, not the whole conversation).
   */
  getIfChanged(
    id: string,
    revision: number
  ): Promise<IStoredConversation | 'unchanged' | null>;
  put(
    id: string,
    update: IConversationUpdate
  ): Promise<{ revision: number; updatedAt: number }>;
  rename(id: string, title: string): Promise<IConversationSummary>;
  remove(id: string): Promise<void>;
}

/**
 * The server has no conversation store (an older server, or the server
 * extension is not enabled): the route itself is missing.
 */
export class StoreUnavailableError extends Error {
  constructor(url: string, status: number) {
    super(
      `the Jupyter server has no conversation store (${url} answered ${status})`
    );
    this.name = 'StoreUnavailableError';
  }
}

/** The store of the Jupyter server `serverSettings` points at. */
export function serverConversationStore(
  serverSettings: ServerConnection.ISettings
): IConversationStore {
  return new ConversationStoreClient(
    URLExt.join(serverSettings.baseUrl, 'agent-panel', 'conversations'),
    (input, init) => ServerConnection.makeRequest(input, init, serverSettings)
  );
}

export class ConversationStoreClient implements IConversationStore {
  constructor(
    private readonly _url: string,
    private readonly _fetch: FetchLike
  ) {}

  async list(query?: string): Promise<IConversationSummary[]> {
    const url = query
      ? `${this._url}?q=${encodeURIComponent(query)}`
      : this._url;
    const body = await this._json(url, { method: 'GET' });
    if (!isObject(body) || !Array.isArray(body.conversations)) {
      throw new Error(`${url}: the answer has no list of conversations`);
    }
    return body.conversations.map(raw => readSummary(raw, url));
  }

  async get(id: string): Promise<IStoredConversation | null> {
    const url = this._of(id);
    const body = await this._json(url, { method: 'GET' }, true);
    return body === null ? null : readStored(body, url);
  }

  async getIfChanged(
    id: string,
    revision: number
  ): Promise<IStoredConversation | 'unchanged' | null> {
    const url = `${this._of(id)}?since=${revision}`;
    const response = await this._fetch(url, { method: 'GET' });
    if (response.status === 204) {
      return 'unchanged';
    }
    const body = await this._body(url, response, true);
    return body === null ? null : readStored(body, url);
  }

  async put(
    id: string,
    update: IConversationUpdate
  ): Promise<{ revision: number; updatedAt: number }> {
    const url = this._of(id);
    const body = await this._json(url, {
      method: 'PUT',
      body: await requestBody(JSON.stringify(update)),
      headers: { 'Content-Type': 'application/json' }
    });
    if (
      !isObject(body) ||
      typeof body.revision !== 'number' ||
      typeof body.updatedAt !== 'number'
    ) {
      throw new Error(`${url}: the answer has no revision`);
    }
    return { revision: body.revision, updatedAt: body.updatedAt };
  }

  async rename(id: string, title: string): Promise<IConversationSummary> {
    const url = this._of(id);
    const body = await this._json(url, {
      method: 'PATCH',
      body: JSON.stringify({ title }),
      headers: { 'Content-Type': 'application/json' }
    });
    return readSummary(body, url);
  }

  async remove(id: string): Promise<void> {
    // Already gone (another tab deleted it) is what was asked.
    await this._json(this._of(id), { method: 'DELETE' }, true);
  }

  private _of(id: string): string {
    return URLExt.join(this._url, encodeURIComponent(id));
  }

  /**
   * The JSON answer of `url`. A 404 of the store itself (`reason`
   * `not_found`) is null when `missingIsNull`; any other 404 means the
   * route does not exist: `StoreUnavailableError`.
   */
  private async _json(
    url: string,
    init: RequestInit,
    missingIsNull = false
  ): Promise<unknown> {
    const response = await this._fetch(url, init);
    return response.status === 204
      ? null
      : this._body(url, response, missingIsNull);
  }

  /** The JSON body of `response` (not a 204), read as `_json` says. */
  private async _body(
    url: string,
    response: Response,
    missingIsNull: boolean
  ): Promise<unknown> {
    const answer = await jsonAnswer(response);
    const { body } = answer;
    const reason = isObject(body) ? body.reason : undefined;
    if (response.status === 404 && reason !== 'not_found') {
      throw new StoreUnavailableError(url, response.status);
    }
    if (response.status === 404 && missingIsNull) {
      return null;
    }
    if (!response.ok) {
      throw answerError(url, response.status, answer);
    }
    if (body === undefined) {
      throw new Error(`${url}: the answer is not JSON`);
    }
    return body;
  }
}

/** A whole stored conversation read from the answer of `url`. */
function readStored(body: unknown, url: string): IStoredConversation {
  const summary = readSummary(body, url);
  const record = body as JsonObject;
  if (!Array.isArray(record.entries) || !record.entries.every(isObject)) {
    throw new Error(`${url}: the conversation has no list of entries`);
  }
  return {
    ...summary,
    model: isModelId(record.model) ? record.model : null,
    entries: record.entries as JsonObject[],
    transportMemory: isObject(record.transportMemory)
      ? record.transportMemory
      : null,
    queue: Array.isArray(record.queue) ? record.queue : []
  };
}

/** A request body longer than this (in characters) is encoded a slice at a time. */
export const BODY_SLICE_CHARS = 256 * 1024;

/**
 * `json` as a request body. The browser encodes a string body to UTF-8 in
 * one go, inside the task that sends it: a conversation holding a very
 * long answer (megabytes) would stall the page for that long. So a long
 * body is encoded a slice per task, into a Blob of Blobs, which `fetch`
 * sends without encoding it again (docs/protocol.md §13.3).
 */
export async function requestBody(
  json: string,
  sliceChars = BODY_SLICE_CHARS
): Promise<string | Blob> {
  if (json.length <= sliceChars) {
    return json;
  }
  const slices: Blob[] = [];
  for (let start = 0; start < json.length;) {
    let end = Math.min(json.length, start + sliceChars);
    // Each slice is encoded on its own: never cut a surrogate pair in two
    // (JSON.stringify escapes lone surrogates, so any left are pairs).
    if (end < json.length && isHighSurrogate(json.charCodeAt(end - 1))) {
      end -= 1;
    }
    slices.push(new Blob([json.slice(start, end)]));
    start = end;
    if (start < json.length) {
      await nextTask();
    }
  }
  return new Blob(slices, { type: 'application/json' });
}

const STATUSES: readonly ConversationStatus[] = ['idle', 'running', 'review'];

function readSummary(raw: unknown, url: string): IConversationSummary {
  if (!isObject(raw) || typeof raw.id !== 'string' || !raw.id) {
    throw new Error(`${url}: a conversation has no id`);
  }
  return {
    id: raw.id,
    title: typeof raw.title === 'string' ? raw.title : '',
    threadId: typeof raw.threadId === 'string' ? raw.threadId : '',
    endpointName:
      typeof raw.endpointName === 'string' && raw.endpointName
        ? raw.endpointName
        : null,
    status: STATUSES.includes(raw.status as ConversationStatus)
      ? (raw.status as ConversationStatus)
      : 'idle',
    createdAt: finiteNumber(raw.createdAt),
    updatedAt: finiteNumber(raw.updatedAt),
    revision: finiteNumber(raw.revision),
    entryCount: finiteNumber(raw.entryCount)
  };
}
