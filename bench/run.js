'use strict';
/**
 * The streaming benchmarks — parser, render, cold start, growth, opening a
 * long conversation, bundle — in
 * one run, written to bench/results.md and printed. `./scripts/bench` sets up
 * (the production build, and langstage-jupyter in the bench's own
 * virtualenv) and compiles first, then runs this:
 *
 *   node bench/run.js [--runs 3] [--only parser,render,cold,growth,open,bundle] [--trace] [--out FILE]
 *
 * --out writes the results to FILE instead of bench/results.md (a partial
 * run's, say, that must not replace the committed figures).
 * --trace also records, per render scenario and after the growth runs, one
 * more panel turn as a Chromium trace in bench/results/ (open it in DevTools' Performance panel).
 * Everything it starts (stream server, two jupyter labs — the agent panel's
 * from the project's virtualenv, with the bench's minimal panel
 * (bench/minimal-panel/index.js, the in-lab limit) beside it, and
 * langstage-jupyter's from the bench's —,
 * Chromium) listens on 127.0.0.1 only and is stopped, and its temp
 * directories removed, even when a benchmark fails or the run is interrupted.
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');
const { bundleSizes } = require('./bundle');
const { startLab } = require('./lab');
const { parserBenchmark } = require('./parser');
const { openBenchmark } = require('./open');
const { coldBenchmark, growthBenchmark, renderBenchmark } = require('./render');
const { resultsMarkdown } = require('./report');
const { startStreamServer } = require('./stream-server');

const ROOT = path.resolve(__dirname, '..');
const VENV_BIN = path.join(ROOT, '.venv', 'bin');
/** langstage-jupyter, from PyPI, in a virtualenv of its own (scripts/bench makes it). */
const PEER_VENV_BIN = path.join(ROOT, '.bench-venv', 'bin');
const RESULTS = path.join(__dirname, 'results.md');
/**
 * The bench's minimal panel, built by scripts/bench: a labextension the
 * agent panel's lab alone loads (the render tables' in-lab limit).
 */
const MINIMAL_PANEL = path.join(__dirname, 'minimal-panel', 'labextension');
/** What the traces say of the goals not met, written by hand (appended to RESULTS). */
const PROFILE = path.join(__dirname, 'profile.md');
const SERVER = path.join(__dirname, 'server.md');
const SECTIONS = ['parser', 'render', 'cold', 'growth', 'open', 'bundle'];
const BROWSER_SECTIONS = ['render', 'cold', 'growth', 'open'];
/** The sections that set the panel beside langstage-jupyter (its own lab). */
const PEER_SECTIONS = ['render', 'cold', 'growth'];
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Every page is measured in turn: none may be throttled as a background tab.
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding'
];

function log(message) {
  console.log(`bench: ${message}`);
}

function options() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      only: { type: 'string' },
      trace: { type: 'boolean', default: false },
      out: { type: 'string', default: RESULTS }
    }
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new Error(
      `--runs must be a positive whole number, not "${values.runs}"`
    );
  }
  const sections = values.only ? values.only.split(',') : SECTIONS;
  const unknown = sections.filter(section => !SECTIONS.includes(section));
  if (unknown.length > 0) {
    throw new Error(
      `--only: unknown section ${unknown.join(', ')}; use ${SECTIONS.join(', ')}`
    );
  }
  return {
    runs,
    sections,
    trace: values.trace,
    out: path.resolve(values.out)
  };
}

function output(command, args) {
  return execFileSync(command, args, { cwd: ROOT, encoding: 'utf-8' }).trim();
}

function describeMachine() {
  const cpu = /^model name\s*:\s*(.*)$/m.exec(
    fs.readFileSync('/proc/cpuinfo', 'utf-8')
  );
  return [
    `${os.availableParallelism()} CPUs (nproc), ${cpu ? cpu[1] : 'unknown CPU model'}`,
    `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `${os.type()} ${os.release()}`
  ].join(', ');
}

function pythonVersionOf(bin, module) {
  return output(path.join(bin, 'python'), [
    '-c',
    `import importlib.metadata as m; print(m.version('${module}'))`
  ]);
}

function describeVersions(chromiumVersion) {
  const commit = output('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = output('git', ['status', '--porcelain'])
    ? ' with uncommitted changes'
    : '';
  const packageVersion = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'package.json'))
  ).version;
  const jupyterlab = pythonVersionOf(VENV_BIN, 'jupyterlab');
  const peer = fs.existsSync(PEER_VENV_BIN)
    ? `langstage-jupyter ${pythonVersionOf(PEER_VENV_BIN, 'langstage-jupyter')} (JupyterLab ${pythonVersionOf(PEER_VENV_BIN, 'jupyterlab')}, its own virtualenv)`
    : null;
  return [
    `jupyterlab-agent-panel ${packageVersion} (commit ${commit}${dirty}, production build)`,
    peer,
    `JupyterLab ${jupyterlab}`,
    `Node ${process.version}`,
    chromiumVersion ? `Chromium ${chromiumVersion}` : null
  ]
    .filter(Boolean)
    .join(', ');
}

/** Stops what was started, last first; each step runs even if another fails. */
class Cleanup {
  constructor() {
    this._steps = [];
  }

  add(step) {
    this._steps.push(step);
  }

  /** Run the steps once; a second call (a signal during a run) waits for the same run. */
  run() {
    this._running ??= this._runSteps().finally(() => {
      this._running = null;
    });
    return this._running;
  }

  async _runSteps() {
    while (this._steps.length > 0) {
      try {
        await this._steps.pop()();
      } catch (error) {
        console.error(`bench: cleanup failed: ${error.message}`);
      }
    }
  }
}

/**
 * Render, cold start and growth: the stream server, a jupyter lab per
 * product and Chromium, stopped after.
 */
async function browserBenchmarks({
  runs,
  sections,
  trace,
  dir,
  cleanup: outer,
  results
}) {
  const cleanup = new Cleanup();
  outer.add(() => cleanup.run());
  const server = await startStreamServer();
  cleanup.add(() => server.close());
  const labs = {};
  if (!fs.existsSync(path.join(MINIMAL_PANEL, 'package.json'))) {
    throw new Error(
      `the minimal panel is not built (${path.relative(ROOT, MINIMAL_PANEL)}): run ./scripts/bench`
    );
  }
  const products = [['panel', VENV_BIN, [MINIMAL_PANEL]]];
  if (sections.some(section => PEER_SECTIONS.includes(section))) {
    products.push(['peer', PEER_VENV_BIN, []]);
  }
  for (const [product, bin, labextensions] of products) {
    log(
      `starting jupyter lab for the ${product} (${path.relative(ROOT, bin)})`
    );
    const labDir = path.join(dir, product);
    fs.mkdirSync(labDir);
    labs[product] = await startLab({
      jupyter: path.join(bin, 'jupyter'),
      dir: labDir,
      streamUrl: server.url,
      labextensions
    });
    cleanup.add(() => labs[product].stop());
  }
  const { chromium } = require(
    path.join(ROOT, 'ui-tests', 'node_modules', 'playwright-core')
  );
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS
  });
  cleanup.add(() => browser.close());
  const traceDir = trace ? path.join(__dirname, 'results') : null;
  if (traceDir) {
    fs.mkdirSync(traceDir, { recursive: true });
  }
  const context = {
    browser,
    labs,
    // The bare page, served and fed through the agent panel's lab, as the panel is.
    baselineUrl: `${labs.panel.base}bench-stream/baseline`,
    runs,
    traceDir,
    log
  };
  if (sections.includes('cold')) {
    results.cold = await coldBenchmark(context);
  }
  if (sections.includes('render')) {
    results.render = await renderBenchmark(context);
  }
  if (sections.includes('growth')) {
    results.growth = await growthBenchmark(context);
  }
  if (sections.includes('open')) {
    results.open = await openBenchmark(context);
  }
  const version = browser.version();
  // Free the CPU before the bundle build.
  await cleanup.run();
  return version;
}

async function main() {
  const { runs, sections, trace, out } = options();
  const loadAtStart = os.loadavg();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-panel-bench-'));
  const cleanup = new Cleanup();
  cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      cleanup.run().finally(() => process.exit(130));
    });
  }
  try {
    const results = {};
    let chromiumVersion = null;
    if (sections.includes('parser')) {
      log('parser');
      results.parser = await parserBenchmark(runs);
    }
    if (sections.some(section => BROWSER_SECTIONS.includes(section))) {
      chromiumVersion = await browserBenchmarks({
        runs,
        sections,
        trace,
        dir,
        cleanup,
        results
      });
    }
    if (sections.includes('bundle')) {
      log('bundle: production build');
      results.bundle = bundleSizes({
        root: ROOT,
        dir,
        jupyterBuilder: path.join(VENV_BIN, 'jupyter-builder')
      });
    }
    fs.writeFileSync(
      out,
      resultsMarkdown({
        date: new Date()
          .toISOString()
          .replace(/:\d\d\.\d+Z$/, ' UTC')
          .replace('T', ' '),
        runs,
        machine: describeMachine(),
        versions: describeVersions(chromiumVersion),
        load: { start: loadAtStart, end: os.loadavg() },
        results,
        server: fs.existsSync(SERVER) ? fs.readFileSync(SERVER, 'utf-8') : null,
        profile: fs.existsSync(PROFILE)
          ? fs.readFileSync(PROFILE, 'utf-8')
          : null
      })
    );
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'prettier'), [
      '--write',
      '--log-level',
      'warn',
      out
    ]);
    console.log(fs.readFileSync(out, 'utf-8'));
    log(`written to ${path.relative(ROOT, out)}`);
  } finally {
    await cleanup.run();
  }
}

main().catch(error => {
  console.error(`bench: ${error.stack ?? error}`);
  process.exitCode = 1;
});
