/**
 * What the adapter knows about one AG-UI thread (docs/protocol.md §8.8): the
 * conversation it keeps for the agent (the message list, the shared state,
 * the open interrupts, the context last sent), which it saves as the
 * conversation's transport memory, and what it derives from it — the ids
 * already shown, tool-call names, calls whose arguments are still pending,
 * activity contents — plus the subagent names of the runs it mapped.
 */
import type { Context } from '@ag-ui/core';
import { isObject, type JsonObject } from '../wire/json';
import { type IProblem, problem } from '../wire/problem';
import type { HistoryMode } from '../wire/turn';
import type { ISubagentTag } from '../wire/types';
import { AguiHistory, callsOf } from './history';

/** An interrupt the last run paused on. */
export interface IOpenInterrupt {
  /** The producer's interrupt id; null when it revealed none. */
  id: string | null;
  /** How many review rows (decisions) it takes: its action requests, at least one. */
  rows: number;
  /** It asks for a payload (an AG-UI 1.0 request), not for decisions. */
  request?: boolean;
}

/** The version of the saved memory's shape. */
const MEMORY_VERSION = 1;

export class AguiThread {
  constructor(readonly threadId: string) {}

  /** The message list `RunAgentInput.messages` carries. */
  readonly history = new AguiHistory();
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
  /** The context entries of the last chat message, sent again on a resume. */
  context: Context[] = [];
  /** The names of the client tools offered on the run being mapped. */
  offeredTools: ReadonlySet<string> = new Set();

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

  /** What to keep with the conversation: plain JSON, read by `load`. */
  memory(): JsonObject {
    return {
      agui: MEMORY_VERSION,
      messages: [...this.history.messages],
      state: this.state ?? {},
      interrupts: this.openInterrupts.map(interrupt => ({ ...interrupt })),
      context: this.context
    };
  }

  /**
   * Become the thread `memory` describes (absent or unreadable: a new
   * thread): everything in its message list counts as shown already.
   */
  load(memory: JsonObject | undefined): void {
    const saved = memory?.agui === MEMORY_VERSION ? memory : {};
    this.history.replace(Array.isArray(saved.messages) ? saved.messages : []);
    this.state = 'state' in saved ? saved.state : {};
    this.openInterrupts = readInterrupts(saved.interrupts);
    this.context = readContext(saved.context);
    for (const set of [
      this.deliveredMessages,
      this.deliveredCalls,
      this.deliveredResults,
      this.argsPending
    ]) {
      set.clear();
    }
    this.callNames.clear();
    this.activities.clear();
    this.subagentNames.clear();
    for (const message of this.history.messages) {
      this._derive(message);
    }
  }

  private _derive(message: JsonObject): void {
    const id = message.id as string;
    switch (message.role) {
      case 'assistant':
        this.deliveredMessages.add(id);
        for (const call of callsOf(message)) {
          this.deliveredCalls.add(call.id);
          this.callNames.set(call.id, call.function.name);
          if (!call.function.arguments) {
            this.argsPending.add(call.id);
          }
        }
        return;
      case 'tool':
        this.deliveredResults.add(id);
        if (typeof message.toolCallId === 'string') {
          this.deliveredResults.add(message.toolCallId);
        }
        return;
      case 'activity':
        if (typeof message.activityType === 'string') {
          this.activities.set(id, {
            type: message.activityType,
            content: message.content
          });
        }
    }
  }
}

function readInterrupts(value: unknown): IOpenInterrupt[] {
  return (Array.isArray(value) ? value : []).flatMap(item =>
    isObject(item) &&
    (typeof item.id === 'string' || item.id === null) &&
    typeof item.rows === 'number'
      ? [
          {
            id: item.id,
            rows: item.rows,
            ...(item.request === true ? { request: true } : {})
          }
        ]
      : []
  );
}

function readContext(value: unknown): Context[] {
  return (Array.isArray(value) ? value : []).flatMap(item =>
    isObject(item) &&
    typeof item.description === 'string' &&
    typeof item.value === 'string'
      ? [{ description: item.description, value: item.value }]
      : []
  );
}

/**
 * The memory of a run that goes back to before message `messageId`: the
 * history cut there, with no interrupt open (docs/protocol.md §8.8). The
 * shared state is kept as it is: the client holds no earlier copy of it.
 * Null when the memory does not hold that message.
 */
export function memoryBefore(
  memory: JsonObject | null,
  messageId: string
): JsonObject | null {
  const messages =
    memory?.agui === MEMORY_VERSION && Array.isArray(memory.messages)
      ? memory.messages
      : [];
  const at = messages.findIndex(
    message => isObject(message) && message.id === messageId
  );
  if (!memory || at < 0) {
    return null;
  }
  return { ...memory, messages: messages.slice(0, at), interrupts: [] };
}

/**
 * Why an answer cannot be generated again over AG-UI: a server that keeps
 * the thread (ag-ui-langgraph) takes an unchanged message it already has as
 * a continuation, not as a request to answer it again; an edited one (same
 * id, new text) makes it go back.
 */
export const REGENERATE_PROBLEM = problem(
  'An AG-UI server that keeps the conversation answers an unchanged message as a continuation: edit the message to have it answered again.'
);

/** Why an AG-UI endpoint's conversations cannot go back, by what its runs carry. */
export function historyForkProblem(
  history: HistoryMode | undefined
): IProblem | null {
  return history === 'latest'
    ? problem(
        'This AG-UI endpoint sends the server only the latest messages (history: latest): the server keeps the conversation, so the panel cannot go back to an earlier message.'
      )
    : null;
}
