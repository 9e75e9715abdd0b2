/**
 * One kernel comm turn (docs/protocol.md §7.2): the `start_turn` or `resume`
 * it sends on the channel, the frames, `turn_end` or rejection that answer
 * it, Stop's `cancel` with its grace, and the idle timeout.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { type JSONObject, PromiseDelegate, UUID } from '@lumino/coreutils';
import { decodeFrame } from '../../wire/frames';
import { errorMessage } from '../../wire/json';
import { failure } from '../../wire/problem';
import {
  chunkWireContext,
  forkKeys,
  resumeAnswers,
  type ITurnHandle,
  type ITurnSink,
  type TurnRefusal,
  turnRefusal
} from '../../wire/turn';
import { translated } from '../frame-output';
import { IdleWatch } from '../idle-watch';
import type { ChunkWireRequest } from '../turn-set';
import type { AgentChannel, IChannelTurn, TurnMessage } from './agent-channel';

export interface ICommTurnOptions {
  request: ChunkWireRequest;
  sink: ITurnSink;
  connect: () => Promise<AgentChannel>;
  idleTimeoutMs: number;
  cancelGraceMs: number;
  trans: TranslationBundle;
}

/** One `start_turn` / `resume` and the messages that answer it. */
export class CommTurn implements ITurnHandle, IChannelTurn {
  constructor(private readonly _options: ICommTurnOptions) {
    const { idleTimeoutMs, trans } = _options;
    this._idle = new IdleWatch(idleTimeoutMs, () => {
      this._sendCancel();
      this._finish(
        trans.__(
          'No message from the kernel of %1 for %2 s (idle timeout).',
          this._channel?.where ?? '?',
          idleTimeoutMs / 1000
        )
      );
    });
    void this._start();
  }

  /** Fresh per turn (docs/protocol.md §7.2). */
  readonly turnId = UUID.uuid4();
  get done(): Promise<void> {
    return this._done.promise;
  }

  stop(): void {
    if (this._finished || this._stopping) {
      return;
    }
    this._stopping = true;
    if (!this._channel) {
      // Nothing reached the kernel yet: the panel ends the turn itself.
      this._finish();
      return;
    }
    if (!this._sendCancel()) {
      this._finish();
      return;
    }
    this._noteWaitForCell((where, reason) =>
      this._options.trans.__(
        'Stop reaches the kernel of %1 when its running cell ends: %2.',
        where,
        reason
      )
    );
    this._graceTimer = setTimeout(
      () => this._finish(),
      this._options.cancelGraceMs
    );
  }

  receive(message: TurnMessage): void {
    if (this._finished) {
      return;
    }
    this._idle.note();
    switch (message.type) {
      case 'frame':
        this._receiveFrame(message.seq, message.frame);
        break;
      case 'turn_end':
        // Without a terminal frame before it, the EOF rule applies (docs/protocol.md §7.3).
        this._finish();
        break;
      case 'rejected':
        this._finish(
          this._describeRejection(message.reason, message.detail),
          turnRefusal(message.reason)
        );
        break;
    }
  }

  fail(cause: string): void {
    this._finish(this._options.trans.__('%1; the turn was lost.', cause));
  }

  private async _start(): Promise<void> {
    let channel: AgentChannel;
    try {
      channel = await this._options.connect();
    } catch (error) {
      this._finish(sentence(errorMessage(error)));
      return;
    }
    if (this._finished) {
      return;
    }
    this._channel = channel;
    channel.attach(this);
    try {
      channel.send(this._requestMessage());
    } catch (error) {
      this._finish(sentence(errorMessage(error)));
      return;
    }
    this._idle.note();
    this._noteWaitForCell((where, reason) =>
      this._options.trans.__(
        'The agent starts when the running cell of %1 ends: %2.',
        where,
        reason
      )
    );
  }

  /**
   * Say why the kernel is not answering yet: it runs a cell and this comm is
   * not on a subshell (docs/protocol.md §7.5).
   */
  private _noteWaitForCell(
    message: (where: string, reason: string) => string
  ): void {
    const channel = this._channel;
    const reason = channel?.waitsForCells;
    if (channel && reason && channel.kernel.status === 'busy') {
      this._options.sink.diagnostic(message(channel.where, reason));
    }
  }

  private _requestMessage(): JSONObject {
    const request = this._options.request;
    if (request.kind === 'resume') {
      return {
        type: 'resume',
        turn_id: this.turnId,
        thread_id: request.threadId,
        decisions: request.decisions as unknown as JSONObject[],
        ...resumeAnswers(request.reviews),
        ...forkKeys(request.fork)
      };
    }
    const message: JSONObject = {
      type: 'start_turn',
      turn_id: this.turnId,
      thread_id: request.threadId,
      message: request.message,
      ...forkKeys(request.fork)
    };
    if (request.context) {
      message.context = chunkWireContext(request.context);
    }
    return message;
  }

  private _receiveFrame(seq: number | null, frame: unknown): void {
    const { sink, trans } = this._options;
    const expected = this._nextSeq;
    if (seq === null) {
      sink.diagnostic(
        trans.__('A frame from the kernel had no valid seq number.')
      );
    } else if (seq > expected) {
      sink.diagnostic(
        trans.__(
          'Messages lost: expected frame %1 from the kernel, got frame %2 (%3 missing); the answer may be incomplete.',
          expected,
          seq,
          seq - expected
        )
      );
      this._nextSeq = seq + 1;
    } else if (seq < expected) {
      sink.diagnostic(
        trans.__(
          'Frame %1 from the kernel arrived out of order (expected %2).',
          seq,
          expected
        )
      );
    } else {
      this._nextSeq = seq + 1;
    }
    // A comm frame is already parsed: a string is not JSON text to decode.
    const decoded =
      typeof frame === 'string'
        ? failure('frame is a string, not an object')
        : decodeFrame(frame);
    if (decoded.ok) {
      sink.frame(decoded.frame);
    } else {
      sink.diagnostic(
        trans.__(
          'Kernel frame %1: %2',
          seq ?? '?',
          translated(decoded.problem, trans)
        )
      );
    }
  }

  private _describeRejection(reason: string, detail: string): string {
    const trans = this._options.trans;
    switch (reason) {
      case 'busy':
        return trans.__(
          'The kernel rejected the turn: a turn is already running on this conversation.'
        );
      case 'nothing_pending':
      case 'stale_review':
        return trans.__('The kernel did not resume: %1', detail);
      case 'no_agent':
        return trans.__('The kernel has no agent to run the turn: %1', detail);
      case 'bad_request':
        return trans.__('The kernel rejected the request: %1', detail);
      case 'unknown_type':
        return trans.__(
          'The kernel does not know this request (update jupyterlab_agent_panel in the kernel): %1',
          detail
        );
      default:
        return trans.__(
          'The kernel rejected the turn (%1): %2',
          reason,
          detail
        );
    }
  }

  /** Best effort: false when the comm is already gone. */
  private _sendCancel(): boolean {
    try {
      this._channel?.send({ type: 'cancel', turn_id: this.turnId });
      return this._channel !== null;
    } catch {
      return false;
    }
  }

  /** End the turn exactly once. */
  private _finish(reason?: string, refusal?: TurnRefusal): void {
    if (this._finished) {
      return;
    }
    this._finished = true;
    this._idle.dispose();
    clearTimeout(this._graceTimer);
    this._channel?.detach(this);
    try {
      this._options.sink.end(reason, refusal);
    } finally {
      this._done.resolve();
    }
  }

  private _channel: AgentChannel | null = null;
  private _nextSeq = 0;
  private _finished = false;
  private _stopping = false;
  private readonly _idle: IdleWatch;
  private _graceTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly _done = new PromiseDelegate<void>();
}

/** Channel causes are sentence starts; user-facing text ends with a stop. */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
