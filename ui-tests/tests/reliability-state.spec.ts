/**
 * Reloads and second tabs: a reload keeps the transcript up to the last
 * frame received and a pending review answerable; each review is resumed
 * once, whether the reviewer double-clicks or answers in two tabs (the server
 * refuses the second resume and that tab says the review was answered
 * elsewhere).
 */
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Browser } from '@playwright/test';

import { FaultServer, faultEndpoint, playwrightPage } from './fault-server';
import {
  lastTurn,
  openPanel,
  resumeLog,
  send,
  startFresh,
  waitIdle
} from './review-panel-helpers';

const DEMO_RESUMED =
  "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}.";

test.describe('reload while a turn streams', () => {
  let server: FaultServer;
  test.use({ mockSettings: faultEndpoint() });
  test.beforeAll(async () => {
    server = await FaultServer.start();
  });
  test.afterAll(async () => {
    await server.stop();
  });

  test('the transcript comes back up to the last frame shown, marked as interrupted', async ({
    page
  }) => {
    const panel = await startFresh(page);
    await send(panel, 'count');
    const text = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(text).toContainText('tick-30 ');
    const shown = ((await text.textContent()) ?? '').trim();
    await page.reload();

    const restored = await openPanel(page);
    const turn = lastTurn(restored);
    // The panel loads when it is shown, then restores the conversation and
    // renders it (at the next frame): wait for the text before reading it.
    await expect(turn.locator('.jp-AgentPanel-text')).toContainText(shown);
    const kept = (
      (await turn.locator('.jp-AgentPanel-text').textContent()) ?? ''
    ).trim();
    // Everything shown before the reload, maybe a frame or two more.
    expect(kept.startsWith(shown)).toBe(true);
    expect(kept).toMatch(/^(tick-\d+ )*tick-\d+$/);
    await expect(turn.locator('.jp-AgentPanel-cancelled')).toContainText(
      'Interrupted by a page reload'
    );
    await expect(turn.locator('.jp-AgentPanel-retry')).toBeVisible();
    await send(restored, 'ok');
    await expect(lastTurn(restored).locator('.jp-AgentPanel-text')).toHaveText(
      'all is well'
    );
  });
});

test.describe('reload while a review waits (built-in agent)', () => {
  test('the review comes back, answers once, even on a double click', async ({
    page
  }) => {
    const resumes = resumeLog(playwrightPage(page));
    const panel = await startFresh(page);
    await send(panel, 'ask me a question');
    await expect(
      lastTurn(panel).locator('[data-verb="approve"]')
    ).toBeVisible();
    await page.reload();

    const restored = await openPanel(page);
    const approve = lastTurn(restored).locator('[data-verb="approve"]');
    await expect(approve).toBeEnabled();
    await approve.dblclick();
    await expect(lastTurn(restored).locator('.jp-AgentPanel-text')).toHaveText(
      DEMO_RESUMED
    );
    await waitIdle(restored);
    expect(resumes).toHaveLength(1);
    expect(resumes[0].status()).toBe(200);
  });
});

test.describe('two windows on one workspace (built-in agent)', () => {
  // Both windows read and write the server's workspace, as real ones do.
  test.use({ mockState: false });

  /** A review waits in window A; window B, in a browser context of its own, shows it too. */
  async function reviewInTwoWindows(
    page: IJupyterLabPageFixture,
    browser: Browser,
    baseURL: string
  ) {
    const panelA = await startFresh(page);
    await send(panelA, 'ask me a question');
    await expect(
      lastTurn(panelA).locator('[data-verb="approve"]')
    ).toBeVisible();
    // The store has it at once; JupyterLab saves the workspace (which
    // names the conversation shown) shortly after the state changes.
    await expect
      .poll(async () => pendingReviewSaved(page, baseURL), { timeout: 20000 })
      .toBe(true);

    // Another browser context, as another browser profile or machine: a
    // second tab of the same one would not open this workspace at all
    // (JupyterLab's window resolver sends it to a fresh "auto-…" one).
    const windowB = await browser.newContext();
    const tabB = await windowB.newPage();
    const resumesA = resumeLog(playwrightPage(page));
    const resumesB = resumeLog(tabB);
    await tabB.goto(page.url());
    await tabB.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
    // Once the layout is restored (it may hold the panel open or closed),
    // activate the panel: unlike a click on its tab, never a toggle.
    await tabB.evaluate(async () => {
      const app = (window as any).jupyterapp;
      await app.restored;
      app.shell.activateById('jp-agent-panel');
    });
    const panelB = tabB.locator('#jp-agent-panel');
    await expect(panelB).toBeVisible();
    await expect(
      lastTurn(panelB).locator('[data-verb="approve"]')
    ).toBeEnabled();
    // Answering starts a turn of its own: pin the review's turn.
    const turnsB = panelB.locator('.jp-AgentPanel-turn');
    const reviewTurns = await turnsB.count();
    const reviewB = turnsB
      .nth(reviewTurns - 1)
      .locator('.jp-AgentPanel-review');
    return {
      panelA,
      windowB,
      tabB,
      panelB,
      turnsB,
      reviewTurns,
      reviewB,
      resumesA,
      resumesB
    };
  }

  test('a review answered in one window is refused in the other, which says so', async ({
    page,
    browser,
    baseURL
  }) => {
    const windows = await reviewInTwoWindows(page, browser, baseURL!);
    const { panelA, panelB, turnsB, reviewTurns, reviewB } = windows;
    // Window B does not learn of A's answer before its user answers too
    // (its store checks find nothing new, as just before A's save).
    await windows.tabB.route(
      /agent-panel\/conversations\/[^/?]+\?since=/,
      route => route.fulfill({ status: 204 })
    );

    await lastTurn(panelA).locator('[data-verb="approve"]').click();
    await expect(lastTurn(panelA).locator('.jp-AgentPanel-text')).toHaveText(
      DEMO_RESUMED
    );
    await waitIdle(panelA);

    await reviewB.locator('[data-verb="approve"]').click();
    await expect(reviewB).toHaveAttribute('data-state', 'answered-elsewhere');
    await expect(reviewB).toContainText(
      'Already answered elsewhere (in another tab or window)'
    );
    await expect(turnsB).toHaveCount(reviewTurns + 1);
    const bannerB = lastTurn(panelB).locator('.jp-AgentPanel-error');
    await expect(bannerB).toContainText('HTTP 409');
    await expect(bannerB).toContainText('This review was already answered');
    await expect(panelB.locator('.jp-AgentPanel-text')).toHaveCount(0);
    // Window B is not stuck: it can chat on.
    await expect(panelB.locator('.jp-AgentPanel-input')).toBeEnabled();

    expect(windows.resumesA.map(r => r.status())).toEqual([200]);
    expect(windows.resumesB.map(r => r.status())).toEqual([409]);
    await windows.windowB.close();
  });

  test('a review answered in one window shows answered in the other, with the answer that followed', async ({
    page,
    browser,
    baseURL
  }) => {
    const windows = await reviewInTwoWindows(page, browser, baseURL!);
    const { panelA, panelB, turnsB, reviewTurns, reviewB } = windows;

    await lastTurn(panelA).locator('[data-verb="approve"]').click();
    await waitIdle(panelA);

    await expect(reviewB).toHaveAttribute('data-state', 'answered', {
      timeout: 15000
    });
    await expect(reviewB.locator('[data-verb="approve"]')).toBeHidden();
    await expect(reviewB.locator('.jp-AgentPanel-reviewOutcome')).toBeVisible();
    await expect(turnsB).toHaveCount(reviewTurns + 1);
    await expect(lastTurn(panelB).locator('.jp-AgentPanel-text')).toHaveText(
      DEMO_RESUMED
    );
    await waitIdle(panelB);
    expect(windows.resumesB).toEqual([]);
    await windows.windowB.close();
  });
});

/**
 * The server's store holds a conversation whose last turn paused, and the
 * server's workspace names it as the one shown (what another window opens).
 */
async function pendingReviewSaved(
  page: IJupyterLabPageFixture,
  baseURL: string
): Promise<boolean> {
  const workspace = await page.request.get(
    `${baseURL}/lab/api/workspaces/default`
  );
  const shown = workspace.ok()
    ? (await workspace.json())?.data?.[
        'jupyterlab-agent-panel:last-conversation'
      ]
    : undefined;
  if (typeof shown !== 'string') {
    return false;
  }
  const stored = await page.request.get(
    `${baseURL}/agent-panel/conversations/${shown}`
  );
  if (!stored.ok()) {
    return false;
  }
  const saved = await stored.json();
  const last = saved?.entries?.[saved.entries.length - 1];
  return saved.status === 'review' && last?.state?.outcome === 'interrupted';
}
