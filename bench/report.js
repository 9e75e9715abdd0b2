'use strict';
/** bench/results.md: the machine, the targets, and one table per benchmark. */
const { formatNumber, formatSummary, summarize } = require('./stats');

const TABLE_HEADS = {
  parser: [
    'panel: readSse + decodeFrame + TurnReducer',
    'baseline: eventsource-parser + JSON.parse'
  ],
  render: ['panel', 'baseline page'],
  growth: ['after 500 turns', 'empty panel']
};

/** Cost of the measured side relative to the reference (above 1: worse). */
function costRatio(row) {
  const measured = summarize(row.measured).median;
  const reference = summarize(row.reference).median;
  const [numerator, denominator] =
    row.better === 'higher' ? [reference, measured] : [measured, reference];
  return denominator > 0 ? numerator / denominator : null;
}

function formatRatio(ratio) {
  return ratio === null ? '–' : `${formatNumber(ratio)}×`;
}

function table(head, rows) {
  const line = cells => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join(
    '\n'
  );
}

function comparisonTable(section, rows) {
  const [measured, reference] = TABLE_HEADS[section];
  return table(
    ['scenario', 'figure', measured, reference, 'ratio'],
    rows.map(row => [
      row.scenario,
      row.metric,
      formatSummary(summarize(row.measured)),
      formatSummary(summarize(row.reference)),
      formatRatio(costRatio(row))
    ])
  );
}

function bundleTable({ total, files, largest }) {
  const kB = bytes => formatNumber(bytes / 1000);
  return table(
    ['file', 'raw (kB)', 'gzip (kB)'],
    [
      [`all ${files} JavaScript files`, kB(total.raw), kB(total.gzip)],
      ...largest.map(file => [file.name, kB(file.raw), kB(file.gzip)])
    ]
  );
}

/** Each target: what it asks, where we stand, met or not. */
function targets({ render, growth }) {
  const find = (rows, id) => rows.find(row => row.id === id);
  const lines = [];
  if (render) {
    const burst = find(render, 'text-10000/burst/timeMs');
    const trickle = find(render, 'text-10000/trickle/timeMs');
    lines.push([
      'render ≤ 1.5× baseline at N = 10,000 (time to last token)',
      `${formatRatio(costRatio(burst))} all at once, ${formatRatio(costRatio(trickle))} trickled`,
      costRatio(burst) <= 1.5 && costRatio(trickle) <= 1.5
    ]);
  }
  if (growth) {
    const ratio = costRatio(find(growth, 'growth/cpuPerDelta'));
    lines.push([
      'growth ≤ 1.2 (main-thread CPU per delta after 500 turns ÷ empty panel)',
      formatRatio(ratio),
      ratio <= 1.2
    ]);
  }
  if (render) {
    const longest = render
      .filter(row => row.id.endsWith('/longestTaskMs'))
      .map(row => ({ row, worst: Math.max(...row.measured) }))
      .sort((a, b) => b.worst - a.worst);
    const over = longest.filter(entry => entry.worst > 50);
    lines.push([
      'no long task > 50 ms while streaming',
      over.length === 0
        ? 'none'
        : `${over.length} of ${longest.length} scenarios; longest ${formatNumber(longest[0].worst)} ms (${longest[0].row.scenario})`,
      over.length === 0
    ]);
    const heap = find(render, 'text-50000/burst/heapPerTextChar');
    const ratio = summarize(heap.measured).median;
    lines.push([
      'JS heap ≤ 3× the text size (heap growth ÷ characters, N = 50,000)',
      `${formatNumber(ratio)}×`,
      ratio <= 3
    ]);
  }
  return table(
    ['target', 'measured', 'met'],
    lines.map(([target, measured, met]) => [
      target,
      measured,
      met ? 'yes' : '**no**'
    ])
  );
}

/** The whole results.md; sections that did not run are left out. */
function resultsMarkdown({ date, runs, machine, versions, results }) {
  const parts = [
    '# Streaming benchmarks',
    `Written by \`./scripts/bench\` on ${date}. Each figure is the median (min–max) of ${runs} runs; ` +
      'the ratio is the cost of the first column relative to the second (above 1: slower, bigger).',
    `Machine: ${machine}.`,
    `Versions: ${versions}.`
  ];
  if (results.render || results.growth) {
    parts.push('## Targets', targets(results));
  }
  if (results.parser) {
    parts.push(
      '## 1. Parser (Node)',
      'The same SSE bytes, delivered in 16 KiB reads, through the panel pipeline and through eventsource-parser + `JSON.parse` alone.',
      comparisonTable('parser', results.parser)
    );
  }
  if (results.render) {
    parts.push(
      '## 2. Render (headless Chromium)',
      'The panel in a real `jupyter lab`, sent each turn through its message box, against a bare page that fetches the same body, ' +
        'parses it and appends the deltas to one text node. _burst_: the whole body at once; _trickle_: ~1,000 frames/s. ' +
        'Time runs from Send to the last delta in the DOM; long tasks are those overlapping that span; ' +
        'main-thread CPU is CDP `ThreadTime` (CPU time, so other load on the machine inflates it less than the wall-clock figures); ' +
        'heap figures are read 2 s after the turn, after a forced garbage collection.',
      comparisonTable('render', results.render)
    );
  }
  if (results.growth) {
    parts.push(
      '## 3. Growth',
      'A 2,000-delta turn (all at once) on an empty panel, and again after 500 short turns in the same conversation.',
      comparisonTable('growth', results.growth)
    );
  }
  if (results.bundle) {
    parts.push(
      '## 4. Bundle',
      'The labextension JavaScript of a production build (`tsc` + `jupyter-builder build`), one build.',
      bundleTable(results.bundle)
    );
  }
  return `${parts.join('\n\n')}\n`;
}

module.exports = { resultsMarkdown };
