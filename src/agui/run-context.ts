/**
 * What the parts of one run's mapping share: where the frames and the
 * diagnostics go, the thread, the node text is named by, and the tool
 * calls this run delivered. A diagnostic is reported once per run however
 * often it recurs.
 */
import type {
  IActivityFrame,
  IStreamingFrame,
  WireFrame
} from '../wire/frame-types';
import type { JsonObject } from '../wire/json';
import { type IProblem, problem, problemText } from '../wire/problem';
import type { IClientToolCall } from '../wire/turn';
import {
  stringField,
  type AguiEventType,
  type IAguiEvent,
  type LegacyEventType
} from './events';
import type { AguiThread } from './thread';

/** Where a run's frames and diagnostics go. */
export interface IFrameOutput {
  frame(frame: WireFrame): void;
  diagnostic(problem: IProblem): void;
  /**
   * A diagnostic that is worth a console warning too: the producer sent
   * what the mapper cannot use (an unknown event, an event after the run
   * ended). The pure layer does not log; the transport does.
   */
  warning?(problem: IProblem): void;
  /**
   * The run finished (`RUN_FINISHED`, before its terminal frame): the
   * thread's memory to keep, and the calls of offered client tools it left
   * unanswered (docs/protocol.md §8.8, §8.11).
   */
  finished?(memory: JsonObject, clientCalls: IClientToolCall[]): void;
}

/** The event types one part of the mapping handles, each with its handler. */
export type EventHandlers = Partial<
  Record<AguiEventType | LegacyEventType, (event: IAguiEvent) => void>
>;

/** The node core names text with before any step is known. */
const DEFAULT_NODE = 'agent';

export class RunContext {
  constructor(
    readonly thread: AguiThread,
    readonly out: IFrameOutput
  ) {}

  /** The node text is attributed to: the last `STEP_STARTED`'s name. */
  node = DEFAULT_NODE;
  /** Ids of the tool calls this run delivered (streamed or in a snapshot). */
  readonly runCalls = new Set<string>();

  /** Emit a frame, tagged with the subagent the event came from. */
  emit(frame: IStreamingFrame | IActivityFrame, subagentRunId: unknown): void {
    const subagent = this.thread.subagentTag(subagentRunId);
    for (const call of frame.status === 'streaming'
      ? (frame.tool_calls ?? [])
      : []) {
      if (call.id !== null) {
        this.runCalls.add(call.id);
      }
    }
    this.out.frame(subagent ? { ...frame, subagent } : frame);
  }

  /** `event[key]` as a string id; a diagnostic when it is missing. */
  requireId(event: IAguiEvent, key: string): string | null {
    const id = stringField(event, key);
    if (id === null) {
      this.problem('%1 without a string "%2": ignored', event.type, key);
    }
    return id;
  }

  problem(template: string, ...args: unknown[]): void {
    this.report(problem(template, ...args));
  }

  report(found: IProblem): void {
    if (this._isNew(found)) {
      this.out.diagnostic(found);
    }
  }

  /** A diagnostic the transport also logs (`IFrameOutput.warning`). */
  warn(found: IProblem): void {
    if (this._isNew(found)) {
      this.out.warning?.(found);
      this.out.diagnostic(found);
    }
  }

  private _isNew(found: IProblem): boolean {
    const text = problemText(found);
    if (this._reported.has(text)) {
      return false;
    }
    this._reported.add(text);
    return true;
  }

  private readonly _reported = new Set<string>();
}

/** The subagent run an event came from, if any. */
export function subagentOf(event: IAguiEvent): string | null {
  return stringField(event, 'subagentRunId');
}
