/**
 * One websocket speaking chanx's topic envelope (docs/protocol.md §9.1–9.2): flat JSON
 * frames with `version`, `topic`, `action`, `payload` and (server → client)
 * `seq`. Topics are subscribed with `subscribe` and confirmed by `subscribed`;
 * an `error` frame naming a topic is that topic's failure.
 *
 * The connection reconnects with backoff while any topic is subscribed and
 * subscribes every topic again once it is back, so the server can replay
 * what is in flight.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { errorMessage, isObject, type JsonObject } from '../../wire/json';
import { panelStrings } from '../../contracts/translation';

/** The part of the browser `WebSocket` this uses; fakes in tests need only this. */
export interface IWebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
}

export type SocketFactory = (url: string) => IWebSocketLike;

/** What a subscriber hears about its topic. */
export interface ITopicListener {
  /** The server confirmed the subscription (again after each reconnect). */
  subscribed(): void;
  /** The server refused the topic or reported an error for it. */
  error(message: string): void;
  /** Any other frame of the topic, envelope keys included. */
  frame(frame: JsonObject): void;
  /** The socket closed; it is being reopened. */
  disconnected(reason: string): void;
}

export interface IChanxOptions {
  createSocket?: SocketFactory;
  /** Waits between reconnect attempts; the last one repeats. */
  backoffMs?: number[];
  /** Problems that belong to no topic (unreadable frames, topic-less errors). */
  onProblem?: (message: string) => void;
  /** Words what subscribers and waiters are told; English by default. */
  trans?: TranslationBundle;
}

const OPEN = 1;
const DEFAULT_BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
const ENVELOPE_VERSION = 1;
/** Runtime frames that carry nothing for a subscriber. */
const BOOKKEEPING_ACTIONS = new Set([
  'complete',
  'event_complete',
  'group_complete',
  'unsubscribed'
]);

export class ChanxConnection implements IDisposable {
  constructor(
    readonly url: string,
    options: IChanxOptions = {}
  ) {
    this._createSocket =
      options.createSocket ?? (target => new WebSocket(target));
    this._backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this._onProblem = options.onProblem ?? (() => undefined);
    this._trans = options.trans ?? panelStrings();
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** True while the socket is open. */
  get isOpen(): boolean {
    return this._socket?.readyState === OPEN;
  }

  /** Subscribe `topic`; the returned disposable unsubscribes. */
  subscribe(topic: string, listener: ITopicListener): IDisposable {
    if (this._listeners.has(topic)) {
      throw new Error(`${topic} is already subscribed on ${this.url}`);
    }
    this._listeners.set(topic, listener);
    if (this.isOpen) {
      this._sendFrame({ action: 'subscribe', topic });
    } else {
      this._ensureSocket();
    }
    return {
      isDisposed: false,
      dispose: () => {
        if (this._listeners.get(topic) !== listener) {
          return;
        }
        this._listeners.delete(topic);
        if (this.isOpen) {
          this._sendFrame({ action: 'unsubscribe', topic });
        }
      }
    };
  }

  /** Send `action` to `topic`; false when the socket is not open. */
  send(topic: string, action: string, payload: unknown): boolean {
    if (!this.isOpen) {
      return false;
    }
    this._sendFrame({ topic, action, payload });
    return true;
  }

  /** Resolves once the socket is open; rejects after `timeoutMs`. */
  whenOpen(timeoutMs: number): Promise<void> {
    if (this.isOpen) {
      return Promise.resolve();
    }
    this._ensureSocket();
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, timer: 0 as unknown };
      waiter.timer = setTimeout(() => {
        this._openWaiters.delete(waiter);
        reject(
          new Error(
            this._trans.__(
              'no websocket connection to %1 within %2 s',
              this.url,
              timeoutMs / 1000
            )
          )
        );
      }, timeoutMs);
      this._openWaiters.add(waiter);
    });
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    clearTimeout(this._reconnectTimer);
    this._listeners.clear();
    for (const waiter of this._openWaiters) {
      clearTimeout(waiter.timer as ReturnType<typeof setTimeout>);
      waiter.reject(
        new Error(this._trans.__('the connection to %1 was closed', this.url))
      );
    }
    this._openWaiters.clear();
    const socket = this._socket;
    this._socket = null;
    if (socket) {
      detach(socket);
      socket.close(1000, 'disposed');
    }
  }

  private _ensureSocket(): void {
    if (this._isDisposed || this._socket || this._reconnectTimer) {
      return;
    }
    let socket: IWebSocketLike;
    try {
      socket = this._createSocket(this.url);
    } catch (error) {
      this._onProblem(`cannot open ${this.url}: ${errorMessage(error)}`);
      this._scheduleReconnect();
      return;
    }
    this._socket = socket;
    socket.onopen = () => this._onOpen();
    socket.onmessage = event => this._onMessage(event.data);
    socket.onclose = event => this._onClose(socket, event);
    // A failed socket is followed by `close`, which does the work.
    socket.onerror = () => undefined;
  }

  private _onOpen(): void {
    this._attempt = 0;
    for (const topic of this._listeners.keys()) {
      this._sendFrame({ action: 'subscribe', topic });
    }
    for (const waiter of this._openWaiters) {
      clearTimeout(waiter.timer as ReturnType<typeof setTimeout>);
      waiter.resolve();
    }
    this._openWaiters.clear();
  }

  private _onClose(
    socket: IWebSocketLike,
    event: { code?: number; reason?: string }
  ): void {
    if (socket !== this._socket) {
      return;
    }
    detach(socket);
    this._socket = null;
    const code = event.code ?? this._trans.__('unknown');
    const reason = event.reason
      ? this._trans.__(
          'the connection to %1 closed (code %2: %3)',
          this.url,
          code,
          event.reason
        )
      : this._trans.__('the connection to %1 closed (code %2)', this.url, code);
    for (const listener of [...this._listeners.values()]) {
      listener.disconnected(reason);
    }
    if (this._listeners.size > 0 || this._openWaiters.size > 0) {
      this._scheduleReconnect();
    }
  }

  private _scheduleReconnect(): void {
    if (this._isDisposed || this._reconnectTimer) {
      return;
    }
    const delays = this._backoffMs;
    const delay = delays[Math.min(this._attempt, delays.length - 1)];
    this._attempt += 1;
    this._reconnectTimer = setTimeout(() => {
      this._reconnectTimer = undefined;
      this._ensureSocket();
    }, delay);
  }

  private _onMessage(data: unknown): void {
    let frame: unknown;
    try {
      frame = typeof data === 'string' ? JSON.parse(data) : null;
    } catch {
      frame = null;
    }
    if (!isObject(frame) || typeof frame.action !== 'string') {
      this._onProblem(
        `${this.url} sent a frame that is not a JSON object with an "action"`
      );
      return;
    }
    const topic = typeof frame.topic === 'string' ? frame.topic : null;
    const listener = topic === null ? undefined : this._listeners.get(topic);
    if (frame.action === 'error') {
      const message = describeError(frame.payload);
      if (listener) {
        listener.error(message);
      } else {
        this._onProblem(`${this.url}: ${message}`);
      }
      return;
    }
    if (!listener || BOOKKEEPING_ACTIONS.has(frame.action)) {
      return;
    }
    if (frame.action === 'subscribed') {
      listener.subscribed();
    } else {
      listener.frame(frame);
    }
  }

  private _sendFrame(frame: JsonObject): void {
    this._socket?.send(JSON.stringify({ version: ENVELOPE_VERSION, ...frame }));
  }

  private readonly _createSocket: SocketFactory;
  private readonly _backoffMs: number[];
  private readonly _onProblem: (message: string) => void;
  private readonly _trans: TranslationBundle;
  private readonly _listeners = new Map<string, ITopicListener>();
  private readonly _openWaiters = new Set<{
    resolve: () => void;
    reject: (error: Error) => void;
    timer: unknown;
  }>();
  private _socket: IWebSocketLike | null = null;
  private _reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private _attempt = 0;
  private _isDisposed = false;
}

function detach(socket: IWebSocketLike): void {
  socket.onopen = null;
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
}

/** chanx error payloads: a string, `{message}`, `{detail}` or a list of them. */
function describeError(payload: unknown): string {
  if (typeof payload === 'string') {
    return payload;
  }
  if (Array.isArray(payload)) {
    return payload.map(describeError).join('; ');
  }
  if (isObject(payload)) {
    for (const key of ['message', 'detail', 'msg']) {
      if (typeof payload[key] === 'string') {
        return payload[key] as string;
      }
    }
  }
  return JSON.stringify(payload);
}
