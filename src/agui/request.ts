/**
 * The `RunAgentInput` bodies the panel sends (docs/protocol.md §8.3, §8.10):
 * the thread's whole message list (or only the new messages, for a server
 * that keeps its own), the shared state and the context back, the offered
 * tools, `protocolVersion`, fresh run and message ids every time, and
 * resumes on both channels.
 */
import type {
  ContentPart,
  Context,
  PROTOCOL_VERSION,
  ResumeEntry,
  RunAgentInput,
  Tool
} from '@ag-ui/core';
import { UUID } from '@lumino/coreutils';
import type { IContextAttachment } from '../wire/turn';
import { type IProblem, problem } from '../wire/problem';
import type {
  ContextTextField,
  HistoryMode,
  IClientToolResult,
  IReviewAnswer,
  ITurnContext,
  TurnRequest
} from '../wire/turn';
import type { Decision } from '../wire/types';
import type { AguiThread, IOpenInterrupt } from './thread';

/** The AG-UI version the panel speaks (a compile error when the types move on). */
const PROTOCOL: typeof PROTOCOL_VERSION = '1.0';

/** How each workspace-context field is described to the agent. */
const CONTEXT_DESCRIPTIONS: Record<ContextTextField, string> = {
  current_directory: 'The current directory in JupyterLab',
  focused_widget: 'The JupyterLab document or panel the user is looking at',
  selected_text: 'The text the user has selected',
  selection_metadata: 'Where the selected text comes from'
};

/** How each kind of attachment is described to the agent, before its source. */
const ATTACHMENT_DESCRIPTIONS: Record<IContextAttachment['kind'], string> = {
  error: 'The error output of',
  output: 'The output of',
  image: 'An image output of',
  variables: 'Variables in the kernel of',
  file: 'The file',
  notebook: 'The cell sources of the notebook',
  cell: 'The source of'
};

/** A run's input, and a note for the user about it. */
export interface IRunInput {
  input: RunAgentInput;
  /** Why a resume left `resume[]` out although the interrupts are known. */
  note: IProblem | null;
}

/**
 * The input of a turn's run on `thread`, whose history it extends with what
 * the request adds (tool results, the user message): a chat message, a
 * resume answering the interrupts the thread remembers (else those the
 * request's reviews name), or the results of the client tools the agent
 * called.
 */
export function runInput(
  request: TurnRequest,
  thread: AguiThread,
  history: HistoryMode = 'full',
  offerTools = true,
  acceptsImages = false
): IRunInput {
  const tools = offerTools ? (request.tools ?? []) : [];
  thread.offeredTools = new Set(tools.map(tool => tool.name));
  const added = addToolResults(thread, request.toolResults ?? []);
  if (request.kind === 'chat') {
    const id = request.messageId ?? UUID.uuid4();
    thread.history.addUser(
      id,
      userContent(request.message, request.context, acceptsImages)
    );
    added.push(id);
    thread.context = contextEntries(request.context, acceptsImages);
  }
  const messages =
    history === 'full'
      ? thread.history.forAgent()
      : thread.history.forAgent().filter(message => added.includes(message.id));
  const input: RunAgentInput = {
    threadId: request.threadId,
    runId: UUID.uuid4(),
    protocolVersion: PROTOCOL,
    messages,
    tools: tools.map((tool): Tool => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters
    })),
    context: thread.context,
    // Other keys would be merged into the graph input (docs/protocol.md §8.3).
    forwardedProps: {},
    state: thread.state ?? {}
  };
  if (request.kind !== 'resume') {
    return { input, note: null };
  }
  const open = openInterrupts(thread.openInterrupts, request.reviews);
  const answer = resumeOf(request.decisions, open, request.reviews ?? []);
  if (answer.legacy !== undefined) {
    input.forwardedProps = { command: { resume: answer.legacy } };
  }
  if (answer.entries) {
    input.resume = answer.entries;
  }
  return { input, note: answer.note };
}

/**
 * The interrupts a resume answers: the thread's own memory when it has one,
 * else what the panel's review cards recorded (a conversation saved before
 * the panel kept the thread).
 */
export function openInterrupts(
  remembered: readonly IOpenInterrupt[],
  reviews: readonly IReviewAnswer[] = []
): readonly IOpenInterrupt[] {
  if (remembered.length > 0) {
    return remembered;
  }
  return reviews.map(review => ({
    id: review.interruptIds.length === 1 ? review.interruptIds[0] : null,
    rows: review.rows,
    ...(review.response ? { request: true } : {})
  }));
}

interface IResumeAnswer {
  /** The legacy channel's value (`forwardedProps.command.resume`), if any. */
  legacy?: unknown;
  entries: ResumeEntry[] | null;
  note: IProblem | null;
}

/**
 * Both resume channels. LangGraph reviews always go on the legacy channel
 * as `{"decisions": […]}` (every ag-ui-langgraph reads it); `resume[]` gets
 * one entry per open interrupt whenever every one has an id, a review with
 * the decisions of its own rows, a request with its answer (the 1.0
 * contract forbids answering only some of them).
 */
function resumeOf(
  decisions: Decision[],
  open: readonly IOpenInterrupt[],
  reviews: readonly IReviewAnswer[]
): IResumeAnswer {
  const responses = reviews.filter(review => review.response);
  const legacy =
    decisions.length > 0
      ? { decisions }
      : responses.length === 1 && open.every(interrupt => interrupt.id === null)
        ? legacyPayload(responses[0])
        : undefined;
  if (open.length === 0) {
    return { legacy, entries: null, note: null };
  }
  if (open.some(interrupt => interrupt.id === null)) {
    return {
      legacy,
      entries: null,
      note: problem(
        'the server did not reveal every interrupt id: resuming through forwardedProps only'
      )
    };
  }
  const rows = open
    .filter(interrupt => !interrupt.request)
    .reduce((sum, interrupt) => sum + interrupt.rows, 0);
  if (rows !== decisions.length) {
    return {
      legacy,
      entries: null,
      note: problem(
        '%1 decision(s) for %2 open review row(s): resuming through forwardedProps only',
        decisions.length,
        rows
      )
    };
  }
  let offset = 0;
  const entries: ResumeEntry[] = [];
  for (const interrupt of open) {
    const id = interrupt.id as string;
    const response = reviews.find(review =>
      review.interruptIds.includes(id)
    )?.response;
    if (interrupt.request) {
      // A request the panel did not answer has expired: it is open no more.
      if (response) {
        entries.push({ interruptId: id, ...response });
      }
      continue;
    }
    const own = decisions.slice(offset, offset + interrupt.rows);
    offset += interrupt.rows;
    entries.push({
      interruptId: id,
      status: 'resolved',
      payload: { decisions: own }
    });
  }
  return { legacy, entries, note: null };
}

/** What the legacy channel carries for a request answered without an id. */
function legacyPayload(review: IReviewAnswer): unknown {
  const response = review.response!;
  return response.status === 'resolved' ? response.payload : null;
}

/** The results of client tools, as `role: "tool"` messages; their ids. */
function addToolResults(
  thread: AguiThread,
  results: readonly IClientToolResult[]
): string[] {
  return results.map(result => {
    const id = UUID.uuid4();
    thread.history.addToolResult(
      id,
      result.callId,
      result.content,
      result.error ? result.content : null,
      undefined
    );
    return id;
  });
}

/**
 * The context entries of a chat message: the workspace fields, then one per
 * attachment labelled with its source; an image the agent gets as a content
 * part is left out here (docs/protocol.md §8.3).
 */
function contextEntries(
  context: ITurnContext | undefined,
  acceptsImages: boolean
): Context[] {
  const entries: Context[] = [];
  for (const key of Object.keys(CONTEXT_DESCRIPTIONS) as ContextTextField[]) {
    const value = context?.[key];
    if (value) {
      entries.push({ description: CONTEXT_DESCRIPTIONS[key], value });
    }
  }
  for (const attachment of context?.attachments ?? []) {
    if (!(acceptsImages && attachment.image)) {
      entries.push({
        description: `${ATTACHMENT_DESCRIPTIONS[attachment.kind]} ${attachment.source}`,
        value: attachment.text
      });
    }
  }
  return entries;
}

/**
 * The user message's content: its text, or, with images for an agent that
 * declares it takes them (`capabilities.multimodal.input.image`), the text
 * and one image part per image, as ag-ui-protocol 1.0 shapes them.
 */
function userContent(
  message: string,
  context: ITurnContext | undefined,
  acceptsImages: boolean
): string | ContentPart[] {
  const images = acceptsImages
    ? (context?.attachments ?? []).filter(attachment => attachment.image)
    : [];
  if (images.length === 0) {
    return message;
  }
  return [
    { type: 'text', text: message },
    ...images.map(({ image, source }): ContentPart => ({
      type: 'image',
      source: { type: 'data', value: image!.data, mimeType: image!.mimeType },
      metadata: { source }
    }))
  ];
}
