/**
 * Hostile agent output in Chromium, through a real endpoint: every payload of
 * fixtures/xss/payloads.json in the answer text, the reasoning, tool names,
 * arguments and results, extraction data, an interrupt's description and an
 * error's message and traceback (ui-tests/fault_server.py, scenario
 * "hostile"). Each payload would set `window.__xss` if it ran, or call
 * attacker.example if it loaded; neither may happen. Links open in a new tab
 * and never take the lab away. Extraction data inserted into a notebook
 * renders as data.
 */
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

import {
  FaultServer,
  faultEndpoint,
  playwrightPage,
  RequestLog
} from './fault-server';
import { openPanel, send, waitIdle, widenPanel } from './review-panel-helpers';

interface IPayload {
  id: string;
  markup: string;
}

const PAYLOADS: IPayload[] = JSON.parse(
  fs.readFileSync(
    path.resolve(__dirname, '../../fixtures/xss/payloads.json'),
    'utf-8'
  )
).payloads;

let server: FaultServer;
let requests: RequestLog;

test.use({ mockSettings: faultEndpoint() });

test.beforeAll(async () => {
  server = await FaultServer.start();
});

test.afterAll(async () => {
  await server.stop();
});

test.beforeEach(async ({ page }) => {
  requests = await RequestLog.attach(page);
  await page.evaluate(() => {
    delete (window as any).__xss;
  });
});

/** What ran: `window.__xss` in the lab and in any frame of it. */
async function ranPayloads(page: IJupyterLabPageFixture): Promise<unknown[]> {
  const values: unknown[] = [];
  for (const frame of playwrightPage(page).frames()) {
    values.push(
      await frame.evaluate(() => (window as any).__xss).catch(() => undefined)
    );
  }
  return values.filter(value => value !== undefined);
}

/** Show the hostile turn and answer its review; resolves when both ended. */
async function hostileTurns(
  page: IJupyterLabPageFixture
): Promise<{ panel: Locator; first: Locator; second: Locator }> {
  await widenPanel(page);
  const panel = await openPanel(page);
  await send(panel, 'hostile');
  const review = panel.locator('.jp-AgentPanel-review').last();
  await expect(review.locator('[data-verb="approve"]')).toBeVisible();
  const turns = panel.locator('.jp-AgentPanel-turn');
  const index = (await turns.count()) - 1;
  await review.locator('[data-verb="approve"]').click();
  await expect(
    turns.nth(index + 1).locator('.jp-AgentPanel-error')
  ).toBeVisible();
  await waitIdle(panel);
  return { panel, first: turns.nth(index), second: turns.nth(index + 1) };
}

/**
 * Open every collapsed part and hover what the rendered Markdown holds, as a
 * curious reader would (a surviving `onmouseover` would fire).
 */
async function exploreAll(turn: Locator): Promise<void> {
  // Every tool card's Details first: its arguments and result render then.
  for (const details of await turn.locator('.jp-AgentPanel-toolToggle').all()) {
    await details.click();
  }
  for (const toggle of await turn
    .locator('summary, .jp-AgentPanel-showMore:visible')
    .all()) {
    await toggle.click();
  }
  for (const element of await turn.locator('.jp-AgentPanel-text *').all()) {
    if (await element.isVisible()) {
      await element
        .hover({ force: true, timeout: 2000 })
        .catch(() => undefined);
    }
  }
}

test('no hostile payload runs or calls another host, wherever it appears', async ({
  page
}) => {
  test.setTimeout(240000);
  const { panel, first, second } = await hostileTurns(page);
  // Let images, styles, MathJax and media settle before looking.
  await page.waitForTimeout(1500);
  await exploreAll(first);
  await exploreAll(second);
  await page.waitForTimeout(500);

  expect(await ranPayloads(page)).toEqual([]);
  expect(requests.foreign()).toEqual([]);

  // Shown as text where it is data: tool names (in their one line, as
  // `name(args)`), arguments, results (under Details, opened above).
  const tools = first.locator('.jp-AgentPanel-tool');
  await expect(tools).toHaveCount(PAYLOADS.length);
  for (const [index, payload] of PAYLOADS.entries()) {
    const tool = tools.nth(index);
    await expect(tool.locator('.jp-AgentPanel-toolLabel')).toHaveText(
      new RegExp(`^${escapeRegExp(payload.markup)}\\(`)
    );
    await expect(tool.locator('.jp-AgentPanel-toolDetails')).toContainText(
      payload.markup
    );
  }
  await expect(first.locator('.jp-AgentPanel-reasoning')).toContainText(
    PAYLOADS[0].markup
  );
  await expect(panel.locator('.jp-AgentPanel-reviewDescription')).toContainText(
    PAYLOADS[0].markup
  );
  await expect(second.locator('.jp-AgentPanel-traceback')).toContainText(
    PAYLOADS[0].markup
  );
  await expect(second.locator('.jp-AgentPanel-errorMessage')).toContainText(
    PAYLOADS[0].markup
  );

  // Rendered as Markdown where it is prose: sanitized and contained.
  const prose = panel.locator('.jp-AgentPanel-text');
  await expect(prose.first()).toContainText('Hostile answer');
  // Images load only from data: URLs; a remote one is a link to click.
  expect(
    await prose
      .locator('img[src]')
      .evaluateAll(images =>
        images
          .map(image => image.getAttribute('src')!)
          .filter(src => !src.startsWith('data:'))
      )
  ).toEqual([]);
  const placeholders = prose.first().locator('.jp-AgentPanel-remoteImage');
  await expect(
    placeholders.filter({ hasText: 'remote image not loaded: beacon' })
  ).toHaveAttribute('href', 'http://attacker.example/md-image.png?secret=1');
  await expect(
    placeholders.filter({ hasText: 'remote image not loaded: html beacon' })
  ).toHaveAttribute('href', 'http://attacker.example/html-image.png');
  for (const selector of [
    'script',
    'iframe',
    'object',
    'embed',
    'style',
    'link',
    'meta',
    'base',
    'form',
    '[data-commandlinker-command]',
    '[onerror]',
    '[onload]',
    '[onmouseover]',
    '[ontoggle]'
  ]) {
    await expect(panel.locator(selector)).toHaveCount(0);
  }
  for (const link of await prose.locator('a[href]').all()) {
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(link).toHaveAttribute('rel', /noopener/);
    await expect(link).not.toHaveAttribute('href', /^\s*(javascript|data):/i);
  }

  // The lab is intact: the injected CSS did not hide it, nothing navigated.
  await expect(page.locator('.jp-LabShell')).toBeVisible();
  expect(page.url()).toContain('/lab');
  // No Jupyter credential reached the endpoint (another origin).
  const sent = requests.toFaultServer();
  expect(sent.length).toBeGreaterThanOrEqual(2);
  for (const request of sent) {
    for (const header of ['authorization', 'x-xsrftoken', 'cookie']) {
      expect(Object.keys(request.headers)).not.toContain(header);
    }
  }
  const received = await server.received();
  for (const request of received.filter(r => r.method === 'POST')) {
    const names = Object.keys(request.headers).map(name => name.toLowerCase());
    expect(names).not.toContain('authorization');
    expect(names).not.toContain('x-xsrftoken');
    expect(names).not.toContain('cookie');
  }
});

test('a link opens in a new tab without opener and never takes the lab away', async ({
  page
}) => {
  const { first } = await hostileTurns(page);
  const labUrl = page.url();
  // The payload asked for target="_top": it would have replaced the lab.
  const link = first
    .locator('.jp-AgentPanel-text')
    .first()
    .locator('a', { hasText: 'top link' });
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', /noopener/);
  await expect(link).toHaveAttribute('referrerpolicy', 'no-referrer');
  const [popup] = await Promise.all([
    playwrightPage(page).context().waitForEvent('page'),
    link.click()
  ]);
  await popup.waitForLoadState().catch(() => undefined);
  expect(
    await popup.evaluate(() => window.opener).catch(() => null)
  ).toBeNull();
  await popup.close();

  expect(page.url()).toBe(labUrl);
  await expect(page.locator('.jp-LabShell')).toBeVisible();
  // The new tab asked for the link (blocked here); the lab itself did not.
  expect(requests.foreign().map(r => [r.url, r.fromLab])).toEqual([
    ['http://attacker.example/target-top', false]
  ]);
  expect(await ranPayloads(page)).toEqual([]);
});

test('hostile extraction data inserted into a notebook renders as data', async ({
  page
}) => {
  await page.notebook.createNew('hostile.ipynb');
  const { first } = await hostileTurns(page);
  await page.notebook.activate('hostile.ipynb');
  const extraction = first.locator('.jp-AgentPanel-extraction');
  await expect(extraction).toHaveCount(1);
  await extraction
    .locator('button[data-command="agent-panel:insert-extraction"]')
    .click();
  const cells = page.locator('.jp-NotebookPanel .jp-Cell');
  await expect(cells).toHaveCount(2);
  const inserted = cells.nth(1);
  const output = inserted.locator('.jp-OutputArea-output');
  await expect(output).toBeVisible();
  // The JSON viewer shows each payload as a string, nothing as markup.
  await output.getByText('0', { exact: true }).first().click();
  await expect(output).toContainText(PAYLOADS[0].markup);
  await expect(output.locator('img, script, iframe, style, form')).toHaveCount(
    0
  );
  // The data is kept as it was, each payload a plain string.
  const data = await page.evaluate(() => {
    const notebook = (window as any).jupyterapp.shell.currentWidget.content;
    return notebook.model.sharedModel.cells[1].toJSON().outputs[0].data[
      'application/json'
    ];
  });
  expect(data.map((row: { payload: string }) => row.payload)).toEqual(
    PAYLOADS.map(payload => payload.markup)
  );
  await page.waitForTimeout(1000);
  expect(await ranPayloads(page)).toEqual([]);
  expect(requests.foreign()).toEqual([]);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
