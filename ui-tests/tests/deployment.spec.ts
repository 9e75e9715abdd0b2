/**
 * The panel against a real LangGraph Agent Server (`langgraph dev`, started by
 * playwright.config.js), served by the lab's server extension as the
 * deployments `team-<graph>` (jupyter_server_test_config.py): a streamed
 * answer the thread remembers, deleted with its conversation, a LangChain HITL
 * review answered and resumed, Stop, which cancels the run on the Agent
 * Server, a reload mid-answer, after which the panel joins the run still
 * going there, and a thread begun elsewhere, listed and opened with its history.
 * A graph that raises there shows its exception; an Agent Server that stops
 * fails the next turn with a connection error and its health says so at once.
 */
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator, Request } from '@playwright/test';
import { spawn, type ChildProcess } from 'child_process';
import { randomUUID } from 'crypto';

import { playwrightPage } from './fault-server';
import {
  graphEndpoint,
  lastTurn,
  openPanel,
  send,
  waitForUrl,
  waitIdle
} from './review-panel-helpers';

/** The thread ids of the chats `page` sends to the deployment `agent`. */
function chatThreads(page: IJupyterLabPageFixture, agent: string): string[] {
  const threads: string[] = [];
  playwrightPage(page).on('request', (request: Request) => {
    if (request.url().includes(`/agent-panel/agents/${agent}/chat`)) {
      threads.push(request.postDataJSON().thread_id);
    }
  });
  return threads;
}

const AGENT_SERVER = `http://127.0.0.1:${process.env.AGENT_PANEL_AGENT_SERVER_PORT}`;

/** The statuses of the thread's runs, as the Agent Server lists them. */
async function runStatuses(threadId: string): Promise<string[]> {
  const runs = await (
    await fetch(`${AGENT_SERVER}/threads/${threadId}/runs`)
  ).json();
  return runs.map((run: { status: string }) => run.status);
}

test.describe('a deployment that remembers', () => {
  test.use({ mockSettings: graphEndpoint('team-remembering') });

  test('answers stream, the thread on the Agent Server remembers them, and deleting the conversation deletes it', async ({
    page
  }) => {
    const threads = chatThreads(page, 'team-remembering');
    const tag = `Ada ${Date.now()}`;
    const panel = await openPanel(page);
    await expect(panel.locator('.jp-AgentPanel-health')).toContainText('Ready');
    await send(panel, `my name is ${tag}`);
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      `I remember: my name is ${tag}`
    );
    await waitIdle(panel);
    await send(panel, 'what is my name?');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      `I remember: my name is ${tag} | what is my name?`
    );
    await waitIdle(panel);
    expect(new Set(threads).size).toBe(1);
    const thread = `${AGENT_SERVER}/threads/${threads[0]}`;
    expect((await fetch(thread)).status).toBe(200);

    await panel.locator('.jp-AgentPanel-conversationsButton').click();
    await panel
      .locator('.jp-AgentPanel-conversation', { hasText: tag })
      .locator('.jp-AgentPanel-conversation-delete')
      .click();
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog).toContainText('Delete conversation?');
    await dialog.locator('.jp-mod-accept').click();
    await expect.poll(async () => (await fetch(thread)).status).toBe(404);
  });
});

test.describe('a deployment with LangChain HITL', () => {
  test.use({ mockSettings: graphEndpoint('team-hitl') });

  test('the tool calls wait for a review; the answers resume the run on the Agent Server', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'write the notes');
    const review = panel.locator('.jp-AgentPanel-review');
    const row = (index: number) => review.locator(`[data-row="${index}"]`);
    await expect(row(0).locator('.jp-AgentPanel-reviewAction')).toHaveText(
      'write_file'
    );
    await expect(row(1).locator('[data-verb]')).toHaveText([
      'Reject',
      'Approve'
    ]);
    await expect(lastTurn(panel).locator('.jp-AgentPanel-tool')).toHaveCount(2);
    await row(0).locator('[data-verb="approve"]').click();
    await row(1).locator('[data-verb="reject"]').click();
    await row(1).locator('textarea').fill('too risky');
    await row(1).locator('.jp-AgentPanel-confirm').click();
    await review.locator('.jp-AgentPanel-reviewSubmit').click();

    const answer = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(answer).toContainText(
      'execute: User rejected the tool call for execute with reason: too risky'
    );
    await expect(answer).toContainText(
      'write_file: wrote 11 chars to notes.md'
    );
    await expect(answer).not.toContainText('ran: rm -rf build');
    await waitIdle(panel);
    // Streamed token by token, shown once.
    expect((await answer.innerText()).split('Tool results:')).toHaveLength(2);
  });
});

/** The panel, its answer counting on the deployment as far as tick3, and the chats' threads. */
async function countingOn(page: IJupyterLabPageFixture, message: string) {
  const threads = chatThreads(page, 'team-ticking');
  const panel = await openPanel(page);
  await send(panel, message);
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
    'tick3'
  );
  return { panel, threads };
}

test.describe('a deployment streaming a long answer', () => {
  test.use({ mockSettings: graphEndpoint('team-ticking') });

  test('Stop ends the turn and cancels the run on the Agent Server', async ({
    page
  }) => {
    const { panel, threads } = await countingOn(page, 'count');
    await panel.locator('.jp-AgentPanel-stop').click();
    await expect(
      lastTurn(panel).locator('.jp-AgentPanel-cancelled')
    ).toContainText('Stopped');

    expect(threads).toHaveLength(1);
    await expect.poll(() => runStatuses(threads[0])).toEqual(['interrupted']);
  });

  test('a reload mid-answer joins the run, which goes on on the Agent Server to its end', async ({
    page
  }) => {
    const { panel, threads } = await countingOn(page, 'count ticks=16');

    await page.reload();
    const reloaded = await openPanel(page);
    const turns = reloaded.locator('.jp-AgentPanel-turn');
    await expect(turns).toHaveCount(2);
    await expect(turns.first()).toContainText('Interrupted by a page reload');
    await waitIdle(reloaded);
    // Joined from its start: the whole answer, from the one run.
    await expect(lastTurn(reloaded).locator('.jp-AgentPanel-text')).toHaveText(
      Array.from({ length: 16 }, (_, n) => `tick${n + 1}`).join(' ')
    );
    expect(threads).toHaveLength(1);
    expect(await runStatuses(threads[0])).toEqual(['success']);
  });
});

/** The conversations listed, shown. */
async function conversationRows(panel: Locator): Promise<Locator> {
  await panel.locator('.jp-AgentPanel-conversationsButton').click();
  const list = panel.locator('.jp-AgentPanel-conversations');
  await expect(list).toBeVisible();
  return list.locator('.jp-AgentPanel-conversation');
}

test.describe("a deployment's threads", () => {
  test.use({ mockSettings: graphEndpoint('team-remembering') });

  test('a thread begun elsewhere is listed, opens with its history, goes on and takes a new title', async ({
    page,
    baseURL
  }) => {
    const tag = `Grace ${Date.now()}`;
    const threadId = randomUUID();
    // Begun elsewhere: a turn through the server's route, which no panel saw, so
    // the conversation store lacks it and only the Agent Server keeps it.
    const begun = await page.request.post(
      `${baseURL}/agent-panel/agents/team-remembering/chat`,
      { data: { message: `my name is ${tag}`, thread_id: threadId } }
    );
    expect(begun.status()).toBe(200);
    expect(await begun.text()).toContain(`I remember: my name is ${tag}`);

    const panel = await openPanel(page);
    let rows = await conversationRows(panel);
    const begunRow = rows.filter({ hasText: `my name is ${tag}` });
    await expect(begunRow).toHaveCount(1);
    await begunRow.locator('.jp-AgentPanel-conversationOpen').click();
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      `my name is ${tag}`
    ]);
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      `I remember: my name is ${tag}`
    );

    // It goes on, on the same thread, which remembers the first turn.
    await send(panel, 'what is my name?');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      `I remember: my name is ${tag} | what is my name?`
    );
    await waitIdle(panel);

    rows = await conversationRows(panel);
    await rows
      .filter({ hasText: `my name is ${tag}` })
      .locator('.jp-AgentPanel-conversation-rename')
      .click();
    const input = panel.locator('.jp-AgentPanel-conversationRename');
    await input.fill(`Grace's thread ${tag}`);
    await input.press('Enter');
    const thread = `${AGENT_SERVER}/threads/${threadId}`;
    await expect
      .poll(async () => (await (await fetch(thread)).json()).metadata.title)
      .toBe(`Grace's thread ${tag}`);

    // This server keeps it now: after a reload it is listed once, with both turns.
    await page.reload();
    const reloaded = await openPanel(page);
    rows = await conversationRows(reloaded);
    await expect(rows.filter({ hasText: tag })).toHaveCount(1);
    const stored = await (
      await page.request.get(
        `${baseURL}/agent-panel/conversations?q=${encodeURIComponent(tag)}`
      )
    ).json();
    expect(
      stored.conversations.map(
        (c: { threadId: string; entryCount: number }) => [
          c.threadId,
          c.entryCount
        ]
      )
    ).toEqual([[threadId, 4]]);
  });
});

test.describe("a deployment's thread with a run in flight", () => {
  test.use({ mockSettings: graphEndpoint('team-ticking') });

  test('listed as running, it opens with its message and joins the run to its end', async ({
    page,
    baseURL
  }) => {
    // Whose threads the lab's server lists: the owner it gives the threads it makes.
    const probe = randomUUID();
    await page.request.post(`${baseURL}/agent-panel/agents/team-ticking/chat`, {
      data: { message: 'ticks=1', thread_id: probe }
    });
    const { metadata } = await (
      await fetch(`${AGENT_SERVER}/threads/${probe}`)
    ).json();
    // Begun elsewhere and still going: a background run, streamed token by token.
    const tag = `ticks=12 ${Date.now()}`;
    const created = await fetch(`${AGENT_SERVER}/threads`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { ...metadata, title: tag } })
    });
    const { thread_id: threadId } = await created.json();
    const started = await fetch(`${AGENT_SERVER}/threads/${threadId}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        assistant_id: 'ticking',
        input: { messages: [{ role: 'user', content: tag }] },
        stream_mode: ['messages-tuple', 'updates'],
        stream_resumable: true
      })
    });
    expect(started.status).toBe(200);
    await expect.poll(() => runStatuses(threadId)).toEqual(['running']);

    const panel = await openPanel(page);
    const rows = await conversationRows(panel);
    const row = rows.filter({ hasText: tag });
    await expect(row.locator('.jp-AgentPanel-conversationBadge')).toHaveCount(
      1
    );
    await row.locator('.jp-AgentPanel-conversationOpen').click();

    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([tag]);
    // Joined from its start, followed to its end.
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      Array.from({ length: 12 }, (_, n) => `tick${n + 1}`).join(' ')
    );
    await waitIdle(panel);
    await expect(panel.locator('.jp-AgentPanel-turn')).toHaveCount(1);
    expect(await runStatuses(threadId)).toEqual(['success']);
  });
});

test.describe('a deployment that fails (issue 34 item 5)', () => {
  test.describe('a graph that raises', () => {
    test.use({ mockSettings: graphEndpoint('team-failing') });

    test('shows its exception, as the same graph served locally does', async ({
      page
    }) => {
      const panel = await openPanel(page);
      await send(panel, 'try it');
      const banner = lastTurn(panel).locator('.jp-AgentPanel-error');
      await expect(banner).toContainText('The turn failed');
      await expect(banner).toContainText(
        'RuntimeError: the test graph failed on purpose'
      );
      await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
        'Partial answer before the failure'
      );
    });
  });

  test.describe('an Agent Server that stops', () => {
    const port = process.env.AGENT_PANEL_COMEBACK_PORT;
    test.use({ mockSettings: graphEndpoint('team-comeback') });
    let server: ChildProcess | null = null;

    test.afterEach(async () => {
      await stopServer(server);
    });

    test('the turn says it cannot reach it, and the health says so at once', async ({
      page
    }) => {
      server = spawn(
        process.env.PYTHON ?? 'python',
        [
          '../jupyterlab_agent_panel/tests/agent_server.py',
          '--port',
          `${port}`
        ],
        { stdio: 'ignore' }
      );
      await waitForUrl(`http://127.0.0.1:${port}/ok`);
      const panel = await openPanel(page);
      const health = panel.locator('.jp-AgentPanel-health');
      // A check made before the server came up is kept for the lab's
      // load_retry_seconds (30 s): clicking the health checks again.
      await expect(async () => {
        await health.click();
        await expect(health).toContainText('Ready', { timeout: 2000 });
      }).toPass({ timeout: 60000 });
      await send(panel, 'my name is Ada');
      await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
        'I remember: my name is Ada'
      );
      await waitIdle(panel);

      await stopServer(server);
      server = null;
      await send(panel, 'what is my name?');
      const banner = lastTurn(panel).locator('.jp-AgentPanel-error');
      await expect(banner).toContainText('ConnectError');
      // The failed turn had the health checked again: not the next
      // periodic check, a minute later.
      await expect(health).toContainText('Unreachable');
      await expect(health).toHaveAttribute(
        'aria-label',
        new RegExp(
          `The Agent Server at http://127.0.0.1:${port} is unreachable: ConnectError`
        )
      );
    });
  });
});

async function stopServer(server: ChildProcess | null): Promise<void> {
  if (server === null || server.exitCode !== null) {
    return;
  }
  const exited = new Promise(resolve => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
}
