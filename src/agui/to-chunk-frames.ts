/**
 * The AG-UI → chunk-wire state machine of one run (docs/protocol.md §8.5).
 *
 * Events go in; typed chunk-wire frames (the shapes `decodeFrame` yields,
 * built with the wire's builders) and diagnostics come out, so one reducer
 * renders both wires. Memory that outlives a run (ids already
 * delivered, open interrupts, state) lives in the thread's `AguiThread`.
 *
 * This module owns the run's lifecycle and hands every other event to the
 * part of its family: text and reasoning, tool calls, interrupts, state.
 * Ordering rules of the protocol are checked as events pass; a violation is
 * reported once as a diagnostic and the content is still delivered. After
 * the first terminal event (`RUN_FINISHED`, `RUN_ERROR`) the run is latched:
 * later events are dropped with a warning (`IFrameOutput.warning`) and a
 * diagnostic.
 */
import { usageFrame } from '../wire/frame-builders';
import type { ICancelledFrame } from '../wire/frame-types';
import { isObject } from '../wire/json';
import { problem } from '../wire/problem';
import { ChunkNormaliser } from './chunks';
import {
  stringField,
  type AguiEventType,
  type IAguiEvent,
  type LegacyEventType
} from './events';
import { InterruptMapping } from './interrupt-mapping';
import {
  type EventHandlers,
  type IFrameOutput,
  RunContext
} from './run-context';
import { StateMapping } from './state-mapping';
import { TextMapping } from './text-mapping';
import type { AguiThread } from './thread';
import { ToolCallMapping } from './tool-call-mapping';
import { ToolErrorLog } from './tool-errors';

/** How a turn the user stopped ends, in core's words. */
export function cancelledByUser(): ICancelledFrame {
  return { status: 'cancelled', message: 'Execution cancelled by user' };
}

/**
 * Events with nothing to show: step ends, reasoning envelopes, encrypted
 * reasoning, the 0.x thinking envelopes, and the chunk events
 * `ChunkNormaliser` turns into start/content/end before they get here.
 */
const SILENT: (AguiEventType | LegacyEventType)[] = [
  'STEP_FINISHED',
  'REASONING_START',
  'REASONING_END',
  'REASONING_ENCRYPTED_VALUE',
  'THINKING_START',
  'THINKING_END',
  'THINKING_TEXT_MESSAGE_START',
  'THINKING_TEXT_MESSAGE_END',
  'TEXT_MESSAGE_CHUNK',
  'TOOL_CALL_CHUNK',
  'REASONING_MESSAGE_CHUNK'
];

type Handler = (event: IAguiEvent) => void;

export class AguiRunMapper {
  constructor(thread: AguiThread, out: IFrameOutput) {
    const run = new RunContext(thread, out);
    const toolErrors = new ToolErrorLog();
    this._run = run;
    this._text = new TextMapping(run);
    this._tools = new ToolCallMapping(run, toolErrors);
    this._interrupts = new InterruptMapping(run, id => this._tools.argsOf(id));
    const families: EventHandlers[] = [
      this._lifecycle(),
      this._text.handlers,
      this._tools.handlers,
      this._interrupts.handlers,
      new StateMapping(run, toolErrors).handlers
    ];
    for (const type of SILENT) {
      this._handlers.set(type, () => undefined);
    }
    for (const handlers of families) {
      for (const [type, handle] of Object.entries(handlers)) {
        this._handlers.set(type, handle);
      }
    }
  }

  /** A terminal event was applied; later events are dropped. */
  get terminal(): boolean {
    return this._terminal !== null;
  }

  /** The run id from `RUN_STARTED`, once seen. */
  get runId(): string | null {
    return this._runId;
  }

  /**
   * The stream is over. Tool calls still open are delivered with the
   * arguments received so far; without a terminal event the transport's
   * end-of-stream rule applies.
   */
  endOfStream(): void {
    if (this._terminal === null) {
      this._flushOpen('the stream ended');
    }
  }

  /** We asked the producer to stop: its `RUN_ERROR` now means cancelled. */
  noteCancelRequested(): void {
    this._cancelRequested = true;
  }

  apply(event: IAguiEvent): void {
    if (this._terminal !== null) {
      this._dropLate(event);
      return;
    }
    if (!this._started && event.type !== 'RUN_STARTED') {
      this._run.problem('the first event is %1, not RUN_STARTED', event.type);
      this._started = true;
    }
    for (const normal of this._chunks.normalise(event, found =>
      this._run.report(found)
    )) {
      this._dispatch(normal);
      if (this._terminal !== null) {
        return;
      }
    }
  }

  private _dispatch(event: IAguiEvent): void {
    const handle = this._handlers.get(event.type);
    if (handle) {
      handle(event);
    } else {
      this._run.warn(problem('unknown event type %1: ignored', event.type));
    }
  }

  /** The events of the run itself. */
  private _lifecycle(): EventHandlers {
    return {
      RUN_STARTED: event => this._runStarted(event),
      RUN_FINISHED: event => this._runFinished(event),
      RUN_ERROR: event => this._runError(event),
      STEP_STARTED: event => {
        this._run.node = stringField(event, 'stepName') ?? this._run.node;
      }
    };
  }

  private _runStarted(event: IAguiEvent): void {
    const runId = stringField(event, 'runId');
    if (this._sawRunStarted) {
      if (runId === this._runId) {
        this._run.problem('duplicate RUN_STARTED for run %1', String(runId));
      } else {
        this._run.problem(
          'RUN_STARTED for run %1 while run %2 is open',
          String(runId),
          String(this._runId)
        );
      }
      return;
    }
    this._sawRunStarted = true;
    this._started = true;
    this._runId = runId;
  }

  private _runFinished(event: IAguiEvent): void {
    const { thread, out } = this._run;
    this._flushOpen('RUN_FINISHED');
    const outcome = isObject(event.outcome) ? event.outcome : null;
    if (outcome?.type === 'interrupt') {
      const interrupts = Array.isArray(outcome.interrupts)
        ? outcome.interrupts
        : [];
      for (const interrupt of interrupts) {
        this._interrupts.outcomeInterrupt(interrupt);
      }
    }
    const cancelled = outcome?.type === 'cancelled';
    const open = cancelled ? [] : this._interrupts.open();
    thread.openInterrupts = open;
    this._usage(event.usage);
    const calls =
      open.length > 0 || cancelled
        ? []
        : this._tools.clientCalls(outcome?.pendingToolCallIds);
    out.finished?.(thread.memory(), calls);
    if (cancelled) {
      out.frame({ status: 'cancelled', message: 'Run cancelled' });
    } else {
      out.frame({
        status: 'complete',
        outcome: open.length > 0 ? 'interrupted' : 'complete'
      });
    }
    this._terminal = 'RUN_FINISHED';
  }

  private _runError(event: IAguiEvent): void {
    const { thread, out } = this._run;
    this._usage(event.usage);
    if (event.code === 'abort' || this._cancelRequested) {
      out.frame(cancelledByUser());
    } else {
      out.frame({
        status: 'error',
        error: stringField(event, 'message') || 'unknown error',
        traceback: null
      });
    }
    thread.openInterrupts = [];
    this._terminal = 'RUN_ERROR';
  }

  /** `usage` of a terminal event, summed over its models (`TokenUsage[]`). */
  private _usage(usage: unknown): void {
    const entries = Array.isArray(usage) ? usage.filter(isObject) : [];
    const total = (key: string): number | null => {
      const counts = entries
        .map(entry => entry[key])
        .filter(
          (count): count is number =>
            typeof count === 'number' && Number.isFinite(count)
        );
      return counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : null;
    };
    const input = total('inputTokens');
    const output = total('outputTokens');
    if (input !== null || output !== null) {
      this._run.out.frame(usageFrame(input, output));
    }
  }

  /** Report what is left open at `when`; deliver the open calls. */
  private _flushOpen(when: string): void {
    const open = [...this._text.stillOpen(), ...this._tools.stillOpen()];
    if (open.length > 0) {
      this._run.problem('%1 with %2 still open', when, open.join(' and '));
    }
    this._tools.deliverOpen();
  }

  private _dropLate(event: IAguiEvent): void {
    if (this._reportedLate) {
      return;
    }
    this._reportedLate = true;
    this._run.warn(
      problem(
        'ignored %1 and any later events: the run already ended with %2',
        event.type,
        String(this._terminal)
      )
    );
  }

  private readonly _run: RunContext;
  private readonly _text: TextMapping;
  private readonly _tools: ToolCallMapping;
  private readonly _interrupts: InterruptMapping;
  private readonly _chunks = new ChunkNormaliser();
  /** Every event type the mapper knows, with the part's handler. */
  private readonly _handlers = new Map<string, Handler>();
  private _runId: string | null = null;
  private _started = false;
  private _sawRunStarted = false;
  private _terminal: string | null = null;
  private _reportedLate = false;
  private _cancelRequested = false;
}
