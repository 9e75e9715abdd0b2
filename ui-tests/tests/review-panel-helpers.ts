/**
 * Shared steps of the review-panel UI tests: open the panel, send a message,
 * point the panel at one of the named test graphs, take screenshots.
 */
import { expect, galata, IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator, Page, Request, TestInfo } from '@playwright/test';
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const PLUGIN_ID = 'jupyterlab-agent-panel:plugin';
/** The endpoints the panel offers after the settings' own (contracts/endpoint-settings.ts). */
export const BUILT_IN_NAMES = [
  'Built-in agent (server)',
  'Notebook kernel',
  'Notebook demo (server)'
];
export const SCREENSHOTS = path.resolve(__dirname, '..', 'screenshots');
/** The README's and the user guide's images, rewritten by the tests that show them. */
export const DOC_IMAGES = path.resolve(__dirname, '..', '..', 'docs', 'images');

/** Galata settings that make `name` (a graph in ui-tests/graphs) the endpoint. */
export function graphEndpoint(name: string): Record<string, unknown> {
  return {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN_ID]: {
      endpoints: [
        { name, transport: 'http', url: `agent-panel/agents/${name}/` }
      ],
      defaultEndpoint: name
    }
  };
}

export async function openPanel(
  page: IJupyterLabPageFixture
): Promise<Locator> {
  await page.sidebar.openTab('jp-agent-panel');
  const panel = page.locator('#jp-agent-panel');
  await expect(panel.locator('.jp-AgentPanel-input')).toBeVisible();
  return panel;
}

/** The panel once the page reloaded and the workspace was restored (it reopens the sidebar). */
export async function panelAfterReload(page: Page): Promise<Locator> {
  await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
  await page.evaluate(async () => {
    const app = (window as any).jupyterapp;
    await app.restored;
    app.shell.activateById('jp-agent-panel');
  });
  const panel = page.locator('#jp-agent-panel');
  await expect(panel.locator('.jp-AgentPanel-input')).toBeVisible();
  return panel;
}

/** Open the panel on a new conversation (one a previous test left is set aside). */
export async function startFresh(
  page: IJupyterLabPageFixture
): Promise<Locator> {
  const panel = await openPanel(page);
  await panel.locator('.jp-AgentPanel-newChat').click();
  await expect(panel.locator('.jp-AgentPanel-turn')).toHaveCount(0);
  return panel;
}

export async function send(panel: Locator, text: string): Promise<void> {
  const input = panel.locator('.jp-AgentPanel-input');
  await input.fill(text);
  await input.press('Enter');
  await expect(panel.locator('.jp-AgentPanel-user').last()).toHaveText(text);
}

/** The context chip of `kind` above the message box (`directory`, `error`, `variables`…). */
export function contextChip(panel: Locator, kind: string): Locator {
  return panel.locator(`.jp-AgentPanel-chip[data-kind="${kind}"]`);
}

/** The latest assistant turn. */
export function lastTurn(panel: Locator): Locator {
  return panel.locator('.jp-AgentPanel-turn').last();
}

/** Wait until no turn runs (the Stop button is gone). */
export async function waitIdle(panel: Locator): Promise<void> {
  await expect(panel.locator('.jp-AgentPanel-stop')).toBeHidden({
    timeout: 60000
  });
}

/** Attach a screenshot of `target` to the report and keep it in ui-tests/screenshots. */
export async function screenshot(
  target: Locator,
  name: string,
  testInfo: TestInfo
): Promise<void> {
  await keepScreenshot(await target.screenshot(), name, testInfo);
}

/** Attach a PNG to the report and keep it as ui-tests/screenshots/<name>.png. */
export async function keepScreenshot(
  body: Buffer,
  name: string,
  testInfo: TestInfo
): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  fs.writeFileSync(path.join(SCREENSHOTS, `${name}.png`), body);
  await testInfo.attach(name, { body, contentType: 'image/png' });
}

/** Make the right sidebar wide enough for readable screenshots. */
export async function widenPanel(page: IJupyterLabPageFixture): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.sidebar.openTab('jp-agent-panel');
  await page.sidebar.setWidth(480, 'right');
}

/**
 * The POSTs `page` makes to an agent's resume route, with their status
 * (`agent`: a named agent's; the built-in one's by default).
 */
export function resumeLog(
  page: Page,
  agent?: string
): { url: string; status: () => number }[] {
  const route = agent
    ? `agent-panel/agents/${agent}/resume`
    : 'agent-panel/resume';
  const log: { url: string; status: () => number }[] = [];
  page.on('request', (request: Request) => {
    const url = request.url().split('?')[0];
    if (request.method() === 'POST' && url.endsWith(route)) {
      let status = 0;
      void request.response().then(response => {
        status = response?.status() ?? -1;
      });
      log.push({ url: request.url(), status: () => status });
    }
  });
  return log;
}

/** A free loopback port, for a server a test file starts. */
export function freePort(python = process.env.PYTHON ?? 'python'): number {
  return Number(
    execFileSync(python, [
      '-c',
      'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    ])
      .toString()
      .trim()
  );
}

/**
 * Start one of the UI tests' AG-UI servers (`ui-tests/<script>`, which
 * lists its inputs at `/_inputs`) on `port`; resolves once it answers.
 */
export async function startAguiTestServer(
  script: string,
  port: number,
  python = process.env.PYTHON ?? 'python',
  args: string[] = []
): Promise<ChildProcess> {
  const root = path.resolve(__dirname, '..', '..');
  const server = spawn(
    python,
    [path.join(root, 'ui-tests', script), '--port', `${port}`, ...args],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] }
  );
  await waitForUrl(`http://127.0.0.1:${port}/_inputs`);
  return server;
}

/** Wait until `url` answers 2xx (a server a test started is up). */
export async function waitForUrl(url: string): Promise<void> {
  for (let attempt = 0; attempt < 240; attempt++) {
    try {
      if ((await fetch(url)).ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise(resolve => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not come up`);
}

/** Put `source` in cell `index` and run it (`wait`: until it finishes). */
export async function runCode(
  page: IJupyterLabPageFixture,
  index: number,
  source: string,
  wait = true
): Promise<void> {
  if (index >= (await page.notebook.getCellCount())) {
    await page.notebook.addCell('code', source);
  } else {
    await page.notebook.setCell(index, 'code', source);
  }
  await page.notebook.runCell(index, { wait });
}

/** The right sidebar widths the UI is checked at: JupyterLab's minimum, narrow, wide. */
export const WIDTHS = [250, 320, 500];
export const THEMES = {
  light: (page: IJupyterLabPageFixture) => page.theme.setLightTheme(),
  dark: (page: IJupyterLabPageFixture) => page.theme.setDarkTheme()
};

export interface IBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export async function box(locator: Locator): Promise<IBox> {
  const found = await locator.boundingBox();
  expect(found, 'a visible element').not.toBeNull();
  return found!;
}

/**
 * Drag the right sidebar's split handle until the panel is `width` px wide.
 * Galata's `sidebar.setWidth` drags to an absolute position that does not
 * count the handle, so measure and correct instead.
 */
export async function setPanelWidth(
  page: IJupyterLabPageFixture,
  panel: Locator,
  width: number
): Promise<void> {
  const handle = page
    .locator('#jp-main-split-panel > .lm-SplitPanel-handle:not(.lm-mod-hidden)')
    .last();
  for (let attempt = 0; attempt < 5; attempt++) {
    const off = (await box(panel)).width - width;
    if (Math.abs(off) < 1) {
      return;
    }
    const grip = await box(handle);
    const x = grip.x + grip.width / 2;
    const y = grip.y + grip.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + off, y, { steps: 4 });
    await page.mouse.up();
  }
  expect(Math.round((await box(panel)).width)).toBe(width);
}
