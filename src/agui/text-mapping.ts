/**
 * The text and reasoning messages of one run: their start, content and end
 * events checked for order, the assistant's text kept in the thread's
 * history and both streamed as chunk-wire frames.
 */
import { streamingFrame } from '../wire/frame-builders';
import { stringField, type IAguiEvent } from './events';
import { type EventHandlers, type RunContext, subagentOf } from './run-context';

interface IOpenText {
  /** A non-assistant role: its content is not part of the answer. */
  muted: boolean;
}

export class TextMapping {
  constructor(private readonly _run: RunContext) {}

  readonly handlers: EventHandlers = {
    TEXT_MESSAGE_START: event => this._textStart(event),
    TEXT_MESSAGE_CONTENT: event => this._textContent(event),
    TEXT_MESSAGE_END: event => this._textEnd(event),
    REASONING_MESSAGE_START: event => this._reasoningStart(event),
    REASONING_MESSAGE_CONTENT: event => this._reasoningContent(event),
    REASONING_MESSAGE_END: event => this._reasoningEnd(event),
    THINKING_TEXT_MESSAGE_CONTENT: event => this._emitReasoning(event)
  };

  /** The messages still open, described for the run's end diagnostic. */
  stillOpen(): string[] {
    const open: string[] = [];
    if (this._openText.size > 0) {
      open.push(`text message(s) ${[...this._openText.keys()].join(', ')}`);
    }
    if (this._openReasoning.size > 0) {
      open.push(`reasoning message(s) ${[...this._openReasoning].join(', ')}`);
    }
    return open;
  }

  private _textStart(event: IAguiEvent): void {
    const id = this._run.requireId(event, 'messageId');
    if (id === null) {
      return;
    }
    if (this._openText.has(id)) {
      this._run.problem('duplicate TEXT_MESSAGE_START for message %1', id);
    }
    const role = stringField(event, 'role');
    const muted = role !== null && role !== 'assistant';
    // A message id may be reopened after its end (quirk 1): allowed.
    this._openText.set(id, { muted });
    if (!muted) {
      this._run.thread.history.startText(id, subagentOf(event));
    }
  }

  private _textContent(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    const open = id === null ? undefined : this._openText.get(id);
    if (!open) {
      this._run.problem(
        'TEXT_MESSAGE_CONTENT for message %1 with no open TEXT_MESSAGE_START',
        id
      );
    } else if (open.muted) {
      return;
    }
    const delta = stringField(event, 'delta');
    if (!delta) {
      return;
    }
    const thread = this._run.thread;
    if (id !== null) {
      thread.deliveredMessages.add(id);
      thread.history.appendText(id, delta, subagentOf(event));
    }
    this._run.emit(
      streamingFrame({ chunk: delta, node: this._run.node, message_id: id }),
      event.subagentRunId
    );
  }

  private _textEnd(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    if (id === null || !this._openText.delete(id)) {
      this._run.problem(
        'TEXT_MESSAGE_END for message %1, which is not open',
        id
      );
    }
  }

  private _reasoningStart(event: IAguiEvent): void {
    const id = this._run.requireId(event, 'messageId');
    if (id === null) {
      return;
    }
    if (this._openReasoning.has(id)) {
      this._run.problem('duplicate REASONING_MESSAGE_START for message %1', id);
    }
    this._openReasoning.add(id);
  }

  private _reasoningContent(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    if (id === null || !this._openReasoning.has(id)) {
      this._run.problem(
        'REASONING_MESSAGE_CONTENT for message %1 with no open REASONING_MESSAGE_START',
        id
      );
    }
    this._emitReasoning(event);
  }

  private _reasoningEnd(event: IAguiEvent): void {
    const id = stringField(event, 'messageId');
    if (id === null || !this._openReasoning.delete(id)) {
      this._run.problem(
        'REASONING_MESSAGE_END for message %1, which is not open',
        id
      );
    }
  }

  private _emitReasoning(event: IAguiEvent): void {
    const delta = stringField(event, 'delta');
    if (delta) {
      this._run.emit(
        streamingFrame({ reasoning: delta, node: this._run.node }),
        event.subagentRunId
      );
    }
  }

  private readonly _openText = new Map<string, IOpenText>();
  private readonly _openReasoning = new Set<string>();
}
