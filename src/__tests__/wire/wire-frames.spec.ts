import { decodeFrame } from '../../wire/frames';
import { type WireFrame } from '../../wire/frame-types';

function decoded(input: unknown): WireFrame {
  const result = decodeFrame(input);
  if (!result.ok) {
    throw new Error(`expected a frame, got: ${result.reason}`);
  }
  return result.frame;
}

function refused(input: unknown): string {
  const result = decodeFrame(input);
  if (result.ok) {
    throw new Error(`expected a refusal, got ${JSON.stringify(result.frame)}`);
  }
  return result.reason;
}

describe('decodeFrame: what cannot be read', () => {
  it('names the problem and shows the start of invalid JSON', () => {
    expect(refused('{"status": "stre')).toBe(
      'invalid JSON at position 16: {"status": "stre'
    );
    expect(refused('{"a":1,}')).toBe('invalid JSON at position 7: {"a":1,}');
    expect(refused('')).toBe('invalid JSON at position 0 (cut short): ');
    expect(refused('{"status":x}')).toBe(
      'invalid JSON (Unexpected token \'x\'): {"status":x}'
    );
  });

  it('cuts the excerpt of long invalid text at 80 characters', () => {
    const text = `{"chunk": "${'y'.repeat(200)}`;
    expect(refused(text)).toBe(
      `invalid JSON at position ${text.length}: ${text.slice(0, 80)}…`
    );
  });

  it.each([
    ['[1, 2]', 'an array'],
    ['"text"', 'a string'],
    ['null', 'null'],
    ['42', 'a number']
  ])('refuses the non-object %s', (text, kind) => {
    expect(refused(text)).toBe(`frame is not a JSON object (got ${kind})`);
  });

  it('refuses an already-parsed non-object', () => {
    expect(refused(7)).toBe('frame is not a JSON object (got a number)');
  });

  it('refuses an object with no string status or type, naming its keys', () => {
    expect(refused('{"chunk": "x", "node": "a"}')).toBe(
      'frame has no string "status" or "type" (keys: chunk, node)'
    );
    expect(refused({ status: 3 })).toBe(
      'frame has no string "status" or "type" (keys: status)'
    );
  });
});

describe('decodeFrame: chunk wire', () => {
  it('reads a contract-B chunk, and the same text with \\u escapes', () => {
    const frame = decoded(
      '{"status":"streaming","chunk":"— ","node":"agent","message_id":"m-1"}'
    );
    expect(frame).toEqual({
      status: 'streaming',
      chunk: '— ',
      node: 'agent',
      message_id: 'm-1',
      reasoning: null,
      tool_calls: null,
      tool_result: null,
      extraction: null,
      problems: []
    });
    expect(
      decoded(
        '{"status": "streaming", "chunk": "\\u2014 ", "node": "agent", "message_id": "m-1"}'
      )
    ).toEqual(frame);
  });

  it('treats null as missing and does not require B keys', () => {
    expect(
      decoded({ status: 'streaming', chunk: 'x', node: null, message_id: null })
    ).toMatchObject({ chunk: 'x', node: null, message_id: null });
    expect(decoded({ status: 'complete', outcome: null })).toEqual({
      status: 'complete',
      outcome: null
    });
    expect(
      decoded({ status: 'streaming', tool_result: 'r', id: null })
    ).toMatchObject({
      tool_result: {
        content: 'r',
        id: null,
        name: null,
        tool_status: null,
        duration_ms: null
      }
    });
  });

  it('keeps every payload key of a frame that carries several', () => {
    const frame = decoded({
      status: 'streaming',
      chunk: 'a',
      reasoning: 'b',
      tool_calls: [{ name: 'f', args: { x: 1 }, id: 'c1' }],
      tool_result: 'r',
      id: 'c1',
      extraction: { tool_name: 'f', extracted_type: 't', data: 1 }
    });
    expect(frame).toMatchObject({
      chunk: 'a',
      reasoning: 'b',
      tool_calls: [{ name: 'f', args: { x: 1 }, id: 'c1' }],
      tool_result: { content: 'r', id: 'c1' },
      extraction: { tool_name: 'f', extracted_type: 't', data: 1 }
    });
  });

  it('ignores unknown statuses and payload-less streaming frames', () => {
    expect(decoded({ status: 'heartbeat' })).toEqual({
      status: 'ignored',
      reason: 'unknown status "heartbeat"'
    });
    expect(decoded({ status: 'streaming', todo_list: [], usage: {} })).toEqual({
      status: 'ignored',
      reason: 'streaming frame with no known payload (keys: todo_list, usage)'
    });
  });

  it('drops a malformed payload and says why, keeping the valid ones', () => {
    expect(
      decoded({ status: 'streaming', chunk: 5, reasoning: 'r' })
    ).toMatchObject({
      chunk: null,
      reasoning: 'r',
      problems: ['"chunk" is a number, expected a string']
    });
    expect(
      decoded({ status: 'streaming', tool_calls: ['x'], extraction: [1] })
    ).toMatchObject({
      tool_calls: null,
      extraction: null,
      problems: [
        'a "tool_calls" element is a string, expected an object',
        '"extraction" is an array, expected an object'
      ]
    });
  });

  it('gives a tool call with no arguments empty args', () => {
    expect(
      decoded({ status: 'streaming', tool_calls: [{ name: 'f' }] })
    ).toMatchObject({ tool_calls: [{ name: 'f', args: {}, id: null }] });
  });

  it('reads an interrupt, nested or not, with a missing verb list as null', () => {
    expect(
      decoded({
        status: 'interrupt',
        interrupt: { action_requests: ['x'], review_configs: [] }
      })
    ).toEqual({
      status: 'interrupt',
      interrupt: {
        action_requests: ['x'],
        review_configs: [],
        allowed_decisions: null
      }
    });
    expect(
      decoded({ status: 'interrupt', allowed_decisions: ['approve', 3] })
    ).toEqual({
      status: 'interrupt',
      interrupt: {
        action_requests: [],
        review_configs: [],
        allowed_decisions: ['approve']
      }
    });
  });

  it('reads error, cancelled and complete frames', () => {
    expect(
      decoded({ status: 'error', error: 'E: x', traceback: 'tb' })
    ).toEqual({ status: 'error', error: 'E: x', traceback: 'tb' });
    expect(decoded({ status: 'error' })).toEqual({
      status: 'error',
      error: 'unknown error',
      traceback: null
    });
    expect(decoded({ status: 'cancelled', message: 'stop' })).toEqual({
      status: 'cancelled',
      message: 'stop'
    });
    expect(decoded({ status: 'complete', outcome: 'paused' })).toEqual({
      status: 'complete',
      outcome: null
    });
  });
});

describe('decodeFrame: event wire (docs/protocol.md §2.8) decodes like its chunk-wire twin', () => {
  it.each([
    [
      'content',
      {
        type: 'content',
        content: 'hi',
        role: 'assistant',
        node: 'agent',
        message_id: 'm1'
      },
      { status: 'streaming', chunk: 'hi', node: 'agent', message_id: 'm1' }
    ],
    [
      'reasoning',
      { type: 'reasoning', content: 'why', node: 'agent' },
      { status: 'streaming', reasoning: 'why', node: 'agent' }
    ],
    [
      'tool_start',
      { type: 'tool_start', id: 'c1', name: 'f', args: { a: 1 }, node: 'x' },
      {
        status: 'streaming',
        tool_calls: [{ name: 'f', args: { a: 1 }, id: 'c1' }]
      }
    ],
    [
      'tool_end',
      {
        type: 'tool_end',
        id: 'c1',
        name: 'f',
        result: 'boom',
        status: 'error',
        error_message: 'boom',
        duration_ms: 4
      },
      {
        status: 'streaming',
        tool_result: 'boom',
        id: 'c1',
        name: 'f',
        tool_status: 'error',
        duration_ms: 4
      }
    ],
    [
      'extraction',
      { type: 'extraction', tool_name: 'f', extracted_type: 't', data: [1] },
      {
        status: 'streaming',
        extraction: { tool_name: 'f', extracted_type: 't', data: [1] }
      }
    ],
    [
      'interrupt',
      {
        type: 'interrupt',
        action_requests: [{ action: 'ask' }],
        review_configs: [],
        allowed_decisions: ['respond']
      },
      {
        status: 'interrupt',
        interrupt: {
          action_requests: [{ action: 'ask' }],
          review_configs: [],
          allowed_decisions: ['respond']
        }
      }
    ],
    [
      'complete',
      { type: 'complete', outcome: 'interrupted' },
      { status: 'complete', outcome: 'interrupted' }
    ],
    [
      'error',
      { type: 'error', error: 'E: x', traceback: 'tb' },
      { status: 'error', error: 'E: x', traceback: 'tb' }
    ],
    ['cancelled', { type: 'cancelled' }, { status: 'cancelled' }]
  ])('%s', (_type, eventFrame, chunkFrame) => {
    expect(decoded(eventFrame)).toEqual(decoded(chunkFrame));
  });

  it('reads a failed tool_end as a tool result, never as an error frame', () => {
    expect(
      decoded({ type: 'tool_end', id: 'c1', result: 'x', status: 'error' })
    ).toMatchObject({
      status: 'streaming',
      tool_result: { tool_status: 'error' }
    });
  });

  it('uses error_message when a tool_end has no result', () => {
    expect(
      decoded({ type: 'tool_end', status: 'error', error_message: 'why' })
    ).toMatchObject({ tool_result: { content: 'why' } });
  });

  it('ignores unknown event types and non-assistant content', () => {
    expect(decoded({ type: 'session_init', session_id: 's' })).toEqual({
      status: 'ignored',
      reason: 'unknown event type "session_init"'
    });
    expect(decoded({ type: 'content', content: 'x', role: 'user' })).toEqual({
      status: 'ignored',
      reason: 'content frame with role "user"'
    });
  });
});
