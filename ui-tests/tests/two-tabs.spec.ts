/**
 * One conversation open in two tabs (issue 34 item 2), in two browser
 * contexts on the same server: a turn that streams in one shows in the
 * other as the first tab saves it, and ends there as it ends, whether the
 * other tab opened it then or showed it already; sending from both at once
 * runs one turn, and the other tab says the agent is busy. (A
 * review answered in one tab and then in the other: reliability-state.spec.ts.)
 */
import { expect, galata, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Browser, Locator, Page } from '@playwright/test';

import { playwrightPage } from './fault-server';
import {
  lastTurn,
  panelAfterReload,
  PLUGIN_ID,
  send,
  startFresh,
  waitIdle
} from './review-panel-helpers';

const SETTINGS = {
  ...galata.DEFAULT_SETTINGS,
  [PLUGIN_ID]: {
    endpoints: [
      { name: 'slow', transport: 'http', url: 'agent-panel/agents/slow/' }
    ],
    defaultEndpoint: 'slow'
  }
};
test.use({ mockSettings: SETTINGS });

const BUSY =
  'The agent is already answering in this conversation, in another tab or window: wait for that answer, then send again.';

/** A second tab, in a browser context of its own with the same settings, showing conversation `tag`. */
async function secondTab(
  browser: Browser,
  baseURL: string,
  waitForApplication: Parameters<
    typeof galata.newPage
  >[0]['waitForApplication'],
  tag: string
): Promise<{ tab: Page; panel: Locator }> {
  const { page: tab } = await galata.newPage({
    baseURL,
    browser,
    mockSettings: SETTINGS,
    waitForApplication,
    autoGoto: false
  });
  const plain = playwrightPage(tab);
  await plain.goto(`${baseURL}/lab`);
  const panel = await panelAfterReload(plain);
  const list = panel.locator('.jp-AgentPanel-conversations');
  await panel.locator('.jp-AgentPanel-conversationsButton').click();
  await expect(list).toBeVisible();
  await list
    .locator('.jp-AgentPanel-conversation', { hasText: tag })
    .locator('.jp-AgentPanel-conversationOpen')
    .click();
  await expect(panel.locator('.jp-AgentPanel-user').first()).toContainText(tag);
  return { tab: plain, panel };
}

/** Tab A answered a first message tagged `tag`; tab B shows that conversation too. */
async function bothShowing(
  page: IJupyterLabPageFixture,
  browser: Browser,
  baseURL: string,
  waitForApplication: Parameters<
    typeof galata.newPage
  >[0]['waitForApplication'],
  tag: string
): Promise<{ panelA: Locator; tab: Page; panelB: Locator }> {
  const panelA = await startFresh(page);
  await send(panelA, `ticks=1 ${tag}`);
  await waitIdle(panelA);
  const { tab, panel: panelB } = await secondTab(
    browser,
    baseURL,
    waitForApplication,
    tag
  );
  await waitIdle(panelB);
  return { panelA, tab, panelB };
}

/** What `panel` shows of the conversation of the test below. */
async function conversationIn(panel: Locator): Promise<{
  fromA: number;
  fromB: number;
  answers: string[];
  refusals: string[];
}> {
  const users = await panel.locator('.jp-AgentPanel-user').allInnerTexts();
  const turns = panel.locator('.jp-AgentPanel-turn');
  return {
    fromA: users.filter(text => text.includes('from A')).length,
    fromB: users.filter(text => text.includes('from B')).length,
    answers: await turns.locator('.jp-AgentPanel-text').allInnerTexts(),
    refusals: (await turns.locator('.jp-AgentPanel-error').allInnerTexts()).map(
      text => (text.includes(BUSY) ? BUSY : text)
    )
  };
}

const ticks = (count: number) =>
  Array.from({ length: count }, (_, n) => `tick${n + 1}`).join(' ');

test('a turn streaming in one tab shows in the other as it is saved, and ends there as it ends', async ({
  page,
  browser,
  baseURL,
  waitForApplication
}) => {
  const tag = `elsewhere ${Date.now()}`;
  const panelA = await startFresh(page);
  await send(panelA, `ticks=40 ${tag}`);
  await expect(lastTurn(panelA).locator('.jp-AgentPanel-text')).toContainText(
    'tick2'
  );
  const { tab, panel: panelB } = await secondTab(
    browser,
    baseURL!,
    waitForApplication,
    tag
  );
  const turnB = lastTurn(panelB);
  await expect(turnB.locator('.jp-AgentPanel-elsewhere')).toContainText(
    'Still answering in another tab or window'
  );
  await expect(turnB.locator('.jp-AgentPanel-cancelled')).toHaveCount(0);
  // It grows in tab B while tab A streams it.
  const shownAt = async () =>
    (await turnB.locator('.jp-AgentPanel-text').innerText()).split(' ').length;
  const first = await shownAt();
  await expect.poll(shownAt).toBeGreaterThan(first + 2);
  await expect(turnB.locator('.jp-AgentPanel-text')).not.toContainText(
    'tick40'
  );
  await waitIdle(panelA);
  await expect(turnB.locator('.jp-AgentPanel-text')).toHaveText(ticks(40), {
    timeout: 60000
  });
  await expect(turnB.locator('.jp-AgentPanel-elsewhere')).toHaveCount(0);
  await expect(panelB.locator('.jp-AgentPanel-turn')).toHaveCount(1);
  await tab.context().close();
});

test('sending from both tabs at once runs one turn; the other tab says the agent is busy', async ({
  page,
  browser,
  baseURL,
  waitForApplication
}) => {
  const tag = `both ${Date.now()}`;
  const { panelA, tab, panelB } = await bothShowing(
    page,
    browser,
    baseURL!,
    waitForApplication,
    tag
  );
  await Promise.all([
    send(panelA, `ticks=6 from A ${tag}`),
    send(panelB, `ticks=6 from B ${tag}`)
  ]);
  await waitIdle(panelA);
  await waitIdle(panelB);
  // One tab's message ran to its end; the other's was refused, in words;
  // each tab ends up showing both, each once.
  for (const panel of [panelA, panelB]) {
    await expect
      .poll(() => conversationIn(panel), { timeout: 20000 })
      .toEqual({
        fromA: 1,
        fromB: 1,
        answers: [ticks(1), ticks(6)],
        refusals: [BUSY]
      });
  }
  // The stored conversation has each message once, and one answer to them.
  const list = await (
    await page.request.get(
      `${baseURL}/agent-panel/conversations?q=${encodeURIComponent(tag)}`
    )
  ).json();
  const stored = await (
    await page.request.get(
      `${baseURL}/agent-panel/conversations/${list.conversations[0].id}`
    )
  ).json();
  const users = stored.entries
    .filter((entry: { kind: string }) => entry.kind === 'user')
    .map((entry: { text: string }) => entry.text);
  expect(users.filter((text: string) => text.includes('from A'))).toHaveLength(
    1
  );
  expect(users.filter((text: string) => text.includes('from B'))).toHaveLength(
    1
  );
  const answered = stored.entries.filter(
    (entry: { kind: string; state?: { outcome?: string } }) =>
      entry.kind === 'turn' && entry.state?.outcome === 'complete'
  );
  expect(answered).toHaveLength(2);
  await tab.context().close();
});

test('a tab showing the conversation idle shows the next turn the other tab runs, as it streams there, and can go on from it', async ({
  page,
  browser,
  baseURL,
  waitForApplication
}) => {
  const tag = `idle ${Date.now()}`;
  const { panelA, tab, panelB } = await bothShowing(
    page,
    browser,
    baseURL!,
    waitForApplication,
    tag
  );

  await send(panelA, `ticks=30 next ${tag}`);
  await expect(panelB.locator('.jp-AgentPanel-user').nth(1)).toContainText(
    `next ${tag}`
  );
  const turnB = panelB.locator('.jp-AgentPanel-turn').nth(1);
  await expect(turnB.locator('.jp-AgentPanel-elsewhere')).toContainText(
    'Still answering in another tab or window'
  );
  await expect(turnB.locator('.jp-AgentPanel-text')).not.toContainText(
    'tick30'
  );
  await waitIdle(panelA);
  await expect(turnB.locator('.jp-AgentPanel-text')).toHaveText(ticks(30), {
    timeout: 30000
  });
  await expect(turnB.locator('.jp-AgentPanel-elsewhere')).toHaveCount(0);
  await expect(panelB.locator('.jp-AgentPanel-turn')).toHaveCount(2);

  // Tab B goes on from there, and tab A shows it.
  await send(panelB, `ticks=2 from B ${tag}`);
  await waitIdle(panelB);
  await expect(lastTurn(panelB).locator('.jp-AgentPanel-text')).toHaveText(
    ticks(2)
  );
  await expect(panelA.locator('.jp-AgentPanel-turn')).toHaveCount(3, {
    timeout: 30000
  });
  await expect(lastTurn(panelA).locator('.jp-AgentPanel-text')).toHaveText(
    ticks(2)
  );
  await tab.context().close();
});
