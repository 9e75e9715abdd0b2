/**
 * The library of conversations against the real server's store: three
 * conversations created, renamed, switched and one deleted; a reload and a
 * second browser context see the same list; a turn left running in the
 * background lands in its own conversation.
 */
import { expect, galata, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator, Page } from '@playwright/test';

import {
  panelAfterReload,
  PLUGIN_ID,
  send,
  startFresh,
  waitIdle
} from './review-panel-helpers';

test.use({
  mockSettings: {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN_ID]: {
      endpoints: [
        { name: 'echo', transport: 'http', url: 'agent-panel/agents/echo/' },
        { name: 'slow', transport: 'http', url: 'agent-panel/agents/slow/' }
      ],
      defaultEndpoint: 'echo'
    }
  }
});

/** Show the list of conversations; its rows. */
async function openList(panel: Locator): Promise<Locator> {
  const list = panel.locator('.jp-AgentPanel-conversations');
  if (!(await list.isVisible())) {
    await panel.locator('.jp-AgentPanel-conversationsButton').click();
  }
  await expect(list).toBeVisible();
  return list.locator('.jp-AgentPanel-conversation');
}

function row(rows: Locator, title: string): Locator {
  return rows.filter({
    has: rows.page().locator('.jp-AgentPanel-conversationTitle', {
      hasText: title
    })
  });
}

/** The titles listed, of those that carry `tag` (other tests' conversations aside). */
async function titles(rows: Locator, tag: string): Promise<string[]> {
  const all = await rows
    .locator('.jp-AgentPanel-conversationTitle')
    .allTextContents();
  return all.filter(title => title.includes(tag));
}

/** Open the agent panel in a page that is not a Galata fixture. */
async function chat(panel: Locator, text: string): Promise<void> {
  await send(panel, text);
  await waitIdle(panel);
}

test.describe('the conversation list', () => {
  test('three conversations: renamed, switched, one deleted; a reload and another browser see the same list', async ({
    page,
    browser,
    baseURL
  }) => {
    const tag = `run${Date.now()}`;
    const panel = await startFresh(page);
    await chat(panel, `alpha ${tag}`);
    await panel.locator('.jp-AgentPanel-newChat').click();
    await chat(panel, `beta ${tag}`);
    await panel.locator('.jp-AgentPanel-newChat').click();
    await chat(panel, `gamma ${tag}`);

    let rows = await openList(panel);
    await expect
      .poll(() => titles(rows, tag))
      .toEqual([`gamma ${tag}`, `beta ${tag}`, `alpha ${tag}`]);
    // A badge only while something runs or waits.
    await expect(rows.locator('.jp-AgentPanel-conversationBadge')).toHaveCount(
      0
    );

    // Rename inline.
    await row(rows, `beta ${tag}`)
      .locator('.jp-AgentPanel-conversation-rename')
      .click();
    const input = panel.locator('.jp-AgentPanel-conversationRename');
    await input.fill(`Renamed beta ${tag}`);
    await input.press('Enter');
    await expect(row(rows, `Renamed beta ${tag}`)).toHaveCount(1);

    // Switch: the transcript is that conversation's.
    await row(rows, `alpha ${tag}`)
      .locator('.jp-AgentPanel-conversationOpen')
      .click();
    await expect(panel.locator('.jp-AgentPanel-conversations')).toBeHidden();
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      `alpha ${tag}`
    ]);
    rows = await openList(panel);
    await expect(row(rows, `alpha ${tag}`)).toHaveClass(/jp-mod-current/);

    // Delete, after confirming.
    await row(rows, `gamma ${tag}`)
      .locator('.jp-AgentPanel-conversation-delete')
      .click();
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog).toContainText('Delete conversation?');
    await dialog.locator('.jp-mod-accept').click();
    await expect
      .poll(() => titles(rows, tag))
      .toEqual([`Renamed beta ${tag}`, `alpha ${tag}`]);

    // The server's list is the same.
    const listed = await page.request.get(
      `${baseURL}/agent-panel/conversations?q=${tag}`
    );
    const stored = (await listed.json()).conversations.map(
      (c: { title: string }) => c.title
    );
    expect(stored.sort()).toEqual([`Renamed beta ${tag}`, `alpha ${tag}`]);

    await page.reload();
    await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
    const reloaded = await panelAfterReload(page);
    rows = await openList(reloaded);
    await expect
      .poll(() => titles(rows, tag))
      .toEqual([`Renamed beta ${tag}`, `alpha ${tag}`]);

    // Another browser profile: nothing of this one's state, the same list.
    const other = await browser.newContext();
    const tab = await other.newPage();
    await tab.goto(`${baseURL}/lab`);
    const otherPanel = await panelAfterReload(tab);
    const otherRows = await openList(otherPanel);
    await expect
      .poll(() => titles(otherRows, tag))
      .toEqual([`Renamed beta ${tag}`, `alpha ${tag}`]);
    await row(otherRows, `Renamed beta ${tag}`)
      .locator('.jp-AgentPanel-conversationOpen')
      .click();
    await expect(otherPanel.locator('.jp-AgentPanel-user')).toHaveText([
      `beta ${tag}`
    ]);
    await other.close();
  });

  test('a turn left running in the background lands in its conversation', async ({
    page,
    baseURL
  }) => {
    const tag = `bg${Date.now()}`;
    const panel = await startFresh(page);
    await panel.locator('.jp-AgentPanel-picker').selectOption('slow');
    await send(panel, `ticks=8 ${tag}`);
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      'tick1'
    );
    // Away to a new conversation while it streams.
    await panel.locator('.jp-AgentPanel-newChat').click();
    await expect(panel.locator('.jp-AgentPanel-turn')).toHaveCount(0);
    const rows = await openList(panel);
    const running = row(rows, tag);
    await expect(
      running.locator('.jp-AgentPanel-conversationBadge')
    ).toHaveText('running');
    // It ends in the background, and is saved there.
    await expect(
      running.locator('.jp-AgentPanel-conversationBadge')
    ).toHaveCount(0, { timeout: 30000 });
    await expect
      .poll(async () => storedAnswer(page, baseURL!, tag), { timeout: 20000 })
      .toContain('tick8');

    await running.locator('.jp-AgentPanel-conversationOpen').click();
    const text = panel.locator('.jp-AgentPanel-text').last();
    await expect(text).toHaveText(
      'tick1 tick2 tick3 tick4 tick5 tick6 tick7 tick8'
    );
    await expect(panel.locator('.jp-AgentPanel-error')).toHaveCount(0);
  });
});

/** The text of the last turn of the stored conversation whose title has `tag`. */
async function storedAnswer(
  page: IJupyterLabPageFixture,
  baseURL: string,
  tag: string
): Promise<string> {
  const list = await (
    await page.request.get(`${baseURL}/agent-panel/conversations?q=${tag}`)
  ).json();
  const id = list.conversations[0]?.id;
  if (!id) {
    return '';
  }
  const conversation = await (
    await page.request.get(`${baseURL}/agent-panel/conversations/${id}`)
  ).json();
  if (conversation.status !== 'idle') {
    return '';
  }
  const turns = conversation.entries.filter(
    (entry: { kind: string }) => entry.kind === 'turn'
  );
  const items = turns[turns.length - 1]?.state?.items ?? [];
  return items.map((item: { text?: string }) => item.text ?? '').join('');
}
