'use strict';
/**
 * The chunk-wire turns the benchmarks stream (docs/protocol.md §2.2, contract B):
 * deterministic prose deltas with some markdown, and a mixed turn of
 * reasoning, text, tool calls, results and extractions. A turn's frames stop
 * before its end: `endFrames` adds the last delta (carrying the end marker the
 * page waits for) and `complete`, per request.
 */

/** Every text turn's deltas, and the mixed turn's last text block, carry this id. */
const LAST_MESSAGE_ID = 'm-last';

const WORDS = [
  'the',
  'agent',
  'streams',
  'a',
  'long',
  'answer',
  'while',
  'you',
  'read',
  'it,',
  'token',
  'by',
  'token;',
  'each',
  'delta',
  'is',
  'short',
  'and',
  '**bold**',
  '`code`',
  'naïve',
  'café',
  '—',
  'résumé',
  'data',
  'frame'
];

/** Deterministic pseudo-random numbers in [0, 1) (a linear congruential generator). */
function randomSource(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/**
 * `count` deltas of markdown prose: a word per delta, a paragraph break
 * every 60 deltas and a short fenced code block every 1,000.
 */
function proseDeltas(count, random) {
  const deltas = [];
  while (deltas.length < count) {
    const index = deltas.length + 1;
    if (index % 1000 === 0 && count - index > 12) {
      deltas.push('\n\n```python\n');
      for (let line = 0; line < 8; line++) {
        deltas.push(`total = total + values[${line}]\n`);
      }
      deltas.push('```\n\n');
      continue;
    }
    const word = WORDS[Math.floor(random() * WORDS.length)];
    deltas.push(index % 60 === 0 ? `${word}.\n\n` : `${word} `);
  }
  return deltas;
}

function textFrame(chunk, messageId) {
  return { status: 'streaming', chunk, node: 'agent', message_id: messageId };
}

/** A turn of `deltas` text deltas in one text block (the end adds one more). */
function textTurn(deltas) {
  return proseDeltas(deltas - 1, randomSource(deltas)).map(chunk =>
    textFrame(chunk, LAST_MESSAGE_ID)
  );
}

/**
 * One text block of about `chars` characters in `deltas` deltas of prose
 * (each some hundreds of words, paragraph breaks inside): a very long answer.
 */
function longTextTurn(chars, deltas) {
  const words = proseDeltas(Math.ceil(chars / 5.45), randomSource(chars));
  const perDelta = Math.ceil(words.length / (deltas - 1));
  const frames = [];
  for (let at = 0; at < words.length; at += perDelta) {
    frames.push(
      textFrame(words.slice(at, at + perDelta).join(''), LAST_MESSAGE_ID)
    );
  }
  return frames;
}

/** Frames in one cycle of `mixedTurn`. */
const MIXED_CYCLE_FRAMES = 200;

/**
 * `cycles` × 200 frames: 16 reasoning deltas, 181 text deltas (a new message
 * each cycle), a tool call, its result (capped at 500 characters, as core
 * does) and an extraction, alternately a todo list and a generic tool_call.
 * The last cycle's text continues into the end frames.
 */
function mixedTurn(cycles) {
  const random = randomSource(cycles);
  const frames = [];
  for (let cycle = 1; cycle <= cycles; cycle++) {
    const id = `call_${cycle}`;
    for (const reasoning of proseDeltas(16, random)) {
      frames.push({ status: 'streaming', reasoning, node: 'agent' });
    }
    frames.push({
      status: 'streaming',
      tool_calls: [
        { name: 'search', args: { query: `topic ${cycle}`, limit: 5 }, id }
      ]
    });
    const result = `{"hits": [${'"a search hit with some text", '.repeat(20)}"last"]}`;
    frames.push({
      status: 'streaming',
      tool_result:
        result.length > 500 ? `${result.slice(0, 500)}…(truncated)` : result,
      id,
      name: 'search',
      tool_status: 'success',
      duration_ms: 12
    });
    frames.push({
      status: 'streaming',
      extraction:
        cycle % 2 === 0
          ? {
              tool_name: 'search',
              extracted_type: 'todos',
              data: [1, 2, 3].map(n => ({
                content: `step ${n} of ${cycle}`,
                status: 'pending'
              }))
            }
          : {
              tool_name: 'search',
              extracted_type: 'tool_call',
              data: { content: result.slice(0, 200) }
            }
    });
    const messageId = cycle === cycles ? LAST_MESSAGE_ID : `m-${cycle}`;
    for (const chunk of proseDeltas(181, random)) {
      frames.push(textFrame(chunk, messageId));
    }
  }
  return frames;
}

/** The last delta, a paragraph of its own holding `marker`, and `complete`. */
function endFrames(marker) {
  return [
    textFrame(`\n\n${marker}`, LAST_MESSAGE_ID),
    { status: 'complete', outcome: 'complete' }
  ];
}

/** One server-sent event per frame, as docs/protocol.md §6.4 writes them. */
function sseEvent(frame) {
  return `data: ${JSON.stringify(frame)}\n\n`;
}

/** Characters of answer and reasoning text in `frames`. */
function textLength(frames) {
  let length = 0;
  for (const frame of frames) {
    length += (frame.chunk ?? '').length + (frame.reasoning ?? '').length;
  }
  return length;
}

/** The turns the render benchmarks ask the stream server for, by name. */
const NAMED_TURNS = {
  'text-2000': () => textTurn(2000),
  'text-10000': () => textTurn(10000),
  'text-50000': () => textTurn(50000),
  mixed: () => mixedTurn(25),
  'text-2mb': () => longTextTurn(2e6, 2000),
  tiny: () => textTurn(4)
};

module.exports = {
  MIXED_CYCLE_FRAMES,
  NAMED_TURNS,
  endFrames,
  longTextTurn,
  mixedTurn,
  sseEvent,
  textLength,
  textTurn
};
