'use strict';
/**
 * The pages the render benchmarks drive in headless Chromium, each in its own
 * browser context with the probe (page-probe.js): a chat sidebar in a real
 * jupyter lab (the agent panel; the bench's minimal panel,
 * bench/minimal-panel/index.js, in the agent panel's lab; or
 * langstage-jupyter's, its per-frame console logging as it is or muted)
 * driven through its message box, and the bare baseline page. Every page
 * gets its turns through the lab's proxy routes (bench_proxy.py) from the
 * stream server.
 */
const path = require('path');
const zlib = require('zlib');

const TURN_TIMEOUT_MS = 5 * 60 * 1000;
/** Heap is read this long after a turn or a New: deferred work is done. */
const SETTLE_MS = 2000;
/** A user reads the opened panel this long before typing (idle-time work runs then). */
const READ_PANEL_MS = 3000;
/** After JupyterLab's splash, start-up fetches have this long to finish. */
const START_QUIET_MS = 2000;
const MB = 1024 * 1024;
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

/** Each chat sidebar: where its tab, message box, answers and controls are. */
const PRODUCTS = {
  panel: {
    name: 'agent panel',
    extension: 'jupyterlab-agent-panel',
    tab: 'jp-agent-panel',
    transcript: '#jp-agent-panel .jp-AgentPanel-transcript',
    input: '#jp-agent-panel .jp-AgentPanel-input',
    idle: '#jp-agent-panel .jp-AgentPanel-send',
    clear: '#jp-agent-panel .jp-AgentPanel-newChat',
    answer: '#jp-agent-panel .jp-AgentPanel-turn'
  },
  /** The in-lab limit: in the agent panel's lab, its tab beside the panel's. */
  minimal: {
    name: 'minimal panel',
    extension: 'agent-panel-bench-minimal-panel',
    tab: 'bench-minimal-panel',
    transcript: '#bench-minimal-panel .bench-MinimalPanel-transcript',
    input: '#bench-minimal-panel .bench-MinimalPanel-input',
    idle: '#bench-minimal-panel:not([data-busy]) .bench-MinimalPanel-input',
    clear: '#bench-minimal-panel .bench-MinimalPanel-new',
    answer: '#bench-minimal-panel .bench-MinimalPanel-answer'
  },
  peer: {
    name: 'langstage-jupyter',
    extension: 'langstage-jupyter',
    tab: 'deepagents-chat',
    transcript: '#deepagents-chat .deepagents-chat-messages',
    input: '#deepagents-chat .deepagents-chat-input',
    idle: '#deepagents-chat .deepagents-chat-input:not([disabled])',
    clear: '#deepagents-chat button[title="Clear chat"]',
    answer: '#deepagents-chat .deepagents-message-assistant'
  }
};

/** Replaces `console.log` before the page's scripts run: the peer logs every frame. */
const MUTE_CONSOLE = 'console.log = () => undefined;';

let markers = 0;
function nextMarker() {
  markers += 1;
  return `END-${process.pid}-${markers}`;
}

function benchMessage(turn, pace, marker) {
  return `bench ${turn} ${pace} ${marker}`;
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

/**
 * What a page fetches, by phase: each response's URL, decoded bytes and
 * gzip bytes (what it would take compressed), read from its body.
 */
class FetchLog {
  constructor(page) {
    this.phase = 'start';
    this._pending = [];
    this.entries = [];
    page.on('response', response => {
      const phase = this.phase;
      this._pending.push(
        response
          .body()
          .then(body => {
            this.entries.push({
              phase,
              url: response.url(),
              bytes: body.length,
              gzip: zlib.gzipSync(body).length
            });
          })
          .catch(() => undefined)
      );
    });
  }

  /** Every body read so far. */
  async settled() {
    await Promise.all(this._pending);
  }

  /** `{files, bytes, gzip}` of the phase's responses whose URL matches. */
  total(phase, matches) {
    const entries = this.entries.filter(
      entry => entry.phase === phase && matches(entry.url)
    );
    return {
      files: entries.length,
      bytes: entries.reduce((sum, entry) => sum + entry.bytes, 0),
      gzip: entries.reduce((sum, entry) => sum + entry.gzip, 0)
    };
  }
}

async function openMeteredPage(browser, url, { mute = false, log = false }) {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 }
  });
  const page = await context.newPage();
  page.on('pageerror', error =>
    console.error(`page error at ${url}: ${error.message}`)
  );
  if (mute) {
    await page.addInitScript({ content: MUTE_CONSOLE });
  }
  await page.addInitScript({ path: path.join(__dirname, 'page-probe.js') });
  const fetches = log ? new FetchLog(page) : null;
  await page.goto(url);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  return { page, cdp, fetches };
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
 * With `trace` (`{browser, file}`), the turn is traced into `file`; with
 * `heap: false` the heap is not read (a cold turn: nothing is settled).
 */
async function measureTurn(
  metered,
  {
    rootSelector,
    marker,
    textChars,
    send,
    trace,
    heap = true,
    timeoutMs = TURN_TIMEOUT_MS
  }
) {
  const { page, cdp } = metered;
  await page.bringToFront();
  const heapBefore = heap ? await settledHeapBytes(metered) : 0;
  const cpuBefore = await cpuSeconds(cdp);
  if (trace) {
    await trace.browser.startTracing(page, {
      path: trace.file,
      categories: TRACE_CATEGORIES
    });
  }
  await page.evaluate(
    ([root, end, ms]) => window.benchProbe.arm(root, end, ms),
    [rootSelector, marker, timeoutMs]
  );
  await send();
  let shown;
  try {
    shown = await withTimeout(
      page.evaluate(() => window.benchProbe.finished),
      timeoutMs + 30000,
      `the page did not answer`
    );
  } catch (error) {
    if (trace) {
      await trace.browser.stopTracing();
    }
    // The page may still be busy with the turn: it is not measured again.
    return { timedOutMs: timeoutMs, reason: error.message };
  }
  const { elapsedMs, settledMs, longTaskMs } = shown;
  if (trace) {
    await trace.browser.stopTracing();
  }
  if (!Number.isFinite(elapsedMs)) {
    throw new Error(
      `the probe did not see the message for ${marker} being sent`
    );
  }
  const cpuMs = ((await cpuSeconds(cdp)) - cpuBefore) * 1000;
  const figures = {
    timeMs: elapsedMs,
    settledMs,
    cpuMs,
    longTasks: longTaskMs.length,
    longTaskTotalMs: longTaskMs.reduce((total, ms) => total + ms, 0),
    longestTaskMs: Math.max(0, ...longTaskMs)
  };
  if (heap) {
    const heapAfter = await settledHeapBytes(metered);
    figures.heapGrowthMB = (heapAfter - heapBefore) / MB;
    figures.heapAfterMB = heapAfter / MB;
    figures.heapPerTextChar = (heapAfter - heapBefore) / textChars;
  }
  return figures;
}

/** A chat sidebar in a jupyter lab page, driven through its message box. */
class ChatPage {
  /**
   * Load the lab, open the sidebar and wait until it is ready to chat.
   * `fetches` (with `log`) records what each phase fetched: `start` (until
   * the workspace is restored and start-up fetches are done), `open` (the
   * tab clicked until the panel was read), then `turn`.
   */
  static async open(browser, labUrl, product, { mute = false, log = false }) {
    const spec = PRODUCTS[product];
    // `reset`: a fresh workspace (an earlier page may have left the panel open).
    const metered = await openMeteredPage(browser, `${labUrl}&reset`, {
      mute,
      log
    });
    const { page } = metered;
    const tab = page.locator(`.lm-TabBar-tab[data-id="${spec.tab}"]`);
    await tab.waitFor({ timeout: 60000 });
    // Once the splash screen is gone, the workspace is restored, and with it
    // maybe the panel, open: a click would close it.
    await page
      .locator('#jupyterlab-splash')
      .waitFor({ state: 'detached', timeout: 120000 });
    await page.waitForTimeout(START_QUIET_MS);
    if (metered.fetches) {
      metered.fetches.phase = 'open';
    }
    if (!(await page.locator(`#${spec.tab}`).isVisible())) {
      await tab.click();
    }
    const input = page.locator(spec.input);
    await input.waitFor({ timeout: 60000 });
    await page.locator(spec.idle).waitFor({ timeout: 60000 });
    await page.waitForTimeout(READ_PANEL_MS);
    if (metered.fetches) {
      metered.fetches.phase = 'turn';
    }
    return new ChatPage(metered, spec, await input.elementHandle());
  }

  /** Open the page and run the unmeasured warm-up turns. */
  static async openWarm(browser, labUrl, product, options = {}) {
    const chat = await ChatPage.open(browser, labUrl, product, options);
    for (let run = 0; run < WARM_UP_RUNS; run++) {
      await chat.measure(WARM_UP_TURN, 'burst', 1);
    }
    return chat;
  }

  /**
   * `input` is the message box, found once: a locator would query the DOM
   * on each use, at a cost that grows with the transcript.
   */
  constructor(metered, spec, input) {
    this.metered = metered;
    this.page = metered.page;
    this.spec = spec;
    this.input = input;
  }

  /** Resolves once no turn runs (the message box takes a message again). */
  async idle() {
    await this.page.locator(this.spec.idle).waitFor({
      timeout: TURN_TIMEOUT_MS
    });
  }

  async newConversation() {
    await this.idle();
    await this.page.locator(this.spec.clear).click();
    await this.page
      .locator(this.spec.answer)
      .first()
      .waitFor({ state: 'detached' });
  }

  /** Type the message for `turn`, press Enter, measure (and trace) until its end shows. */
  async measure(
    turn,
    pace,
    textChars,
    { trace = null, heap = true, timeoutMs = TURN_TIMEOUT_MS } = {}
  ) {
    await this.idle();
    const marker = nextMarker();
    await this.input.fill(benchMessage(turn, pace, marker));
    return measureTurn(this.metered, {
      rootSelector: this.spec.transcript,
      marker,
      textChars,
      // Focus first: JupyterLab may have moved it (e.g. to the Launcher).
      send: () => this.input.press('Enter'),
      trace,
      heap,
      timeoutMs
    });
  }

  /** Send `count` tiny turns one after the other, as fast as the page takes them. */
  async sendTinyTurns(count) {
    const messages = Array.from({ length: count }, () => {
      const marker = nextMarker();
      return [benchMessage('tiny', 'burst', marker), marker];
    });
    const { input, idle, transcript } = this.spec;
    await this.page.evaluate(
      async ([selectors, turns, timeoutMs]) => {
        const box = document.querySelector(selectors.input);
        const root = document.querySelector(selectors.transcript);
        const idle = async () => {
          while (!document.querySelector(selectors.idle)) {
            await new Promise(resolve => setTimeout(resolve, 5));
          }
        };
        for (const [message, marker] of turns) {
          await idle();
          const shown = window.benchProbe.whenShown(root, marker, timeoutMs);
          box.value = message;
          box.dispatchEvent(
            new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
          );
          await shown;
        }
        await idle();
      },
      [{ input, idle, transcript }, messages, TURN_TIMEOUT_MS]
    );
  }

  async close() {
    await this.page.context().close();
  }
}

/** The baseline page: fetch, parse, append the deltas to one text node. */
class BaselinePage {
  static async open(browser, url, { warm = true } = {}) {
    const baseline = new BaselinePage(await openMeteredPage(browser, url, {}));
    for (let run = 0; warm && run < WARM_UP_RUNS; run++) {
      await baseline.measure(WARM_UP_TURN, 'burst', 1);
    }
    return baseline;
  }

  constructor(metered) {
    this.metered = metered;
    this.page = metered.page;
  }

  async measure(turn, pace, textChars, { heap = true } = {}) {
    const marker = nextMarker();
    return measureTurn(this.metered, {
      rootSelector: '#answer',
      marker,
      textChars,
      heap,
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

  async close() {
    await this.page.context().close();
  }
}

module.exports = {
  BaselinePage,
  ChatPage,
  openMeteredPage,
  PRODUCTS,
  READ_PANEL_MS,
  settledHeapBytes,
  MB,
  withTimeout
};
