/**
 * The thread routes of this server's agents (docs/protocol.md §6.1, §15.5):
 * `<agent>/threads…`, for `http` endpoints served by this Jupyter server
 * under `agent-panel/`. Other endpoints keep their memory where the panel
 * cannot see it: nothing is asked of them.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { IEndpointSettings } from '../../contracts/settings';
import { isObject } from '../../wire/json';
import { resolveEndpoint } from '../endpoint';
import { answerError, finiteNumber, jsonAnswer } from './json-answer';
import type { FetchLike } from '../types';

/** What a deployment says of a thread: `interrupted` when a review waits. */
export type AgentThreadStatus = 'idle' | 'busy' | 'interrupted' | 'error';

/** One of the user's threads on a deployment, as the conversation list shows it. */
export interface IAgentThread {
  threadId: string;
  /** "" until set. */
  title: string;
  createdAt: number;
  updatedAt: number;
  status: AgentThreadStatus;
}

/** One past turn: what the user sent and the frames of what the agent did. */
export interface IHistoryTurn {
  message: string;
  frames: unknown[];
}

/** A thread read back from the agent that keeps it. */
export interface IThreadHistory extends IAgentThread {
  turns: IHistoryTurn[];
}

export interface IAgentThreads {
  /** Whether the agent remembers `threadId`; null when it cannot tell. */
  known(endpoint: IEndpointSettings, threadId: string): Promise<boolean | null>;
  /** Delete the thread from the agent's checkpointer (nothing for other endpoints). */
  forget(endpoint: IEndpointSettings, threadId: string): Promise<void>;
  /** The user's threads the agent keeps as conversations (a deployment's), newest first. */
  list(endpoint: IEndpointSettings): Promise<IAgentThread[]>;
  /** The thread's turns, read from the agent; null when it has no such thread of the user's. */
  history(
    endpoint: IEndpointSettings,
    threadId: string
  ): Promise<IThreadHistory | null>;
  /** Give the thread its conversation's title (nothing for agents without titles). */
  retitle(
    endpoint: IEndpointSettings,
    threadId: string,
    title: string
  ): Promise<void>;
}

/** The thread routes of the Jupyter server `serverSettings` points at. */
export function serverAgentThreads(
  serverSettings: ServerConnection.ISettings,
  fetchFn: FetchLike = (input, init) =>
    ServerConnection.makeRequest(input, init, serverSettings)
): IAgentThreads {
  return new AgentThreadsClient(serverSettings.baseUrl, fetchFn);
}

class AgentThreadsClient implements IAgentThreads {
  constructor(
    private readonly _baseUrl: string,
    private readonly _fetch: FetchLike
  ) {
    this._agents = URLExt.join(_baseUrl, 'agent-panel/');
  }

  async known(
    endpoint: IEndpointSettings,
    threadId: string
  ): Promise<boolean | null> {
    const url = this._route(endpoint, threadId);
    if (!url) {
      return null;
    }
    const response = await this._fetch(url, { method: 'GET' });
    if (!response.ok) {
      // 404: a server older than the thread routes; it cannot tell.
      return null;
    }
    const body: unknown = await response.json().catch(() => null);
    return isObject(body) && typeof body.known === 'boolean'
      ? body.known
      : null;
  }

  async forget(endpoint: IEndpointSettings, threadId: string): Promise<void> {
    const url = this._route(endpoint, threadId);
    if (!url) {
      return;
    }
    const response = await this._fetch(url, { method: 'DELETE' });
    if (!response.ok && response.status !== 404) {
      throw new Error(
        `${url} answered ${response.status}: the agent keeps the thread`
      );
    }
  }

  async list(endpoint: IEndpointSettings): Promise<IAgentThread[]> {
    const url = this._route(endpoint);
    if (!url) {
      return [];
    }
    const response = await this._fetch(url, { method: 'GET' });
    if (response.status === 404) {
      return []; // a server older than the list
    }
    const body = await answer(url, response);
    if (!isObject(body) || !Array.isArray(body.threads)) {
      throw new Error(`${url}: the answer has no list of threads`);
    }
    return body.threads.map(raw => readThread(raw, url));
  }

  async history(
    endpoint: IEndpointSettings,
    threadId: string
  ): Promise<IThreadHistory | null> {
    const url = this._route(endpoint, threadId, 'history');
    if (!url) {
      return null;
    }
    const response = await this._fetch(url, { method: 'GET' });
    if (response.status === 404) {
      return null;
    }
    const body = await answer(url, response);
    if (!isObject(body) || !Array.isArray(body.turns)) {
      throw new Error(`${url}: the answer has no list of turns`);
    }
    return { ...readThread(body, url), turns: body.turns.map(readTurn) };
  }

  async retitle(
    endpoint: IEndpointSettings,
    threadId: string,
    title: string
  ): Promise<void> {
    const url = this._route(endpoint, threadId);
    if (!url) {
      return;
    }
    const response = await this._fetch(url, {
      method: 'PATCH',
      body: JSON.stringify({ title }),
      headers: { 'Content-Type': 'application/json' }
    });
    if (!response.ok && response.status !== 404) {
      await answer(url, response);
    }
  }

  /**
   * The thread route under `endpoint`: only an `http` endpoint this server
   * serves under `agent-panel/` has one.
   */
  private _route(
    endpoint: IEndpointSettings,
    ...path: string[]
  ): string | null {
    if (endpoint.transport !== 'http') {
      return null;
    }
    const resolved = resolveEndpoint(endpoint.url, this._baseUrl);
    const base = resolved.url.endsWith('/') ? resolved.url : `${resolved.url}/`;
    return resolved.isJupyterRoute && base.startsWith(this._agents)
      ? URLExt.join(base, 'threads', ...path.map(encodeURIComponent))
      : null;
  }

  private readonly _agents: string;
}

/** The JSON body of a 2xx answer; otherwise an error naming the route and its message. */
async function answer(url: string, response: Response): Promise<unknown> {
  const read = await jsonAnswer(response);
  if (!response.ok) {
    throw answerError(url, response.status, read);
  }
  return read.body;
}

const STATUSES: readonly AgentThreadStatus[] = [
  'idle',
  'busy',
  'interrupted',
  'error'
];

function readThread(raw: unknown, url: string): IAgentThread {
  if (!isObject(raw) || typeof raw.thread_id !== 'string' || !raw.thread_id) {
    throw new Error(`${url}: a thread has no thread_id`);
  }
  return {
    threadId: raw.thread_id,
    title: typeof raw.title === 'string' ? raw.title : '',
    createdAt: finiteNumber(raw.created_at),
    updatedAt: finiteNumber(raw.updated_at),
    status: STATUSES.includes(raw.status as AgentThreadStatus)
      ? (raw.status as AgentThreadStatus)
      : 'idle'
  };
}

function readTurn(raw: unknown): IHistoryTurn {
  return {
    message:
      isObject(raw) && typeof raw.message === 'string' ? raw.message : '',
    frames: isObject(raw) && Array.isArray(raw.frames) ? raw.frames : []
  };
}
