/**
 * Branches in a real lab (docs/protocol.md §5.10, §13.8), on the remembering
 * graph, which answers with every message it remembers: editing an earlier
 * message forks the agent's memory there; ‹ › switch between the branches
 * and the agent follows; Regenerate answers again from the same point; a
 * reload shows the branch chosen, with its siblings. The same on an Agent
 * Server deployment of the graph (`langgraph dev`).
 */
import { expect, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';

import {
  graphEndpoint,
  lastTurn,
  panelAfterReload,
  screenshot,
  send,
  startFresh,
  waitIdle
} from './review-panel-helpers';

test.use({ mockSettings: graphEndpoint('remembering') });

async function say(panel: Locator, text: string, answer: string) {
  await send(panel, text);
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    answer
  );
  await waitIdle(panel);
}

function message(panel: Locator, text: string): Locator {
  return panel
    .locator('.jp-AgentPanel-userMessage')
    .filter({ has: panel.page().getByText(text, { exact: true }) });
}

test('edit an earlier message, switch between the branches, regenerate, reload', async ({
  page
}, testInfo) => {
  const panel = await startFresh(page);
  await say(panel, 'one', 'I remember: one');
  await say(panel, 'two', 'I remember: one | two');
  await say(panel, 'three', 'I remember: one | two | three');

  const two = message(panel, 'two');
  await two.locator('.jp-AgentPanel-branch-edit').click();
  await two.locator('.jp-AgentPanel-userEditor').fill('TWO');
  await two.locator('.jp-AgentPanel-branch-send').click();
  // The agent went back to before "two": it forgot "two" and "three".
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    'I remember: one | TWO'
  );
  await waitIdle(panel);
  await expect(panel.locator('.jp-AgentPanel-user')).toHaveText(['one', 'TWO']);
  const edited = message(panel, 'TWO');
  await expect(edited.locator('.jp-AgentPanel-branchPosition')).toHaveText(
    '2 / 2'
  );
  await screenshot(edited, 'branch-switcher', testInfo);

  await edited.locator('.jp-AgentPanel-branch-previous').click();
  await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
    'one',
    'two',
    'three'
  ]);
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    'I remember: one | two | three'
  );
  // The agent follows the branch shown.
  await say(panel, 'four', 'I remember: one | two | three | four');

  await message(panel, 'two').locator('.jp-AgentPanel-branch-next').click();
  await expect(panel.locator('.jp-AgentPanel-user')).toHaveText(['one', 'TWO']);
  await say(panel, 'and on', 'I remember: one | TWO | and on');

  await lastTurn(panel).locator('.jp-AgentPanel-regenerate').click();
  await expect(
    message(panel, 'and on').locator('.jp-AgentPanel-branchPosition')
  ).toHaveText('2 / 2');
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    'I remember: one | TWO | and on'
  );
  await waitIdle(panel);

  await page.reload();
  const reloaded = await panelAfterReload(page);
  await expect(reloaded.locator('.jp-AgentPanel-user')).toHaveText([
    'one',
    'TWO',
    'and on'
  ]);
  await message(reloaded, 'TWO')
    .locator('.jp-AgentPanel-branch-previous')
    .click();
  await expect(reloaded.locator('.jp-AgentPanel-user')).toHaveText([
    'one',
    'two',
    'three',
    'four'
  ]);
  await say(reloaded, 'five', 'I remember: one | two | three | four | five');
});

test.describe('on an Agent Server deployment', () => {
  test.use({ mockSettings: graphEndpoint('team-remembering') });

  test('an edit forgets the later turns, and the branch left goes on where it was', async ({
    page
  }) => {
    const panel = await startFresh(page);
    await say(panel, 'one', 'I remember: one');
    await say(panel, 'two', 'I remember: one | two');
    const two = message(panel, 'two');
    await two.locator('.jp-AgentPanel-branch-edit').click();
    await two.locator('.jp-AgentPanel-userEditor').fill('TWO');
    await two.locator('.jp-AgentPanel-branch-send').click();
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      'I remember: one | TWO'
    );
    await waitIdle(panel);
    await message(panel, 'TWO')
      .locator('.jp-AgentPanel-branch-previous')
      .click();
    await say(panel, 'three', 'I remember: one | two | three');
  });
});
