/**
 * `*_CHUNK` events turned into start / content / end (docs/protocol.md §8.4).
 *
 * A chunk carries its id only on the first of a sequence; a chunk without an
 * id continues the open sequence, one with another id closes it and opens a
 * new one. Any other event (except the `RAW` noise that the LangGraph
 * adapter interleaves everywhere) ends the open sequences, so the mapper
 * after this only ever sees the explicit events.
 */
import { type IProblem, problem } from '../wire/problem';
import { stringField, type IAguiEvent } from './events';

interface IOpenSequence {
  id: string;
  /** The end event's type, e.g. `TEXT_MESSAGE_END`. */
  endType: string;
  /** The key the id travels under. */
  idKey: 'messageId' | 'toolCallId';
  subagentRunId: unknown;
}

/** The three chunk kinds: their start, content and end event names. */
const CHUNK_KINDS: Record<
  string,
  {
    start: string;
    content: string;
    end: string;
    idKey: IOpenSequence['idKey'];
  }
> = {
  TEXT_MESSAGE_CHUNK: {
    start: 'TEXT_MESSAGE_START',
    content: 'TEXT_MESSAGE_CONTENT',
    end: 'TEXT_MESSAGE_END',
    idKey: 'messageId'
  },
  REASONING_MESSAGE_CHUNK: {
    start: 'REASONING_MESSAGE_START',
    content: 'REASONING_MESSAGE_CONTENT',
    end: 'REASONING_MESSAGE_END',
    idKey: 'messageId'
  },
  TOOL_CALL_CHUNK: {
    start: 'TOOL_CALL_START',
    content: 'TOOL_CALL_ARGS',
    end: 'TOOL_CALL_END',
    idKey: 'toolCallId'
  }
};

export class ChunkNormaliser {
  /**
   * The explicit events `event` stands for, in order. `onProblem` hears
   * about a chunk that cannot be placed (no id and nothing open).
   */
  normalise(
    event: IAguiEvent,
    onProblem: (found: IProblem) => void
  ): IAguiEvent[] {
    const kind = CHUNK_KINDS[event.type];
    if (!kind) {
      return event.type === 'RAW' ? [event] : [...this._closeAll(), event];
    }
    const out: IAguiEvent[] = [];
    const id = stringField(event, kind.idKey);
    let open = this._open.get(event.type);
    if (id !== null && open?.id !== id) {
      out.push(...this._closeAll());
      out.push(startEvent(event, kind.start, kind.idKey, id));
      open = {
        id,
        endType: kind.end,
        idKey: kind.idKey,
        subagentRunId: event.subagentRunId
      };
      this._open.set(event.type, open);
    } else {
      // Another kind's sequence ends where this one continues.
      out.push(...this._closeAll(event.type));
    }
    if (!open) {
      onProblem(
        problem('%1 without an id and no open sequence: dropped', event.type)
      );
      return out;
    }
    const delta = stringField(event, 'delta');
    if (delta !== null) {
      out.push(
        withSubagent(
          { type: kind.content, [kind.idKey]: open.id, delta },
          event.subagentRunId
        )
      );
    }
    return out;
  }

  /** End events for the open sequences, except the one of `keep`. */
  private _closeAll(keep?: string): IAguiEvent[] {
    const ends: IAguiEvent[] = [];
    for (const [chunkType, open] of this._open) {
      if (chunkType === keep) {
        continue;
      }
      ends.push(
        withSubagent(
          { type: open.endType, [open.idKey]: open.id },
          open.subagentRunId
        )
      );
      this._open.delete(chunkType);
    }
    return ends;
  }

  private readonly _open = new Map<string, IOpenSequence>();
}

function startEvent(
  chunk: IAguiEvent,
  type: string,
  idKey: IOpenSequence['idKey'],
  id: string
): IAguiEvent {
  const start: IAguiEvent = { type, [idKey]: id };
  for (const key of ['role', 'name', 'toolCallName', 'parentMessageId']) {
    if (chunk[key] !== undefined) {
      start[key] = chunk[key];
    }
  }
  return withSubagent(start, chunk.subagentRunId);
}

function withSubagent(event: IAguiEvent, subagentRunId: unknown): IAguiEvent {
  return subagentRunId === undefined ? event : { ...event, subagentRunId };
}
