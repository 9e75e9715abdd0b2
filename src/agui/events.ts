/**
 * AG-UI events as the adapter reads them (docs/protocol.md §8.4).
 *
 * `@ag-ui/core` supplies the vocabulary as types only, so nothing of it
 * reaches the bundle. Events are parsed at the edge into loose objects with a
 * string `type`; each handler reads the fields it needs through the typed
 * readers below and treats anything else as missing.
 */
import { failure, type IFailure } from '../wire/problem';
import type { ContentPart, EventType } from '@ag-ui/core';
import { isObject, type JsonObject } from '../wire/json';

/** Every AG-UI 1.0 event type name, as the string the wire carries. */
export type AguiEventType = `${EventType}`;

/** 0.x names some producers still send (removed from 1.0). */
export type LegacyEventType =
  | 'THINKING_START'
  | 'THINKING_END'
  | 'THINKING_TEXT_MESSAGE_START'
  | 'THINKING_TEXT_MESSAGE_CONTENT'
  | 'THINKING_TEXT_MESSAGE_END';

/** A parsed event: an object with a string `type`, fields unchecked. */
export interface IAguiEvent {
  type: string;
  [field: string]: unknown;
}

export type ParsedEvent = { ok: true; event: IAguiEvent } | IFailure;

const EXCERPT_LENGTH = 80;

/** Parse one SSE `data` (or a websocket payload) into an event. */
export function parseEvent(input: string | unknown): ParsedEvent {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      const excerpt =
        input.length > EXCERPT_LENGTH
          ? `${input.slice(0, EXCERPT_LENGTH)}…`
          : input;
      return failure('event is not valid JSON: %1', excerpt);
    }
  }
  if (!isObject(value) || typeof value.type !== 'string') {
    return failure('event is not a JSON object with a string "type"');
  }
  return { ok: true, event: value as IAguiEvent };
}

/** `event[key]` when it is a string, else null. */
export function stringField(event: object, key: string): string | null {
  const value = (event as JsonObject)[key];
  return typeof value === 'string' ? value : null;
}

/**
 * The text of a message or result `content`: a string, or the text parts of
 * a 1.0 content-part list joined (what `contentToText` does); anything else
 * as JSON so nothing silently disappears.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') {
    return content;
  }
  if (content === undefined || content === null) {
    return '';
  }
  if (Array.isArray(content) && content.every(isContentPart)) {
    return content
      .filter(part => part.type === 'text')
      .map(part => (part as { text: string }).text)
      .join('');
  }
  return JSON.stringify(content);
}

function isContentPart(value: unknown): value is ContentPart {
  return (
    isObject(value) &&
    typeof value.type === 'string' &&
    (value.type !== 'text' || typeof value.text === 'string')
  );
}
