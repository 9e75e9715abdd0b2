/**
 * What the adapter remembers about one AG-UI thread across its runs
 * (docs/protocol.md §8.8): ids already delivered, tool-call names, calls whose
 * arguments are still pending, the open interrupts a resume must answer, the
 * shared state and activities, and subagent names.
 */
import type { ISubagentTag } from '../wire/types';

/** An interrupt the last run paused on. */
export interface IOpenInterrupt {
  /** The producer's interrupt id; null when it revealed none. */
  id: string | null;
  /** How many review rows (decisions) it takes: its action requests, at least one. */
  rows: number;
}

export class AguiThread {
  constructor(readonly threadId: string) {}

  /** Assistant message ids whose text reached the panel. */
  readonly deliveredMessages = new Set<string>();
  /** Tool-call ids whose call reached the panel. */
  readonly deliveredCalls = new Set<string>();
  /** Tool-call ids (and tool-message ids) whose result reached the panel. */
  readonly deliveredResults = new Set<string>();
  /** Tool names by call id, for results that arrive without one. */
  readonly callNames = new Map<string, string>();
  /** Calls shown with `{}` because no argument text arrived (quirk 3). */
  readonly argsPending = new Set<string>();
  /** Subagent names by subagent run id. */
  readonly subagentNames = new Map<string, string>();
  /** Activity contents by activity id (patched by `ACTIVITY_DELTA`). */
  readonly activities = new Map<string, { type: string; content: unknown }>();
  /** The shared state; AG-UI threads start from the `{}` the panel sends. */
  state: unknown = {};
  /** The interrupts of the last run, when it paused; else empty. */
  openInterrupts: IOpenInterrupt[] = [];

  /** The tag for events of `subagentRunId`, if they carry one. */
  subagentTag(subagentRunId: unknown): ISubagentTag | undefined {
    if (typeof subagentRunId !== 'string') {
      return undefined;
    }
    return {
      id: subagentRunId,
      name: this.subagentNames.get(subagentRunId) ?? null
    };
  }
}
