'use strict';
/**
 * The streaming benchmarks of issue 9 — parser, render, growth, bundle — in
 * one run, written to bench/results.md and printed. `./scripts/bench` sets up
 * and compiles first, then runs this:
 *
 *   node bench/run.js [--runs 3] [--only parser,render,growth,bundle] [--trace]
 *
 * --trace also records, per render scenario and after the growth runs, one
 * more panel turn as a Chromium trace in bench/results/ (open it in DevTools' Performance panel).
 * Everything it starts (stream server, jupyter lab, Chromium) listens on
 * 127.0.0.1 only and is stopped, and its temp directory removed, even when a
 * benchmark fails or the run is interrupted.
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { parseArgs } = require('util');
const { bundleSizes } = require('./bundle');
const { startLab } = require('./lab');
const { parserBenchmark } = require('./parser');
const { growthBenchmark, renderBenchmark } = require('./render');
const { resultsMarkdown } = require('./report');
const { startStreamServer } = require('./stream-server');

const ROOT = path.resolve(__dirname, '..');
const VENV_BIN = path.join(ROOT, '.venv', 'bin');
const RESULTS = path.join(__dirname, 'results.md');
const SECTIONS = ['parser', 'render', 'growth', 'bundle'];
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
      trace: { type: 'boolean', default: false }
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
  return { runs, sections, trace: values.trace };
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

function describeVersions(chromiumVersion) {
  const commit = output('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = output('git', ['status', '--porcelain'])
    ? ' with uncommitted changes'
    : '';
  const packageVersion = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'package.json'))
  ).version;
  const jupyterlab = output(path.join(VENV_BIN, 'python'), [
    '-c',
    'import jupyterlab; print(jupyterlab.__version__)'
  ]);
  return [
    `jupyterlab-agent-panel ${packageVersion} (commit ${commit}${dirty})`,
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

  async run() {
    while (this._steps.length > 0) {
      try {
        await this._steps.pop()();
      } catch (error) {
        console.error(`bench: cleanup failed: ${error.message}`);
      }
    }
  }
}

/** Render and growth: stream server, jupyter lab and Chromium, stopped after. */
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
  log('starting jupyter lab');
  const lab = await startLab({
    jupyter: path.join(VENV_BIN, 'jupyter'),
    dir,
    endpointUrl: server.url
  });
  cleanup.add(() => lab.stop());
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
    labUrl: lab.url,
    server,
    runs,
    traceDir,
    log
  };
  if (sections.includes('render')) {
    results.render = await renderBenchmark(context);
  }
  if (sections.includes('growth')) {
    results.growth = await growthBenchmark(context);
  }
  const version = browser.version();
  // Free the CPU before the bundle build.
  await cleanup.run();
  return version;
}

async function main() {
  const { runs, sections, trace } = options();
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
    if (sections.includes('render') || sections.includes('growth')) {
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
      RESULTS,
      resultsMarkdown({
        date: new Date()
          .toISOString()
          .replace(/:\d\d\.\d+Z$/, ' UTC')
          .replace('T', ' '),
        runs,
        machine: describeMachine(),
        versions: describeVersions(chromiumVersion),
        results
      })
    );
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'prettier'), [
      '--write',
      '--log-level',
      'warn',
      RESULTS
    ]);
    console.log(fs.readFileSync(RESULTS, 'utf-8'));
    log(`written to ${path.relative(ROOT, RESULTS)}`);
  } finally {
    await cleanup.run();
  }
}

main().catch(error => {
  console.error(`bench: ${error.stack ?? error}`);
  process.exitCode = 1;
});
