/**
 * Validation of saved conversation entries (see `persistence.ts`). Saved data
 * may come from an older build or be edited by hand: every field the views
 * rely on is checked, and the error names the first one that is wrong.
 */
import { ATTACHMENT_KINDS, type IContextAttachment } from '../../wire/turn';
import { isObject, type JsonObject } from '../../wire/json';
import type {
  ContextTextField,
  IClientToolResult,
  IReviewAnswer,
  ITurnContext,
  TurnRequest
} from '../../wire/turn';
import type { InterruptResponse } from '../../wire/types';
import {
  CANONICAL_VERBS,
  type Decision,
  type DecisionVerb,
  type IActionRequest,
  type IInterruptRequest,
  type ITurnState,
  type Outcome,
  type ToolStatus,
  type TranscriptItem
} from '../../wire/types';
import type {
  ChatEntry,
  ITurnEntry,
  IUserEntry
} from '../conversation/chat/chat-entries';
import type { IBranchLinks } from '../conversation/chat/branches';
import { readChangeLog } from '../conversation/chat/change-log';

const OUTCOMES: readonly Outcome[] = [
  'complete',
  'interrupted',
  'error',
  'cancelled'
];
const TOOL_STATUSES: readonly ToolStatus[] = [
  'pending',
  'success',
  'error',
  'unknown'
];

export function readEntry(raw: unknown): ChatEntry {
  const entry = object(raw, 'the entry');
  if (entry.kind === 'user') {
    const user: IUserEntry = {
      kind: 'user',
      key: string(entry.key, 'key'),
      text: string(entry.text, 'text'),
      context: nullable(entry.context, v => readContext(v, 'context')),
      time: number(entry.time, 'time'),
      ...readBranchLinks(entry)
    };
    return user;
  }
  if (entry.kind === 'turn') {
    const turn: ITurnEntry = {
      kind: 'turn',
      key: string(entry.key, 'key'),
      request: nullable(entry.request, readRequest),
      state: readState(entry.state),
      startedAt: number(entry.startedAt, 'startedAt'),
      endedAt: nullable(entry.endedAt, v => number(v, 'endedAt')),
      interruptedByReload: entry.interruptedByReload === true,
      ...readBranchLinks(entry),
      ...(entry.branchMemory !== undefined
        ? {
            branchMemory: nullable(entry.branchMemory, v =>
              object(v, 'branchMemory')
            )
          }
        : {}),
      ...readChangeLog(entry.notebookChanges)
    };
    return turn;
  }
  throw new Error(`unknown entry kind ${JSON.stringify(entry.kind)}`);
}

/** Where an entry stands among the branches (docs/protocol.md §13.8), when saved with it. */
function readBranchLinks(
  entry: JsonObject
): Pick<IBranchLinks, 'parent' | 'chosen'> {
  const links: Pick<IBranchLinks, 'parent' | 'chosen'> = {};
  if (entry.parent !== undefined) {
    links.parent = nullable(entry.parent, v => string(v, 'parent'));
  }
  if (entry.chosen !== undefined) {
    links.chosen = number(entry.chosen, 'chosen');
  }
  return links;
}

function readRequest(raw: unknown): TurnRequest {
  const request = object(raw, 'request');
  const threadId = string(request.threadId, 'request.threadId');
  if (request.kind === 'chat') {
    return {
      kind: 'chat',
      threadId,
      message: string(request.message, 'request.message'),
      ...(request.messageId !== undefined
        ? { messageId: string(request.messageId, 'request.messageId') }
        : {}),
      context:
        nullable(request.context, v => readContext(v, 'request.context')) ??
        undefined
    };
  }
  if (request.kind === 'resume') {
    return {
      kind: 'resume',
      threadId,
      decisions: array(request.decisions, 'request.decisions').map(
        (decision, index) =>
          readDecision(decision, `request.decisions[${index}]`)
      ),
      reviews: array(request.reviews ?? [], 'request.reviews').map(
        (review, index) => readReview(review, `request.reviews[${index}]`)
      )
    };
  }
  if (request.kind === 'tool_results') {
    return {
      kind: 'tool_results',
      threadId,
      toolResults: array(request.toolResults, 'request.toolResults').map(
        (result, index) =>
          readToolResult(result, `request.toolResults[${index}]`)
      )
    };
  }
  throw new Error(`unknown request kind ${JSON.stringify(request.kind)}`);
}

function readReview(raw: unknown, where: string): IReviewAnswer {
  const read = object(raw, where);
  const review: IReviewAnswer = {
    interruptIds: array(read.interruptIds, `${where}.interruptIds`).map(
      (id, i) => string(id, `${where}.interruptIds[${i}]`)
    ),
    rows: number(read.rows, `${where}.rows`)
  };
  if (read.response !== undefined) {
    review.response = readResponse(read.response, `${where}.response`);
  }
  return review;
}

function readResponse(raw: unknown, where: string): InterruptResponse {
  const response = object(raw, where);
  if (response.status === 'cancelled') {
    return { status: 'cancelled' };
  }
  if (response.status === 'resolved') {
    return { status: 'resolved', payload: response.payload };
  }
  throw new Error(
    `${where}.status is ${JSON.stringify(response.status)}, not resolved or cancelled`
  );
}

function readToolResult(raw: unknown, where: string): IClientToolResult {
  const result = object(raw, where);
  return {
    callId: string(result.callId, `${where}.callId`),
    name: string(result.name, `${where}.name`),
    content: string(result.content, `${where}.content`),
    error: result.error === true
  };
}

const CONTEXT_FIELDS: readonly ContextTextField[] = [
  'current_directory',
  'focused_widget',
  'selected_text',
  'selection_metadata'
];

export function readContext(raw: unknown, where: string): ITurnContext {
  const context = object(raw, where);
  const read: ITurnContext = {};
  for (const field of CONTEXT_FIELDS) {
    if (context[field] !== undefined) {
      read[field] = string(context[field], `${where}.${field}`);
    }
  }
  if (context.attachments !== undefined) {
    read.attachments = readAttachments(context.attachments, where);
  }
  return read;
}

/** Saved attachments (without image bytes: they are not kept). */
function readAttachments(raw: unknown, where: string): IContextAttachment[] {
  return array(raw, `${where}.attachments`).map((item, i) => {
    const at = `${where}.attachments[${i}]`;
    const attachment = object(item, at);
    return {
      kind: oneOf(attachment.kind, ATTACHMENT_KINDS, `${at}.kind`),
      source: string(attachment.source, `${at}.source`),
      text: string(attachment.text, `${at}.text`)
    };
  });
}

function readState(raw: unknown): ITurnState {
  const state = object(raw, 'state');
  const outcome = nullable(state.outcome, v => oneOf(v, OUTCOMES, 'outcome'));
  const error = nullable(state.error, v => {
    const e = object(v, 'state.error');
    return {
      message: string(e.message, 'state.error.message'),
      traceback: nullable(e.traceback, t => string(t, 'state.error.traceback'))
    };
  });
  return {
    // Keys this reader does not know (e.g. AG-UI activities) are kept as saved.
    ...state,
    items: array(state.items, 'state.items').map((item, index) =>
      readItem(item, `state.items[${index}]`)
    ),
    outcome,
    error,
    cancelMessage: nullable(state.cancelMessage, v =>
      string(v, 'state.cancelMessage')
    ),
    diagnostics: array(state.diagnostics ?? [], 'state.diagnostics').map(
      (d, i) => string(d, `state.diagnostics[${i}]`)
    ),
    startCheckpoint:
      state.startCheckpoint === undefined
        ? undefined
        : nullable(state.startCheckpoint, v =>
            string(v, 'state.startCheckpoint')
          ),
    endCheckpoint:
      state.endCheckpoint === undefined
        ? undefined
        : string(state.endCheckpoint, 'state.endCheckpoint')
  };
}

function readItem(raw: unknown, where: string): TranscriptItem {
  const item = object(raw, where);
  return { ...item, ...readKnownItem(item, where) } as TranscriptItem;
}

/** The fields the views rely on, checked; other saved keys are kept as is. */
function readKnownItem(item: JsonObject, where: string): TranscriptItem {
  const key = number(item.key, `${where}.key`);
  switch (item.kind) {
    case 'text':
      return {
        kind: 'text',
        key,
        text: string(item.text, `${where}.text`),
        node: optionalString(item.node, `${where}.node`),
        messageId: optionalString(item.messageId, `${where}.messageId`)
      };
    case 'reasoning':
      return {
        kind: 'reasoning',
        key,
        text: string(item.text, `${where}.text`),
        node: optionalString(item.node, `${where}.node`)
      };
    case 'tool':
      return readToolItem(item, key, where);
    case 'extraction':
      return {
        kind: 'extraction',
        key,
        toolName: string(item.toolName, `${where}.toolName`),
        extractedType: string(item.extractedType, `${where}.extractedType`),
        data: item.data,
        toolKey: nullable(item.toolKey, v => number(v, `${where}.toolKey`))
      };
    case 'interrupt':
      return readInterruptItem(item, key, where);
    default:
      throw new Error(
        `${where}: unknown item kind ${JSON.stringify(item.kind)}`
      );
  }
}

/** A tool call: its arguments, status and result. */
function readToolItem(
  item: JsonObject,
  key: number,
  where: string
): TranscriptItem {
  return {
    kind: 'tool',
    key,
    callId: optionalString(item.callId, `${where}.callId`),
    name: string(item.name, `${where}.name`),
    ...(typeof item.title === 'string' ? { title: item.title } : {}),
    args: item.args,
    rawArgs: optionalString(item.rawArgs, `${where}.rawArgs`),
    status: oneOf(item.status, TOOL_STATUSES, `${where}.status`),
    result: item.result,
    truncated: item.truncated === true,
    durationMs: nullable(item.durationMs, v =>
      number(v, `${where}.durationMs`)
    ),
    orphan: item.orphan === true,
    ...(isObject(item.clientTool)
      ? { clientTool: { delivered: item.clientTool.delivered === true } }
      : {})
  };
}

/** A review: its actions, the verbs allowed and the answer given. */
function readInterruptItem(
  item: JsonObject,
  key: number,
  where: string
): TranscriptItem {
  return {
    kind: 'interrupt',
    key,
    actions: array(item.actions, `${where}.actions`).map((a, i) =>
      readAction(a, `${where}.actions[${i}]`)
    ),
    allowedDecisions: verbs(item.allowedDecisions, `${where}.allowedDecisions`),
    interruptIds: array(item.interruptIds ?? [], `${where}.interruptIds`).map(
      (id, i) => string(id, `${where}.interruptIds[${i}]`)
    ),
    answered: nullable(item.answered, v =>
      array(v, `${where}.answered`).map((d, i) =>
        readDecision(d, `${where}.answered[${i}]`)
      )
    ),
    ...(item.request === undefined
      ? {}
      : {
          request: readInterruptRequest(item.request, `${where}.request`)
        }),
    ...(item.response === undefined
      ? {}
      : { response: readResponse(item.response, `${where}.response`) })
  };
}

function readInterruptRequest(raw: unknown, where: string): IInterruptRequest {
  const request = object(raw, where);
  return {
    reason: string(request.reason, `${where}.reason`),
    message: optionalString(request.message, `${where}.message`),
    responseSchema: request.responseSchema ?? null,
    expiresAt: optionalString(request.expiresAt, `${where}.expiresAt`),
    toolCallId: optionalString(request.toolCallId, `${where}.toolCallId`)
  };
}

function readAction(raw: unknown, where: string): IActionRequest {
  const action = object(raw, where);
  return {
    name: optionalString(action.name, `${where}.name`),
    description: optionalString(action.description, `${where}.description`),
    args: action.args,
    allowed: verbs(action.allowed, `${where}.allowed`),
    argsSchema: action.argsSchema ?? null,
    synthetic: action.synthetic === true,
    raw: action.raw ?? null
  };
}

function readDecision(raw: unknown, where: string): Decision {
  const decision = object(raw, where);
  switch (decision.type) {
    case 'approve':
      return { type: 'approve' };
    case 'edit': {
      const edited = object(decision.edited_action, `${where}.edited_action`);
      return {
        type: 'edit',
        edited_action: {
          name: string(edited.name, `${where}.edited_action.name`),
          args: edited.args
        }
      };
    }
    case 'reject':
      return decision.message === undefined
        ? { type: 'reject' }
        : {
            type: 'reject',
            message: string(decision.message, `${where}.message`)
          };
    case 'respond':
      return {
        type: 'respond',
        message: string(decision.message, `${where}.message`)
      };
    default:
      throw new Error(
        `${where}: unknown decision type ${JSON.stringify(decision.type)}`
      );
  }
}

function verbs(raw: unknown, where: string): DecisionVerb[] {
  return array(raw, where).map((verb, i) =>
    oneOf(verb, CANONICAL_VERBS, `${where}[${i}]`)
  );
}

function object(value: unknown, where: string): JsonObject {
  if (!isObject(value)) {
    throw new Error(`${where} is not an object`);
  }
  return value;
}

function array(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) {
    throw new Error(`${where} is not a list`);
  }
  return value;
}

function string(value: unknown, where: string): string {
  if (typeof value !== 'string') {
    throw new Error(`${where} is not a string`);
  }
  return value;
}

function number(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`${where} is not a number`);
  }
  return value;
}

function optionalString(value: unknown, where: string): string | null {
  return nullable(value, v => string(v, where));
}

function nullable<T>(value: unknown, read: (value: unknown) => T): T | null {
  return value === null || value === undefined ? null : read(value);
}

function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  where: string
): T {
  if (!allowed.includes(value as T)) {
    throw new Error(
      `${where} is ${JSON.stringify(value)}, not one of ${allowed.join(', ')}`
    );
  }
  return value as T;
}
