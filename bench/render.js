'use strict';
/**
 * Render and growth benchmarks in headless Chromium. The real panel in a real
 * jupyter lab, driven through its message box, and the bare baseline page
 * (baseline.html) stream the same turns from the stream server; each page
 * has its own browser context and the probe (page-probe.js).
 */
const path = require('path');
const { NAMED_TURNS, textLength } = require('./turns');

const PANEL = '#jp-agent-panel';
const TRANSCRIPT = `${PANEL} .jp-AgentPanel-transcript`;
const TURN_TIMEOUT_MS = 5 * 60 * 1000;
/** Heap is read this long after a turn or a New: deferred work is done. */
const SETTLE_MS = 2000;
const MB = 1024 * 1024;

const RENDER_TURNS = ['text-2000', 'text-10000', 'text-50000', 'mixed'];
const PACES = ['burst', 'trickle'];
const PRIOR_TURNS = 500;
/** Run unmeasured when a page opens: first use loads and compiles code. */
const WARM_UP_TURN = 'text-2000';
const WARM_UP_RUNS = 3;
/** What a trace records (DevTools' Performance panel categories, with JS samples). */
const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'disabled-by-default-v8.cpu_profiler',
  'toplevel',
  'v8.execute'
];

/** What each measured turn reports, in table order. */
const TURN_METRICS = [
  ['timeMs', 'time to last token (ms)'],
  ['cpuMs', 'main-thread CPU (ms)'],
  ['longTasks', 'long tasks'],
  ['longTaskTotalMs', 'long tasks, total (ms)'],
  ['longestTaskMs', 'longest task (ms)'],
  ['heapGrowthMB', 'JS heap growth (MB)'],
  ['heapAfterMB', 'JS heap after (MB)'],
  ['heapPerTextChar', 'JS heap growth ÷ text characters']
];

let markers = 0;
function nextMarker() {
  markers += 1;
  return `END-${process.pid}-${markers}`;
}

function benchMessage(turn, pace, marker) {
  return `bench ${turn} ${pace} ${marker}`;
}

/** Characters of text a named turn shows (its end marker aside). */
function turnTextLength(turn) {
  return textLength(NAMED_TURNS[turn]());
}

function withTimeout(promise, ms, failure) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${failure} within ${ms / 1000} s`)),
      ms
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function openMeteredPage(browser, url) {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 }
  });
  const page = await context.newPage();
  page.on('pageerror', error =>
    console.error(`page error at ${url}: ${error.message}`)
  );
  await page.addInitScript({ path: path.join(__dirname, 'page-probe.js') });
  await page.goto(url);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  return { page, cdp };
}

/** Used JS heap after deferred work settled and a full garbage collection. */
async function settledHeapBytes({ page, cdp }) {
  await page.waitForTimeout(SETTLE_MS);
  await cdp.send('HeapProfiler.collectGarbage');
  return (await cdp.send('Runtime.getHeapUsage')).usedSize;
}

/**
 * CPU seconds the renderer's main thread has used so far: unlike wall time,
 * it does not grow when other processes take the CPU.
 */
async function cpuSeconds(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find(metric => metric.name === 'ThreadTime').value;
}

/**
 * The figures of one turn: arm the probe on `rootSelector`, `send()` the
 * message, wait for `marker`. The turn's text has `textChars` characters.
 * With `trace` (`{browser, file}`), the turn is traced into `file`.
 */
async function measureTurn(
  metered,
  { rootSelector, marker, textChars, send, trace }
) {
  const { page, cdp } = metered;
  await page.bringToFront();
  const heapBefore = await settledHeapBytes(metered);
  const cpuBefore = await cpuSeconds(cdp);
  if (trace) {
    await trace.browser.startTracing(page, {
      path: trace.file,
      categories: TRACE_CATEGORIES
    });
  }
  await page.evaluate(
    ([root, end, timeoutMs]) => window.benchProbe.arm(root, end, timeoutMs),
    [rootSelector, marker, TURN_TIMEOUT_MS]
  );
  await send();
  const { elapsedMs, longTaskMs } = await page.evaluate(
    () => window.benchProbe.finished
  );
  if (trace) {
    await trace.browser.stopTracing();
  }
  if (!Number.isFinite(elapsedMs)) {
    throw new Error(
      `the probe did not see the message for ${marker} being sent`
    );
  }
  const cpuMs = ((await cpuSeconds(cdp)) - cpuBefore) * 1000;
  const heapAfter = await settledHeapBytes(metered);
  return {
    timeMs: elapsedMs,
    cpuMs,
    longTasks: longTaskMs.length,
    longTaskTotalMs: longTaskMs.reduce((total, ms) => total + ms, 0),
    longestTaskMs: Math.max(0, ...longTaskMs),
    heapGrowthMB: (heapAfter - heapBefore) / MB,
    heapAfterMB: heapAfter / MB,
    heapPerTextChar: (heapAfter - heapBefore) / textChars
  };
}

/** The agent panel in a jupyter lab page (warmed up), driven through its message box. */
class PanelPage {
  /** `healthChecked` resolves when the page's panel checks the stream server. */
  static async open(browser, labUrl, healthChecked) {
    const metered = await openMeteredPage(browser, labUrl);
    const tab = metered.page.locator(
      '.lm-TabBar-tab[data-id="jp-agent-panel"]'
    );
    await tab.waitFor({ timeout: 60000 });
    // Once the splash screen is gone, the workspace is restored, and with it
    // maybe the panel, open: a click would close it.
    await metered.page
      .locator('#jupyterlab-splash')
      .waitFor({ state: 'detached', timeout: 120000 });
    if (!(await metered.page.locator(PANEL).isVisible())) {
      await tab.click();
    }
    await withTimeout(
      healthChecked,
      60000,
      'the panel did not check the health of the stream server (its endpoint in the settings)'
    );
    const panel = new PanelPage(
      metered,
      await metered.page
        .locator(`${PANEL} .jp-AgentPanel-input`)
        .elementHandle()
    );
    for (let run = 0; run < WARM_UP_RUNS; run++) {
      await panel.measure(WARM_UP_TURN, 'burst', turnTextLength(WARM_UP_TURN));
    }
    return panel;
  }

  /**
   * `input` is the message box, found once: a locator would query the DOM
   * on each use, at a cost that grows with the transcript.
   */
  constructor(metered, input) {
    this.metered = metered;
    this.page = metered.page;
    this.input = input;
  }

  /** Resolves once no turn runs (Send is offered again). */
  async idle() {
    await this.page
      .locator(`${PANEL} .jp-AgentPanel-send`)
      .waitFor({ timeout: TURN_TIMEOUT_MS });
  }

  async newConversation() {
    await this.idle();
    await this.page.locator(`${PANEL} .jp-AgentPanel-newChat`).click();
    await this.page
      .locator(`${TRANSCRIPT} .jp-AgentPanel-turn`)
      .first()
      .waitFor({ state: 'detached' });
  }

  /** Type the message for `turn`, press Enter, measure (and trace) until its end shows. */
  async measure(turn, pace, textChars, trace = null) {
    await this.idle();
    const marker = nextMarker();
    await this.input.fill(benchMessage(turn, pace, marker));
    return measureTurn(this.metered, {
      rootSelector: TRANSCRIPT,
      marker,
      textChars,
      // Focus first: JupyterLab may have moved it (e.g. to the Launcher).
      send: () => this.input.press('Enter'),
      trace
    });
  }

  /** Send `count` tiny turns one after the other, as fast as the panel takes them. */
  async sendTinyTurns(count) {
    const messages = Array.from({ length: count }, () => {
      const marker = nextMarker();
      return [benchMessage('tiny', 'burst', marker), marker];
    });
    await this.page.evaluate(
      async ([panelSelector, turns, timeoutMs]) => {
        const panel = document.querySelector(panelSelector);
        const input = panel.querySelector('.jp-AgentPanel-input');
        const send = panel.querySelector('.jp-AgentPanel-send');
        const transcript = panel.querySelector('.jp-AgentPanel-transcript');
        const idle = async () => {
          while (send.hidden) {
            await new Promise(resolve => setTimeout(resolve, 5));
          }
        };
        for (const [message, marker] of turns) {
          await idle();
          const shown = window.benchProbe.whenShown(
            transcript,
            marker,
            timeoutMs
          );
          input.value = message;
          input.dispatchEvent(
            new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
          );
          await shown;
        }
        await idle();
      },
      [PANEL, messages, TURN_TIMEOUT_MS]
    );
  }
}

/** The baseline page (warmed up): fetch, parse, append the deltas to one text node. */
class BaselinePage {
  static async open(browser, streamUrl) {
    const baseline = new BaselinePage(
      await openMeteredPage(browser, `${streamUrl}baseline`)
    );
    for (let run = 0; run < WARM_UP_RUNS; run++) {
      await baseline.measure(
        WARM_UP_TURN,
        'burst',
        turnTextLength(WARM_UP_TURN)
      );
    }
    return baseline;
  }

  constructor(metered) {
    this.metered = metered;
  }

  async measure(turn, pace, textChars) {
    const marker = nextMarker();
    return measureTurn(this.metered, {
      rootSelector: '#answer',
      marker,
      textChars,
      send: () =>
        this.metered.page.evaluate(
          message => {
            window.benchProbe.startNow();
            window.streamBaseline(message).catch(error => console.error(error));
          },
          benchMessage(turn, pace, marker)
        )
    });
  }
}

/** One table row per metric from per-run figure objects. */
function metricRows(idPrefix, scenario, measured, reference) {
  return TURN_METRICS.map(([key, metric]) => ({
    id: `${idPrefix}/${key}`,
    scenario,
    metric,
    better: 'lower',
    measured: measured.map(figures => figures[key]),
    reference: reference.map(figures => figures[key])
  }));
}

/** Record a Chromium trace of the panel streaming one more turn into `file`. */
async function tracePanelTurn(browser, panel, turn, pace, file) {
  await panel.newConversation();
  await panel.measure(turn, pace, turnTextLength(turn), { browser, file });
}

/**
 * Panel vs. baseline for every turn and pace, runs interleaved. With
 * `traceDir`, one more panel turn per scenario is traced into it.
 */
async function renderBenchmark({
  browser,
  labUrl,
  server,
  runs,
  traceDir,
  log
}) {
  const panel = await PanelPage.open(browser, labUrl, server.nextHealthCheck());
  const baseline = await BaselinePage.open(browser, server.url);
  const rows = [];
  for (const pace of PACES) {
    for (const turn of RENDER_TURNS) {
      const textChars = turnTextLength(turn);
      const figures = { panel: [], baseline: [] };
      for (let run = 1; run <= runs; run++) {
        log(`render: ${turn}, ${pace}, run ${run}/${runs}`);
        await panel.newConversation();
        figures.panel.push(await panel.measure(turn, pace, textChars));
        figures.baseline.push(await baseline.measure(turn, pace, textChars));
      }
      if (traceDir) {
        const file = path.join(traceDir, `trace-${turn}-${pace}.json`);
        log(
          `render: ${turn}, ${pace}, traced into ${path.relative(process.cwd(), file)}`
        );
        await tracePanelTurn(browser, panel, turn, pace, file);
      }
      const scenario = `${turn} (${textChars.toLocaleString('en-US')} chars), ${pace}`;
      rows.push(
        ...metricRows(
          `${turn}/${pace}`,
          scenario,
          figures.panel,
          figures.baseline
        )
      );
    }
  }
  await panel.page.context().close();
  await baseline.metered.page.context().close();
  return rows;
}

/**
 * A 2,000-delta turn on an empty panel vs. after 500 prior turns. With
 * `traceDir`, one more turn after the prior ones is traced into it.
 */
async function growthBenchmark({
  browser,
  labUrl,
  server,
  runs,
  traceDir,
  log
}) {
  const panel = await PanelPage.open(browser, labUrl, server.nextHealthCheck());
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
    log(`growth: traced into ${path.relative(process.cwd(), file)}`);
    await panel.measure('text-2000', 'burst', textChars, { browser, file });
  }
  await panel.page.context().close();
  const perDelta = key => figures => (figures[key] * 1000) / 2000;
  const scenario = `2,000-delta turn, after ${PRIOR_TURNS} turns vs. empty`;
  return [
    {
      scenario,
      id: 'growth/cpuPerDelta',
      metric: 'main-thread CPU per delta (µs)',
      better: 'lower',
      measured: afterPrior.map(perDelta('cpuMs')),
      reference: empty.map(perDelta('cpuMs'))
    },
    {
      scenario,
      id: 'growth/timePerDelta',
      metric: 'time to last token per delta (µs)',
      better: 'lower',
      measured: afterPrior.map(perDelta('timeMs')),
      reference: empty.map(perDelta('timeMs'))
    },
    {
      scenario,
      id: 'growth/longestTaskMs',
      metric: 'longest task (ms)',
      better: 'lower',
      measured: afterPrior.map(figures => figures.longestTaskMs),
      reference: empty.map(figures => figures.longestTaskMs)
    },
    {
      scenario: `conversation of ${PRIOR_TURNS} tiny turns vs. empty`,
      id: 'growth/heapMB',
      metric: 'JS heap (MB)',
      better: 'lower',
      measured: heap.afterPrior,
      reference: heap.empty
    }
  ];
}

module.exports = { growthBenchmark, renderBenchmark };
