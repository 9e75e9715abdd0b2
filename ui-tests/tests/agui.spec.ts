/**
 * The panel against real AG-UI endpoints, started by this file on 127.0.0.1:
 * `langstage-agui --demo=tools --cors` (HTTP + SSE) and the chanx websocket
 * test server (scripts/agui_ws_server.py) driving the same demo agent, plus a
 * slow graph behind each for Stop, and a graph that reports what its
 * checkpoint holds, to show that the whole conversation the panel sends
 * with each run is not added to the server's history twice.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as path from 'path';

import { expect, galata, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import {
  lastTurn,
  openPanel,
  PLUGIN_ID,
  send,
  startFresh,
  waitForUrl,
  waitIdle
} from './review-panel-helpers';

const ROOT = path.resolve(__dirname, '..', '..');
const GRAPHS = path.join(ROOT, 'ui-tests', 'graphs');
const SLOW_GRAPH = `${path.join(GRAPHS, 'slow.py')}:graph`;
const HISTORY_GRAPH = `${path.join(GRAPHS, 'history_count.py')}:graph`;
const PYTHON = process.env.PYTHON ?? 'python';

/** Six free loopback ports, found before the settings are declared. */
const [HTTP_DEMO, HTTP_SLOW, WS_DEMO, WS_SLOW, HTTP_HISTORY, WS_HISTORY] =
  JSON.parse(
    execFileSync(PYTHON, [
      '-c',
      [
        'import json, socket',
        'socks = [socket.socket() for _ in range(6)]',
        '[s.bind(("127.0.0.1", 0)) for s in socks]',
        'print(json.dumps([s.getsockname()[1] for s in socks]))'
      ].join('\n')
    ]).toString()
  ) as number[];

const ENDPOINTS = {
  'AG-UI demo': `http://127.0.0.1:${HTTP_DEMO}/`,
  'AG-UI slow': `http://127.0.0.1:${HTTP_SLOW}/`,
  'AG-UI socket': `ws://127.0.0.1:${WS_DEMO}/ws/agent`,
  'AG-UI socket slow': `ws://127.0.0.1:${WS_SLOW}/ws/agent`,
  'AG-UI history': `http://127.0.0.1:${HTTP_HISTORY}/`,
  'AG-UI socket history': `ws://127.0.0.1:${WS_HISTORY}/ws/agent`
};

function useEndpoint(name: keyof typeof ENDPOINTS): void {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN_ID]: {
        endpoints: Object.entries(ENDPOINTS).map(([endpoint, url]) => ({
          name: endpoint,
          transport: 'agui',
          url
        })),
        defaultEndpoint: name
      }
    }
  });
}

const servers: ChildProcess[] = [];

function start(command: string, args: string[]): void {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PYTHONPATH: [GRAPHS, process.env.PYTHONPATH].filter(Boolean).join(':')
    },
    stdio: ['ignore', 'ignore', 'inherit']
  });
  servers.push(child);
}

test.beforeAll(async () => {
  test.setTimeout(120000);
  const agui = (port: number, ...agent: string[]) =>
    start('langstage-agui', [
      ...agent,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      // Bare --cors allows loopback origins: the lab's is one.
      '--cors'
    ]);
  const chanx = (port: number, ...agent: string[]) =>
    start(PYTHON, [
      path.join(ROOT, 'scripts', 'agui_ws_server.py'),
      '--port',
      String(port),
      ...agent
    ]);
  agui(HTTP_DEMO, '--demo=tools');
  agui(HTTP_SLOW, '--agent', SLOW_GRAPH);
  chanx(WS_DEMO);
  chanx(WS_SLOW, '--agent', SLOW_GRAPH);
  agui(HTTP_HISTORY, '--agent', HISTORY_GRAPH);
  chanx(WS_HISTORY, '--agent', HISTORY_GRAPH);
  await Promise.all([
    waitForUrl(ENDPOINTS['AG-UI demo']),
    waitForUrl(ENDPOINTS['AG-UI slow']),
    waitForUrl(ENDPOINTS['AG-UI history']),
    waitForUrl(`http://127.0.0.1:${WS_DEMO}/health`),
    waitForUrl(`http://127.0.0.1:${WS_SLOW}/health`),
    waitForUrl(`http://127.0.0.1:${WS_HISTORY}/health`)
  ]);
});

test.afterAll(() => {
  for (const server of servers) {
    server.kill();
  }
});

/** The four demo paths, the same over either transport. */
async function demoConversation(panel: Locator): Promise<void> {
  await send(panel, 'hello');
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
    '(demo agent) You said: hello'
  );
  await waitIdle(panel);

  await send(panel, 'think about it');
  const thought = lastTurn(panel);
  await expect(thought.locator('.jp-AgentPanel-text')).toContainText(
    'Done reasoning'
  );
  await waitIdle(panel);
  const reasoning = thought.locator('details.jp-AgentPanel-reasoning');
  await reasoning.locator('summary').click();
  await expect(reasoning).toContainText(
    'Let me reason about this step by step.'
  );

  await send(panel, 'use a tool');
  const used = lastTurn(panel);
  await expect(used.locator('.jp-AgentPanel-text')).toContainText(
    'That completes the tool_start -> tool_end -> extraction flow.'
  );
  const tool = used.locator('.jp-AgentPanel-tool');
  await expect(tool).toHaveCount(1);
  await expect(tool.locator('.jp-AgentPanel-toolLabel')).toHaveText(
    'demo_lookup(query: "use a tool")'
  );
  await expect(tool.locator('.jp-AgentPanel-toolStatus')).toHaveText('Done');
  await tool.locator('.jp-AgentPanel-toolToggle').click();
  await expect(tool.locator('.jp-AgentPanel-toolDetails dl')).toHaveText([
    'queryuse a tool',
    /answer42/
  ]);
  await waitIdle(panel);

  await send(panel, 'ask me a question');
  const review = panel.locator('.jp-AgentPanel-review').last();
  await expect(review).toContainText('ask_user');
  await expect(review.locator('[data-verb]')).toHaveText([
    'Respond',
    'Approve'
  ]);
  await review.locator('[data-verb="respond"]').click();
  await review.locator('textarea').fill('Ada');
  await review.locator('.jp-AgentPanel-confirm').click();
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
    "Resumed. Your decision was: {'decisions': [{'type': 'respond', 'message': 'Ada'}]}."
  );
  await waitIdle(panel);
  await expect(panel.locator('.jp-AgentPanel-input')).toBeEnabled();
}

/**
 * Three turns, one with a tool call, each sending the whole conversation:
 * the graph's checkpoint holds each message once, and the tokens its model
 * reports show under the turn.
 */
async function historyOnce(panel: Locator): Promise<void> {
  for (const [text, answer] of [
    ['hello', 'Checkpoint: 1 messages, 1 distinct ids, 1 from the user.'],
    [
      'use the tool',
      'Checkpoint: 5 messages, 5 distinct ids, 2 from the user.'
    ],
    ['three', 'Checkpoint: 7 messages, 7 distinct ids, 3 from the user.']
  ]) {
    await send(panel, text);
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      answer
    );
    await waitIdle(panel);
  }
  // The graph's model reports LangChain usage metadata; the adapter sends it
  // on RUN_FINISHED: a token per message read, one per word written.
  await expect(lastTurn(panel).locator('.jp-AgentPanel-usage')).toHaveText(
    '7 tokens in · 10 out'
  );
}

/** Stop a slow run: the partial answer stays and nothing more arrives. */
async function stopMidRun(panel: Locator, wait: (ms: number) => Promise<void>) {
  await send(panel, 'count');
  const text = lastTurn(panel).locator('.jp-AgentPanel-text');
  await expect(text).toContainText('tick3');
  await panel.locator('.jp-AgentPanel-stop').click();
  await expect(
    lastTurn(panel).locator('.jp-AgentPanel-cancelled')
  ).toBeVisible();
  await waitIdle(panel);
  const stoppedAt = await text.textContent();
  await wait(1500);
  expect(await text.textContent()).toBe(stoppedAt);
  expect(stoppedAt).not.toContain('tick120');
}

test.describe('AG-UI over HTTP (langstage-agui --demo=tools)', () => {
  useEndpoint('AG-UI demo');

  test('hello, reasoning, a tool, and a review answered with Respond', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await expect(panel.locator('.jp-AgentPanel-health')).toContainText('Ready');
    await demoConversation(panel);
  });
});

test.describe('AG-UI over HTTP, slow graph', () => {
  useEndpoint('AG-UI slow');

  test('Stop ends the run as cancelled', async ({ page }) => {
    await stopMidRun(await openPanel(page), ms => page.waitForTimeout(ms));
  });
});

test.describe('AG-UI over a chanx websocket', () => {
  useEndpoint('AG-UI socket');

  test('hello, reasoning, a tool, and a review answered with Respond', async ({
    page
  }) => {
    await demoConversation(await openPanel(page));
  });
});

test.describe('AG-UI over a chanx websocket, slow graph', () => {
  useEndpoint('AG-UI socket slow');

  test('Stop sends ag_ui_cancel and ends the run as cancelled', async ({
    page
  }) => {
    await stopMidRun(await openPanel(page), ms => page.waitForTimeout(ms));
  });
});

test.describe('AG-UI over HTTP, a graph that counts its checkpoint', () => {
  useEndpoint('AG-UI history');

  test('the whole conversation sent with each run is not stored twice', async ({
    page
  }) => {
    await historyOnce(await startFresh(page));
  });

  test('an edited message sends the history cut before it, and the server goes back too', async ({
    page
  }) => {
    const panel = await startFresh(page);
    const answer = lastTurn(panel).locator('.jp-AgentPanel-text');
    for (const [text, count] of [
      ['hello', 'Checkpoint: 1 messages, 1 distinct ids, 1 from the user.'],
      ['two', 'Checkpoint: 3 messages, 3 distinct ids, 2 from the user.'],
      ['three', 'Checkpoint: 5 messages, 5 distinct ids, 3 from the user.']
    ]) {
      await send(panel, text);
      await expect(answer).toHaveText(count);
      await waitIdle(panel);
    }
    const runs: { role: string; content: unknown }[][] = [];
    page.on('request', request => {
      if (
        request.method() === 'POST' &&
        request.url().startsWith(ENDPOINTS['AG-UI history'])
      ) {
        runs.push(request.postDataJSON().messages);
      }
    });

    const two = panel
      .locator('.jp-AgentPanel-userMessage')
      .filter({ has: page.getByText('two', { exact: true }) });
    await two.locator('.jp-AgentPanel-branch-edit').click();
    await two.locator('.jp-AgentPanel-userEditor').fill('TWO');
    await two.locator('.jp-AgentPanel-branch-send').click();

    // The server's thread went back to before "two" (the message kept its id).
    await expect(answer).toHaveText(
      'Checkpoint: 3 messages, 3 distinct ids, 2 from the user.'
    );
    await waitIdle(panel);
    // Not over AG-UI: such a server takes an unchanged message as a continuation.
    const regenerate = lastTurn(panel).locator('.jp-AgentPanel-regenerate');
    await expect(regenerate).toBeDisabled();
    await expect(regenerate).toHaveAttribute('title', /edit the message/);
    expect(runs).toHaveLength(1);
    expect(runs[0].map(message => [message.role, message.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'Checkpoint: 1 messages, 1 distinct ids, 1 from the user.'],
      ['user', 'TWO']
    ]);
  });
});

test.describe('AG-UI over a chanx websocket, a graph that counts its checkpoint', () => {
  useEndpoint('AG-UI socket history');

  test('the whole conversation sent with each run is not stored twice', async ({
    page
  }) => {
    await historyOnce(await startFresh(page));
  });
});
