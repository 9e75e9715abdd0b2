/**
 * The `RunAgentInput` bodies the panel sends (docs/protocol.md §8.3, §8.10): fresh
 * run and user-message ids every time, `tools`, `context` and
 * `forwardedProps` always present, only the new user message (the server
 * keeps the history), and resumes on both channels.
 */
import { type IProblem, problem } from '../wire/problem';
import type { Context, ResumeEntry, RunAgentInput } from '@ag-ui/core';
import { UUID } from '@lumino/coreutils';
import type { ITurnContext, TurnRequest } from '../wire/turn';
import type { Decision } from '../wire/types';
import type { IOpenInterrupt } from './thread';

/** How each workspace-context field is described to the agent. */
const CONTEXT_DESCRIPTIONS: Record<keyof ITurnContext, string> = {
  current_directory: 'The current directory in JupyterLab',
  focused_widget: 'The JupyterLab document or panel the user is looking at',
  selected_text: 'The text the user has selected',
  selection_metadata: 'Where the selected text comes from'
};

/** A chat turn: the new user message only. */
export function chatInput(
  threadId: string,
  message: string,
  context?: ITurnContext
): RunAgentInput {
  return {
    threadId,
    runId: UUID.uuid4(),
    messages: [{ id: UUID.uuid4(), role: 'user', content: message }],
    tools: [],
    context: contextEntries(context),
    // Other keys would be merged into the graph input (docs/protocol.md §8.3): none.
    forwardedProps: {},
    state: {}
  };
}

/** A run's input, and a note for the user about it. */
export interface IRunInput {
  input: RunAgentInput;
  /** Why a resume left `resume[]` out although the interrupts are known. */
  note: IProblem | null;
}

/**
 * The input of a turn's run: a chat message, or a resume answering the
 * interrupts the thread remembers (else those the request's reviews name).
 */
export function runInput(
  request: TurnRequest,
  remembered: readonly IOpenInterrupt[]
): IRunInput {
  if (request.kind === 'chat') {
    return {
      input: chatInput(request.threadId, request.message, request.context),
      note: null
    };
  }
  return resumeInput(
    request.threadId,
    request.decisions,
    openInterrupts(remembered, request.reviews)
  );
}

/**
 * A resume: a new run on the same thread with no message. The legacy
 * channel (`forwardedProps.command.resume`) is always there; `resume[]` too
 * when every open interrupt has an id, each getting the decisions of its own
 * rows (the 1.0 contract forbids answering only some of them).
 */
export function resumeInput(
  threadId: string,
  decisions: Decision[],
  open: readonly IOpenInterrupt[]
): IRunInput {
  const envelope = { decisions };
  const input: RunAgentInput = {
    threadId,
    runId: UUID.uuid4(),
    messages: [],
    tools: [],
    context: [],
    forwardedProps: { command: { resume: envelope } },
    state: {}
  };
  const entries = resumeEntries(decisions, open);
  if (Array.isArray(entries)) {
    input.resume = entries;
  }
  return { input, note: Array.isArray(entries) ? null : entries };
}

/**
 * The interrupts a resume answers: the thread's own memory when it has one,
 * else what the panel's review cards recorded (the memory is gone after a
 * page reload; the cards are saved with the transcript).
 */
export function openInterrupts(
  remembered: readonly IOpenInterrupt[],
  reviews: readonly { interruptIds: string[]; rows: number }[] = []
): readonly IOpenInterrupt[] {
  if (remembered.length > 0) {
    return remembered;
  }
  return reviews.map(review => ({
    id: review.interruptIds.length === 1 ? review.interruptIds[0] : null,
    rows: review.rows
  }));
}

/** The `resume[]` entries, or why there are none. */
function resumeEntries(
  decisions: Decision[],
  open: readonly IOpenInterrupt[]
): ResumeEntry[] | IProblem | null {
  if (open.length === 0) {
    return null;
  }
  if (open.some(interrupt => interrupt.id === null)) {
    return problem(
      'the server did not reveal every interrupt id: resuming through forwardedProps only'
    );
  }
  const rows = open.reduce((sum, interrupt) => sum + interrupt.rows, 0);
  if (rows !== decisions.length) {
    return problem(
      '%1 decision(s) for %2 open review row(s): resuming through forwardedProps only',
      decisions.length,
      rows
    );
  }
  let offset = 0;
  return open.map(interrupt => {
    const own = decisions.slice(offset, offset + interrupt.rows);
    offset += interrupt.rows;
    return {
      interruptId: interrupt.id as string,
      status: 'resolved',
      payload: { decisions: own }
    };
  });
}

function contextEntries(context: ITurnContext | undefined): Context[] {
  const entries: Context[] = [];
  for (const key of Object.keys(
    CONTEXT_DESCRIPTIONS
  ) as (keyof ITurnContext)[]) {
    const value = context?.[key];
    if (value) {
      entries.push({ description: CONTEXT_DESCRIPTIONS[key], value });
    }
  }
  return entries;
}
