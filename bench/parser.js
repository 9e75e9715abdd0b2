'use strict';
/**
 * Parser throughput in Node: the panel's SSE reader + frame decoder + turn
 * reducer against eventsource-parser + JSON.parse alone, on the same bytes
 * delivered in 16 KiB reads.
 */
const { createParser } = require('eventsource-parser');

// The transport's default translator comes from @jupyterlab/translation, an
// ES module Node's `require` cannot load: the parser run gets English.
const translation = require.resolve('@jupyterlab/translation');
require.cache[translation] = {
  id: translation,
  filename: translation,
  loaded: true,
  exports: {
    nullTranslator: {
      load: () => ({
        __: (text, ...args) =>
          args.reduce((out, arg, i) => out.replace(`%${i + 1}`, arg), text)
      })
    }
  }
};

const { readSse } = require('./build/transport/http/sse');
const { decodeFrame } = require('./build/wire/frames');
const { TurnReducer } = require('./build/wire/reduce');
const {
  MIXED_CYCLE_FRAMES,
  endFrames,
  mixedTurn,
  sseEvent
} = require('./turns');

const FRAMES = 100000;
const READ_BYTES = 16 * 1024;

/** A `Response.body` look-alike that hands out `chunks` one read at a time. */
function byteStream(chunks) {
  return {
    getReader() {
      let next = 0;
      return {
        read: async () =>
          next < chunks.length
            ? { done: false, value: chunks[next++] }
            : { done: true }
      };
    }
  };
}

async function panelPipeline(chunks) {
  const reducer = new TurnReducer();
  let frames = 0;
  await readSse(byteStream(chunks), data => {
    const decoded = decodeFrame(data);
    if (!decoded.ok) {
      throw new Error(
        `the benchmark sent a frame the decoder refused: ${decoded.reason}`
      );
    }
    reducer.apply(decoded.frame);
    frames += 1;
  });
  return frames;
}

async function baselinePipeline(chunks) {
  let frames = 0;
  const parser = createParser({
    onEvent: event => {
      JSON.parse(event.data);
      frames += 1;
    }
  });
  const reader = byteStream(chunks).getReader();
  const decoder = new TextDecoder('utf-8');
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return frames;
}

/** Seconds `pipeline` takes over `chunks`, checking it saw every frame. */
async function timed(pipeline, chunks, frameCount) {
  const started = process.hrtime.bigint();
  const seen = await pipeline(chunks);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (seen !== frameCount) {
    throw new Error(
      `${pipeline.name} saw ${seen} frames, expected ${frameCount}`
    );
  }
  return seconds;
}

/** Rows of the parser table, each measured `runs` times (after one warm-up). */
async function parserBenchmark(runs) {
  const frames = [
    ...mixedTurn(FRAMES / MIXED_CYCLE_FRAMES),
    ...endFrames('END')
  ];
  const bytes = Buffer.from(frames.map(sseEvent).join(''), 'utf-8');
  const chunks = [];
  for (let offset = 0; offset < bytes.length; offset += READ_BYTES) {
    chunks.push(new Uint8Array(bytes.subarray(offset, offset + READ_BYTES)));
  }
  const seconds = { panel: [], baseline: [] };
  for (let run = 0; run <= runs; run++) {
    const panel = await timed(panelPipeline, chunks, frames.length);
    const baseline = await timed(baselinePipeline, chunks, frames.length);
    if (run > 0) {
      seconds.panel.push(panel);
      seconds.baseline.push(baseline);
    }
  }
  const rate = (list, amount) => list.map(s => amount / s);
  const scenario = `${frames.length.toLocaleString('en-US')} frames, ${(bytes.length / 1e6).toFixed(1)} MB`;
  return [
    {
      scenario,
      metric: 'frames/s',
      better: 'higher',
      measured: rate(seconds.panel, frames.length),
      reference: rate(seconds.baseline, frames.length)
    },
    {
      scenario,
      metric: 'MB/s',
      better: 'higher',
      measured: rate(seconds.panel, bytes.length / 1e6),
      reference: rate(seconds.baseline, bytes.length / 1e6)
    }
  ];
}

module.exports = { parserBenchmark };
