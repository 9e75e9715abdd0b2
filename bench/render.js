'use strict';
/**
 * Render, cold-start and growth benchmarks in headless Chromium: the agent
 * panel, the bench's minimal panel in the same lab (the in-lab limit,
 * bench/minimal-panel/index.js), langstage-jupyter (its per-frame console
 * logging as it is, and muted) and the bare baseline page stream the same
 * turns, runs interleaved (pages.js drives them).
 */
const path = require('path');
const { BaselinePage, ChatPage, MB, settledHeapBytes } = require('./pages');
const { NAMED_TURNS, textLength } = require('./turns');

/** Warm turns: the page has answered a few turns before. */
const RENDER_SCENARIOS = [
  ['text-2000', 'burst'],
  ['text-10000', 'burst'],
  ['text-50000', 'burst'],
  ['mixed', 'burst'],
  ['text-2mb', 'burst'],
  ['text-2000', 'trickle'],
  ['text-10000', 'trickle'],
  ['mixed', 'trickle']
];
/** The first turn after a page load. */
const COLD_TURNS = ['text-2000', 'text-10000'];
const PRIOR_TURNS = 500;
/**
 * How long the peer's turns may take. It renders the whole answer again on
 * every read: a very long answer can keep it busy for many minutes; such a
 * turn is reported as not finished, and the page is opened afresh.
 */
const PEER_TIMEOUT_MS = 60 * 1000;

/**
 * The columns of the render tables: each page and how it is opened (`lab`:
 * whose jupyter lab serves it, the product's own by default).
 */
const PAGES = [
  { id: 'panel', product: 'panel' },
  { id: 'minimal', product: 'minimal', lab: 'panel' },
  { id: 'baseline' },
  { id: 'peer', product: 'peer', timeoutMs: PEER_TIMEOUT_MS },
  { id: 'peerMuted', product: 'peer', mute: true, timeoutMs: PEER_TIMEOUT_MS }
];

/** What each measured turn reports, in table order. */
const TURN_METRICS = [
  ['timeMs', 'time to last token (ms)'],
  ['settledMs', 'time until the answer stops changing (ms)'],
  ['cpuMs', 'main-thread CPU (ms)'],
  ['longTasks', 'long tasks'],
  ['longTaskTotalMs', 'long tasks, total (ms)'],
  ['longestTaskMs', 'longest task (ms)'],
  ['heapGrowthMB', 'JS heap growth (MB)'],
  ['heapAfterMB', 'JS heap after (MB)'],
  ['heapPerTextChar', 'JS heap growth ÷ text characters']
];
const COLD_METRICS = TURN_METRICS.filter(([key]) => !key.startsWith('heap'));

/** Characters of text a named turn shows (its end marker aside). */
function turnTextLength(turn) {
  return textLength(NAMED_TURNS[turn]());
}

function scenarioName(turn, pace, textChars) {
  return `${turn} (${textChars.toLocaleString('en-US')} chars), ${pace}`;
}

/**
 * One table row per metric: `{id, scenario, metric, columns: {page:
 * samples}}`; a page whose turn did not finish has `{timedOutMs}` instead.
 */
function metricRows(idPrefix, scenario, metrics, figures) {
  return metrics.map(([key, metric]) => ({
    id: `${idPrefix}/${key}`,
    scenario,
    metric,
    columns: Object.fromEntries(
      Object.entries(figures).map(([page, runs]) => {
        const timedOut = runs.find(run => run.timedOutMs !== undefined);
        return [
          page,
          timedOut
            ? { timedOutMs: timedOut.timedOutMs }
            : runs.map(run => run[key])
        ];
      })
    )
  }));
}

function emptyFigures() {
  return Object.fromEntries(PAGES.map(page => [page.id, []]));
}

/**
 * Measure one turn. A page with a time limit (the peer) that fails to take
 * or finish the turn in time (it may be busy rendering the last one) is
 * reported as not finished rather than ending the run.
 */
async function measureOrGiveUp(page, spec, turn, pace, textChars) {
  if (!spec.timeoutMs) {
    return page.measure(turn, pace, textChars);
  }
  try {
    return await page.measure(turn, pace, textChars, {
      timeoutMs: spec.timeoutMs
    });
  } catch (error) {
    return { timedOutMs: spec.timeoutMs, reason: error.message };
  }
}

function labOf(labs, spec) {
  return labs[spec.lab ?? spec.product];
}

/** Open the page of `spec`, warmed up. */
function openWarmPage({ browser, labs, baselineUrl }, spec) {
  return spec.product
    ? ChatPage.openWarm(browser, labOf(labs, spec).url, spec.product, {
        mute: spec.mute
      })
    : BaselinePage.open(browser, baselineUrl);
}

/**
 * Every page for every scenario, runs interleaved. With `traceDir`, one
 * more panel turn per scenario is traced into it.
 */
async function renderBenchmark(context) {
  const { browser, runs, traceDir, log } = context;
  const pages = {};
  for (const spec of PAGES) {
    pages[spec.id] = await openWarmPage(context, spec);
  }
  const rows = [];
  for (const [turn, pace] of RENDER_SCENARIOS) {
    const textChars = turnTextLength(turn);
    const figures = emptyFigures();
    for (let run = 1; run <= runs; run++) {
      log(`render: ${turn}, ${pace}, run ${run}/${runs}`);
      for (const spec of PAGES) {
        if (figures[spec.id].some(done => done.timedOutMs !== undefined)) {
          continue; // it did not finish: one try is enough
        }
        const page = pages[spec.id];
        if (spec.product) {
          await page.newConversation().catch(error => {
            if (!spec.timeoutMs) {
              throw error;
            }
          });
        }
        const measured = await measureOrGiveUp(
          page,
          spec,
          turn,
          pace,
          textChars
        );
        figures[spec.id].push(measured);
        if (measured.timedOutMs !== undefined) {
          log(`render: the ${spec.id} page did not finish: opened afresh`);
          await page.close();
          pages[spec.id] = await openWarmPage(context, spec);
        }
      }
    }
    if (traceDir) {
      const file = path.join(traceDir, `trace-${turn}-${pace}.json`);
      log(`render: ${turn}, ${pace}, traced into ${file}`);
      await pages.panel.newConversation();
      await pages.panel.measure(turn, pace, textChars, {
        trace: { browser, file }
      });
    }
    rows.push(
      ...metricRows(
        `${turn}/${pace}`,
        scenarioName(turn, pace, textChars),
        TURN_METRICS,
        figures
      )
    );
  }
  for (const page of Object.values(pages)) {
    await page.close();
  }
  return rows;
}

/** What a page fetched, by phase: its extension's files and JupyterLab's chunks. */
function fetchFigures(fetches, extension) {
  const ours = url => url.includes(`/lab/extensions/${extension}/`);
  const lab = url => url.includes('/static/lab/');
  const total = (phase, matches) => fetches.total(phase, matches);
  return {
    startOurs: total('start', ours),
    openOurs: total('open', ours),
    openLab: total('open', lab),
    turnOurs: total('turn', ours),
    turnLab: total('turn', lab)
  };
}

/**
 * The first turn after a page load, on a fresh page per run (the panel
 * opened and read for a moment first, as a user would), and what each page
 * fetched at start, when its panel opened and during that turn.
 */
async function coldBenchmark({
  browser,
  labs,
  baselineUrl,
  runs,
  traceDir,
  log
}) {
  const rows = [];
  const fetched = Object.fromEntries(
    PAGES.filter(spec => spec.product).map(spec => [spec.id, []])
  );
  for (const turn of COLD_TURNS) {
    const textChars = turnTextLength(turn);
    const figures = emptyFigures();
    for (let run = 1; run <= runs; run++) {
      log(`cold: ${turn}, run ${run}/${runs}`);
      for (const spec of PAGES) {
        if (!spec.product) {
          const baseline = await BaselinePage.open(browser, baselineUrl, {
            warm: false
          });
          await baseline.page.waitForTimeout(1000);
          figures[spec.id].push(
            await baseline.measure(turn, 'burst', textChars, { heap: false })
          );
          await baseline.close();
          continue;
        }
        const page = await ChatPage.open(
          browser,
          labOf(labs, spec).url,
          spec.product,
          { mute: spec.mute, log: true }
        );
        figures[spec.id].push(
          await page.measure(turn, 'burst', textChars, { heap: false })
        );
        await page.metered.fetches.settled();
        fetched[spec.id].push(
          fetchFigures(page.metered.fetches, page.spec.extension)
        );
        await page.close();
      }
    }
    if (traceDir) {
      const file = path.join(traceDir, `trace-cold-${turn}.json`);
      log(`cold: ${turn}, traced into ${file}`);
      const page = await ChatPage.open(browser, labs.panel.url, 'panel', {});
      await page.measure(turn, 'burst', textChars, {
        heap: false,
        trace: { browser, file }
      });
      await page.close();
    }
    rows.push(
      ...metricRows(
        `cold/${turn}`,
        `${scenarioName(turn, 'burst', textChars)}, first turn after load`,
        COLD_METRICS,
        figures
      )
    );
  }
  return { rows, fetched };
}

/**
 * A 2,000-delta turn on an empty panel vs. after 500 prior turns. With
 * `traceDir`, one more turn after the prior ones is traced into it.
 */
async function growthBenchmark({ browser, labs, runs, traceDir, log }) {
  const panel = await ChatPage.openWarm(browser, labs.panel.url, 'panel');
  const textChars = turnTextLength('text-2000');
  const empty = [];
  const afterPrior = [];
  const heap = { empty: [], afterPrior: [] };
  for (let run = 1; run <= runs; run++) {
    log(`growth: run ${run}/${runs}, a turn on an empty panel`);
    await panel.newConversation();
    empty.push(await panel.measure('text-2000', 'burst', textChars));
    await panel.newConversation();
    heap.empty.push((await settledHeapBytes(panel.metered)) / MB);
    log(`growth: run ${run}/${runs}, ${PRIOR_TURNS} prior turns`);
    await panel.sendTinyTurns(PRIOR_TURNS);
    heap.afterPrior.push((await settledHeapBytes(panel.metered)) / MB);
    afterPrior.push(await panel.measure('text-2000', 'burst', textChars));
  }
  if (traceDir) {
    const file = path.join(traceDir, `trace-growth-after-${PRIOR_TURNS}.json`);
    log(`growth: traced into ${file}`);
    await panel.measure('text-2000', 'burst', textChars, {
      trace: { browser, file }
    });
  }
  await panel.close();
  const perDelta = key => figures => (figures[key] * 1000) / 2000;
  const scenario = `2,000-delta turn, after ${PRIOR_TURNS} turns vs. empty`;
  const row = (id, metric, measured, reference) => ({
    scenario,
    id,
    metric,
    columns: { after: measured, empty: reference }
  });
  return [
    row(
      'growth/cpuPerDelta',
      'main-thread CPU per delta (µs)',
      afterPrior.map(perDelta('cpuMs')),
      empty.map(perDelta('cpuMs'))
    ),
    row(
      'growth/timePerDelta',
      'time to last token per delta (µs)',
      afterPrior.map(perDelta('timeMs')),
      empty.map(perDelta('timeMs'))
    ),
    row(
      'growth/longestTaskMs',
      'longest task (ms)',
      afterPrior.map(figures => figures.longestTaskMs),
      empty.map(figures => figures.longestTaskMs)
    ),
    {
      ...row('growth/heapMB', 'JS heap (MB)', heap.afterPrior, heap.empty),
      scenario: `conversation of ${PRIOR_TURNS} tiny turns vs. empty`
    }
  ];
}

module.exports = { coldBenchmark, growthBenchmark, renderBenchmark };
