'use strict';
/**
 * The goals table of bench/results.md: every goal the benchmarks hold the
 * panel to, what this run measured, and whether it was met. The render goals
 * are set against the in-lab limit (the bench's minimal panel in the same
 * JupyterLab page, bench/minimal-panel/) and langstage-jupyter muted, in the
 * same run; a goal whose figures did not run (a partial run) is left out, and
 * a figure missing from one is shown as "–" and counts as not met.
 */
const { finished, formatKB, formatNumber, median } = require('./stats');

/** One frame at 60 Hz: how far behind the limit the last token may show. */
const FRAME_MS = 1000 / 60;
/** Turns held to the 1.3× goal, all at once: `[row id prefix, label]`. */
const AT_ONCE = [
  ['cold/text-2000', 'first turn, 2,000'],
  ['cold/text-10000', 'first turn, 10,000'],
  ['text-2000/burst', 'warm, 2,000'],
  ['text-10000/burst', 'warm, 10,000'],
  ['mixed/burst', 'mixed']
];
const TRICKLED = [
  ['text-2000/trickle', '2,000'],
  ['text-10000/trickle', '10,000'],
  ['mixed/trickle', 'mixed']
];

const ratioText = ratio => (ratio === null ? '–' : `${formatNumber(ratio)}×`);

/** The figures of one row by id (`columns`), from any table. */
function finder(results) {
  const rows = [
    ...(results.render ?? []),
    ...(results.cold?.rows ?? []),
    ...(results.growth ?? [])
  ];
  return id => rows.find(row => row.id === id)?.columns ?? {};
}

/** Median of `page` ÷ median of `limit` in row `id`, or null when either is missing. */
function ratioIn(find, id, page, limit) {
  const columns = find(id);
  if (!finished(columns[page]) || !finished(columns[limit])) {
    return null;
  }
  const reference = median(columns[limit]);
  return reference > 0 ? median(columns[page]) / reference : null;
}

/** `[label, ratio]` per turn and metric, against the in-lab limit. */
function inLabRatios(find, turns, metrics) {
  return turns.flatMap(([prefix, label]) =>
    metrics.map(([key, what]) => [
      `${label} ${what}`,
      ratioIn(find, `${prefix}/${key}`, 'panel', 'minimal')
    ])
  );
}

/** A goal line from `[label, ratio]` pairs, met when every ratio is at most `limit`. */
function ratioGoal(goal, pairs, limit) {
  return [
    goal,
    pairs.map(([label, ratio]) => `${label} ${ratioText(ratio)}`).join('; '),
    pairs.every(([, ratio]) => ratio !== null && ratio <= limit)
  ];
}

function startGoal(results) {
  const fetched = results.cold.fetched.panel;
  const gzip = median(fetched.map(run => run.startOurs.gzip));
  return [
    "bytes fetched at JupyterLab's start ≤ 40 kB gzip",
    `${formatKB(gzip)} kB gzip (${formatKB(median(fetched.map(run => run.startOurs.bytes)))} kB decoded)`,
    gzip <= 40000
  ];
}

/** Every time and CPU row the muted peer ran in: the panel's median below its, or the peer unfinished (null: it ran in none). */
function peerGoal(results) {
  const rows = [...(results.cold?.rows ?? []), ...(results.render ?? [])]
    .filter(row => /\/(timeMs|cpuMs)$/.test(row.id))
    .filter(row => row.columns.peerMuted);
  if (rows.length === 0) {
    return null;
  }
  const behind = rows.filter(({ columns }) => {
    const peer = columns.peerMuted;
    if (peer.timedOutMs !== undefined) {
      return false; // it did not finish: the panel, which did, is ahead
    }
    return !finished(columns.panel) || median(columns.panel) >= median(peer);
  });
  return [
    'ahead of langstage-jupyter muted on every time and CPU row',
    behind.length === 0
      ? `ahead on all ${rows.length} rows`
      : `behind on ${behind.length} of ${rows.length} rows: ` +
        behind
          .map(
            ({ id, columns }) =>
              `${id} ${formatNumber(median(columns.panel))} against ${formatNumber(median(columns.peerMuted))} ms`
          )
          .join('; '),
    behind.length === 0
  ];
}

function longTaskGoal(results) {
  const worst = [...(results.cold?.rows ?? []), ...(results.render ?? [])]
    .filter(row => row.id.endsWith('/longestTaskMs'))
    .filter(row => finished(row.columns.panel))
    .map(row => ({ row, worst: Math.max(...row.columns.panel) }))
    .sort((a, b) => b.worst - a.worst);
  const over = worst.filter(entry => entry.worst > 50);
  return [
    'no task over 50 ms in any scenario (worst run)',
    over.length === 0
      ? `none in ${worst.length} scenarios`
      : `${over.length} of ${worst.length} scenarios: ` +
        over
          .map(({ row, worst }) => `${row.scenario} ${formatNumber(worst)} ms`)
          .join('; '),
    over.length === 0
  ];
}

/** How far the panel's last trickled token is behind `limit`'s, per turn (null: not measured). */
function trickledLag(find, limit) {
  return TRICKLED.map(([prefix, label]) => {
    const columns = find(`${prefix}/timeMs`);
    return finished(columns.panel) && finished(columns[limit])
      ? [label, median(columns.panel) - median(columns[limit])]
      : [label, null];
  });
}

function trickledLagGoal(find) {
  const lagText = lags =>
    lags
      .map(
        ([label, ms]) =>
          `${label} ${ms === null ? '–' : `${formatNumber(ms)} ms`}`
      )
      .join(', ');
  const behind = trickledLag(find, 'baseline');
  return [
    "trickled: last token within one frame (16.7 ms) of the bare page's",
    `${lagText(behind)} behind; the in-lab limit's: ${lagText(trickledLag(find, 'minimal'))}`,
    behind.every(([, ms]) => ms !== null && ms <= FRAME_MS)
  ];
}

function renderGoals(results, find) {
  const lines = [];
  const longest = find('text-2mb/burst/longestTaskMs').panel;
  const perChar = find('text-2mb/burst/heapPerTextChar').panel;
  if (finished(longest) && finished(perChar)) {
    lines.push([
      '2 MB answer: its end shown, no main-thread stall over 200 ms (heap ÷ characters reported)',
      `longest task ${formatNumber(Math.max(...longest))} ms (worst run); heap ${formatNumber(median(perChar))} bytes per character`,
      Math.max(...longest) <= 200
    ]);
  }
  const heap = find('text-50000/burst/heapPerTextChar').panel;
  if (finished(heap)) {
    lines.push([
      'JS heap ≤ 3× the text size (heap growth ÷ characters, N = 50,000)',
      `${formatNumber(median(heap))}×`,
      median(heap) <= 3
    ]);
  }
  return lines;
}

/** `[goal, measured, met]` per goal whose figures ran. */
function goalLines(results) {
  const find = finder(results);
  const lines = [];
  if (results.cold) {
    lines.push(startGoal(results));
  }
  if (results.cold || results.render) {
    lines.push(
      ratioGoal(
        'all at once: time to last token and main-thread CPU ≤ 1.3× the in-lab limit (first turn and warm at 2,000 and 10,000 deltas; the mixed turn)',
        inLabRatios(find, AT_ONCE, [
          ['timeMs', 'time'],
          ['cpuMs', 'CPU']
        ]),
        1.3
      ),
      peerGoal(results),
      longTaskGoal(results)
    );
  }
  if (results.render) {
    lines.push(
      ratioGoal(
        'trickled: main-thread CPU ≤ 1.2× the in-lab limit (2,000 and 10,000 deltas, mixed)',
        inLabRatios(find, TRICKLED, [['cpuMs', 'CPU']]),
        1.2
      ),
      trickledLagGoal(find),
      ...renderGoals(results, find)
    );
  }
  if (results.growth) {
    const ratio = ratioIn(find, 'growth/cpuPerDelta', 'after', 'empty');
    lines.push([
      'growth ≤ 1.2 (main-thread CPU per delta after 500 turns ÷ empty panel)',
      ratioText(ratio),
      ratio !== null && ratio <= 1.2
    ]);
  }
  return lines.filter(Boolean);
}

module.exports = { goalLines };
