/**
 * A real Jupyter server restart in the middle of a conversation and of a
 * review: this file starts its own `jupyter lab` (the UI tests' config, on a
 * port of its own), stops it while a review waits and starts another on the
 * same conversations and agent memory. After a reload the list and the
 * conversation are there, the review is answered once and resumes the run,
 * and the agent remembers the conversation. Restarted on a memory that lost
 * the thread, the panel says the agent no longer remembers it. A
 * conversation's branches outlive a restart, and the agent goes on with the
 * memory of whichever one is shown.
 */
import { expect, test } from '@jupyterlab/galata';
import type { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { playwrightPage } from './fault-server';
import { startLab, stopLab } from './lab-process';
import {
  freePort,
  graphEndpoint,
  lastTurn,
  openPanel,
  resumeLog,
  send,
  startFresh,
  waitIdle
} from './review-panel-helpers';

const PORT = freePort();
const STATE = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-panel-restart-'));

test.use({
  baseURL: `http://127.0.0.1:${PORT}`,
  mockSettings: graphEndpoint('remembering'),
  // Galata proxies the runner APIs to track what a test starts; a poll that
  // lands while the lab is down fails the test (ECONNREFUSED, seen in CI).
  // This test starts no kernel, session or terminal.
  kernels: null,
  sessions: null,
  terminals: null
});

function startRestartLab(...options: string[]): Promise<ChildProcess> {
  return startLab({ port: PORT, state: STATE, options });
}

let lab: ChildProcess;

test.beforeAll(async () => {
  lab = await startRestartLab();
});

test.afterAll(async () => {
  await stopLab(lab);
  fs.rmSync(STATE, { recursive: true, force: true });
});

test('a server restart during a review: the answer resumes the run and the agent remembers', async ({
  page
}) => {
  let panel = await startFresh(page);
  await send(panel, 'my name is Ada');
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    'I remember: my name is Ada'
  );
  await waitIdle(panel);
  await send(panel, 'review the notes');
  await expect(lastTurn(panel).locator('[data-verb="approve"]')).toBeVisible();

  await stopLab(lab);
  lab = await startRestartLab();
  await page.reload();

  panel = await openPanel(page);
  await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
    'my name is Ada',
    'review the notes'
  ]);
  const notice = panel.locator('.jp-AgentPanel-conversationNotice');
  const resumes = resumeLog(playwrightPage(page), 'remembering');
  const approve = lastTurn(panel).locator('[data-verb="approve"]');
  await expect(approve).toBeEnabled();
  await approve.dblclick();
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    'Decision: approve. I remember: my name is Ada | review the notes'
  );
  await waitIdle(panel);
  expect(resumes.map(resume => resume.status())).toEqual([200]);

  await send(panel, 'what is my name?');
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    'I remember: my name is Ada | review the notes | what is my name?'
  );
  await waitIdle(panel);
  await expect(notice).toBeHidden();

  // A server whose agents keep threads in its process only: after this
  // restart the agent has forgotten the thread, and the panel says so.
  await stopLab(lab);
  lab = await startRestartLab('--AgentPanel.checkpointer_url=memory');
  await page.reload();
  panel = await openPanel(page);
  await expect(
    panel.locator('.jp-AgentPanel-conversationNotice')
  ).toContainText('The agent no longer remembers this conversation');
});

test('branches outlive a server restart, and the agent remembers each one', async ({
  page
}) => {
  await stopLab(lab);
  lab = await startRestartLab();
  let panel = await startFresh(page);
  const answer = () => lastTurn(panel).locator('.jp-AgentPanel-text');
  for (const [text, remembered] of [
    ['one', 'I remember: one'],
    ['two', 'I remember: one | two']
  ]) {
    await send(panel, text);
    await expect(answer()).toHaveText(remembered);
    await waitIdle(panel);
  }
  const two = panel.locator('.jp-AgentPanel-userMessage').nth(1);
  await two.locator('.jp-AgentPanel-branch-edit').click();
  await two.locator('.jp-AgentPanel-userEditor').fill('TWO');
  await two.locator('.jp-AgentPanel-branch-send').click();
  await expect(answer()).toHaveText('I remember: one | TWO');
  await waitIdle(panel);

  await stopLab(lab);
  lab = await startRestartLab();
  await page.reload();
  panel = await openPanel(page);
  await expect(panel.locator('.jp-AgentPanel-user')).toHaveText(['one', 'TWO']);
  await panel
    .locator('.jp-AgentPanel-userMessage')
    .nth(1)
    .locator('.jp-AgentPanel-branch-previous')
    .click();
  await expect(panel.locator('.jp-AgentPanel-user')).toHaveText(['one', 'two']);
  await send(panel, 'and on');
  await expect(answer()).toHaveText('I remember: one | two | and on');
  await waitIdle(panel);
  await panel
    .locator('.jp-AgentPanel-userMessage')
    .nth(1)
    .locator('.jp-AgentPanel-branch-next')
    .click();
  await send(panel, 'again');
  await expect(answer()).toHaveText('I remember: one | TWO | again');
});
