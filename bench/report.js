'use strict';
/** bench/results.md: the machine, the goals, and one table per benchmark. */
const { goalLines } = require('./goals');
const {
  finished,
  formatKB: kB,
  formatNumber,
  formatSummary,
  median,
  summarize
} = require('./stats');

const PARSER_HEAD = [
  'panel: readSse + decodeFrame + TurnReducer',
  'baseline: eventsource-parser + JSON.parse'
];

/** The render and cold tables' columns: [page, heading]. */
const RENDER_COLUMNS = [
  ['panel', 'agent panel'],
  ['minimal', 'in-lab limit (minimal panel)'],
  ['baseline', 'limit (bare page)'],
  ['peer', 'langstage-jupyter'],
  ['peerMuted', 'langstage-jupyter, logging muted']
];
/**
 * The two limits every other column's figures are divided by, and the
 * heading of that ratio's column: the bare page, and the bench's minimal
 * panel in the agent panel's JupyterLab page.
 */
const LIMITS = [
  ['baseline', '÷ bare page'],
  ['minimal', '÷ in-lab limit']
];

/** The limits a column is set against: none for the bare page, the bare page for the in-lab limit. */
function limitsOf(page) {
  return page === 'baseline' ? [] : LIMITS.filter(([limit]) => limit !== page);
}

/** A column's figures, or what kept it from having them. */
function formatColumn(samples) {
  if (!samples) {
    return '–';
  }
  if (samples.timedOutMs !== undefined) {
    return `did not finish in ${formatNumber(samples.timedOutMs / 1000)} s`;
  }
  return formatSummary(summarize(samples));
}

/** Cost of `measured` relative to `reference` (above 1: worse), or null. */
function ratioOf(measured, reference, better = 'lower') {
  if (!finished(measured) || !finished(reference)) {
    return null;
  }
  const [numerator, denominator] =
    better === 'higher'
      ? [median(reference), median(measured)]
      : [median(measured), median(reference)];
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

function parserTable(rows) {
  return table(
    ['scenario', 'figure', ...PARSER_HEAD, 'ratio'],
    rows.map(row => [
      row.scenario,
      row.metric,
      formatSummary(summarize(row.measured)),
      formatSummary(summarize(row.reference)),
      formatRatio(ratioOf(row.measured, row.reference, row.better))
    ])
  );
}

/** Each page's figure, and its ratios to the limits' (the bare page's, the in-lab limit's). */
function renderTable(rows) {
  const head = ['scenario', 'figure'];
  for (const [page, heading] of RENDER_COLUMNS) {
    head.push(heading, ...limitsOf(page).map(([, ratio]) => ratio));
  }
  return table(
    head,
    rows.map(row => {
      const cells = [row.scenario, row.metric];
      for (const [page] of RENDER_COLUMNS) {
        const samples = row.columns[page];
        cells.push(formatColumn(samples));
        for (const [limit] of limitsOf(page)) {
          cells.push(formatRatio(ratioOf(samples, row.columns[limit])));
        }
      }
      return cells;
    })
  );
}

function openTable({ turns, figures }) {
  const row = (name, samples) =>
    `| ${name} | ${formatSummary(summarize(samples.map(f => f.ms)))} | ${formatSummary(summarize(samples.map(f => f.heapMb)))} | ${formatSummary(summarize(samples.map(f => f.growthMb)))} |`;
  return [
    '| conversation | click to last turn visible (ms) | JS heap after (MB) | heap growth (MB) |',
    '| --- | --- | --- | --- |',
    row('empty', figures.empty),
    row(`${turns.toLocaleString('en-US')} turns`, figures.long)
  ].join('\n');
}

function growthTable(rows) {
  return table(
    ['scenario', 'figure', 'after 500 turns', 'empty panel', 'ratio'],
    rows.map(row => [
      row.scenario,
      row.metric,
      formatSummary(summarize(row.columns.after)),
      formatSummary(summarize(row.columns.empty)),
      formatRatio(ratioOf(row.columns.after, row.columns.empty))
    ])
  );
}

/** What each chat page fetched at start, when opened and in its first turn. */
function fetchTable(fetched) {
  const phases = [
    ['startOurs', "at JupyterLab's start: the extension's files"],
    ['openOurs', 'when the panel is first opened: the extension’s files'],
    ['openLab', "when the panel is first opened: JupyterLab's lazy chunks"],
    ['turnOurs', 'in the first turn: the extension’s files'],
    ['turnLab', "in the first turn: JupyterLab's lazy chunks"]
  ];
  const pages = RENDER_COLUMNS.filter(([page]) => fetched[page]);
  const head = ['fetched'];
  for (const [, heading] of pages) {
    head.push(`${heading}: files`, 'kB', 'kB gzip');
  }
  return table(
    head,
    phases.map(([key, label]) => {
      const cells = [label];
      for (const [page] of pages) {
        const runs = fetched[page].map(run => run[key]);
        cells.push(
          formatSummary(summarize(runs.map(total => total.files))),
          formatSummary(summarize(runs.map(total => total.bytes / 1000))),
          formatSummary(summarize(runs.map(total => total.gzip / 1000)))
        );
      }
      return cells;
    })
  );
}

function bundleTable({ total, files, largest }) {
  return table(
    ['file', 'raw (kB)', 'gzip (kB)'],
    [
      [`all ${files} JavaScript files`, kB(total.raw), kB(total.gzip)],
      ...largest.map(file => [file.name, kB(file.raw), kB(file.gzip)])
    ]
  );
}

function goals(results) {
  return table(
    ['goal', 'measured', 'met'],
    goalLines(results).map(([goal, measured, met]) => [
      goal,
      measured,
      met ? 'yes' : '**no**'
    ])
  );
}

function formatLoad(load) {
  return load.map(value => value.toFixed(2)).join(', ');
}

/**
 * The whole results.md; sections that did not run are left out. `server`
 * (bench/server.md, from `bench/first_token.py`, which runs apart) is kept as
 * it is; `profile` (bench/profile.md, written by hand from `--trace` runs)
 * says what the traces show of the goals not met.
 */
function resultsMarkdown({
  date,
  runs,
  machine,
  versions,
  load,
  results,
  server,
  profile
}) {
  const parts = [
    '# Streaming benchmarks',
    `Written by \`./scripts/bench\` on ${date}. Each figure is the median (min–max) of ${runs} runs; ` +
      'a ratio (÷) is the cost of a column relative to a limit’s (above 1: slower, bigger): the bare page’s, and the in-lab limit’s, ' +
      'a minimal panel in the agent panel’s JupyterLab page.',
    `Machine: ${machine}. Load average (1, 5, 15 min) at the start: ${formatLoad(load.start)}; at the end: ${formatLoad(load.end)}.`,
    `Versions: ${versions}.`
  ];
  if (results.render || results.cold || results.growth) {
    parts.push('## Goals', goals(results));
  }
  if (results.parser) {
    parts.push(
      '## 1. Parser (Node)',
      'The same SSE bytes, delivered in 16 KiB reads, through the panel pipeline and through eventsource-parser + `JSON.parse` alone.',
      parserTable(results.parser)
    );
  }
  const pagesNote =
    'Four pages in headless Chromium stream the same turns from the same stream server, each through a real `jupyter lab`’s proxy route ' +
    '(`bench/bench_proxy.py`): the agent panel (production build); the in-lab limit, the bench’s own minimal panel (`bench/minimal-panel/index.js`, not shipped): ' +
    'a sidebar of the agent panel’s JupyterLab, its tab beside the agent panel’s, that reads the same endpoint and appends the text deltas of each read to one text node; ' +
    'langstage-jupyter 0.6.44 from PyPI in the bench’s own virtualenv ' +
    '(as it is, logging every frame with `console.log`, which a CDP client such as this bench receives like DevTools would; and with `console.log` muted); ' +
    'and the limit: a bare page that fetches the body, parses it and appends the deltas to one text node. ' +
    'Time runs from Send (Enter in the message box) to the last delta in the DOM, and on to the last change under the page’s answer after which it stays unchanged for 300 ms ' +
    '(the agent panel shows the end of a burst first and the text above it after); long tasks are those overlapping that whole span; ' +
    'main-thread CPU is CDP `ThreadTime` over it (CPU time, so other load on the machine inflates it less than the wall-clock figures); ' +
    'heap figures are read 2 s after the turn, after a forced garbage collection.';
  if (results.cold) {
    parts.push(
      '## 2. The first turn after a page load',
      `${pagesNote} Each run loads a fresh page, opens the panel, lets it sit for 3 s (as a user reads it before typing; idle-time work runs then) and sends one turn all at once. ` +
        'The bare page is fresh too. Bytes are the bodies each page fetched (gzip: as compressed by `zlib.gzip`): the extension’s own files under `lab/extensions/<name>/`, and JupyterLab’s chunks under `static/lab/` loaded for the panel.',
      renderTable(results.cold.rows),
      fetchTable(results.cold.fetched)
    );
  }
  if (results.render) {
    parts.push(
      '## 3. Render, warm (headless Chromium)',
      `${pagesNote} Each page has answered three turns before. _burst_: the whole body at once; _trickle_: ~1,000 frames/s.`,
      renderTable(results.render)
    );
  }
  if (results.growth) {
    parts.push(
      '## 4. Growth',
      'A 2,000-delta turn (all at once) on an empty agent panel, and again after 500 short turns in the same conversation.',
      growthTable(results.growth)
    );
  }
  if (results.open) {
    parts.push(
      '## 5. Opening a long conversation',
      `A conversation of ${results.open.turns.toLocaleString('en-US')} turns (a question and an answer of about ${results.open.answerChars} characters each), put in the lab’s conversation store, against an empty one, in the same run. ` +
        'Each run loads a fresh page (a workspace of its own), opens the panel’s list of conversations and clicks one: the time runs from the click to the frame in which the last answer is in view; ' +
        'the heap is read after a forced garbage collection, before the click and once the conversation is shown (growth: the difference).',
      openTable(results.open)
    );
  }
  if (results.bundle) {
    parts.push(
      '## 6. Bundle',
      'The labextension JavaScript of a production build (`tsc` + `jupyter-builder build`), one build.',
      bundleTable(results.bundle)
    );
  }
  if (server) {
    parts.push(server.trim());
  }
  if (profile) {
    parts.push(profile.trim());
  }
  return `${parts.join('\n\n')}\n`;
}

module.exports = { resultsMarkdown };
