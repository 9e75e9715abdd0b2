/**
 * The panel as a conforming AG-UI client, against a stateless AG-UI 1.0
 * server (ui-tests/stateless_agui_server.py, ag-ui-protocol's encoder) that
 * keeps nothing between runs and answers from each RunAgentInput alone:
 * the conversation, the shared state, the answers to its interrupts and the
 * results of client tools all have to come from the panel. The server is
 * started on 127.0.0.1 by this file and stopped by it.
 */
import type { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test
} from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import {
  freePort,
  lastTurn,
  openPanel,
  PLUGIN_ID,
  send,
  startAguiTestServer,
  startFresh,
  waitIdle
} from './review-panel-helpers';

const ROOT = path.resolve(__dirname, '..', '..');
/** The notebook tools as every AG-UI run offers them. */
const NOTEBOOK_TOOLS: {
  tools: { name: string; description: string; parameters: unknown }[];
} = JSON.parse(
  fs.readFileSync(
    path.join(ROOT, 'src', 'contracts', 'notebook-tools.json'),
    'utf-8'
  )
);
const PYTHON = process.env.PYTHON ?? 'python';

const PORT = freePort(PYTHON);
const URL = `http://127.0.0.1:${PORT}/`;

/** The arguments of the test tool `echo`. */
const ECHO_PARAMETERS = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text']
};
const ENDPOINT = 'Stateless AG-UI';

test.use({
  mockSettings: {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN_ID]: {
      endpoints: [{ name: ENDPOINT, transport: 'agui', url: URL }],
      defaultEndpoint: ENDPOINT
    }
  }
});

let server: ChildProcess | null = null;

test.beforeAll(async () => {
  server = await startAguiTestServer('stateless_agui_server.py', PORT, PYTHON);
});

test.afterAll(() => {
  server?.kill();
});

/** Every RunAgentInput the server received, in order. */
async function inputs(): Promise<Record<string, any>[]> {
  return (await fetch(`${URL}_inputs`)).json();
}

/** The inputs of one conversation (thread), in order. */
async function inputsOf(threadId: string): Promise<Record<string, any>[]> {
  return (await inputs()).filter(input => input.threadId === threadId);
}

/** The thread of the conversation the last input belongs to. */
async function lastThread(): Promise<string> {
  const all = await inputs();
  return all[all.length - 1].threadId;
}

async function answerOf(panel: Locator, text: string): Promise<Locator> {
  await send(panel, text);
  await waitIdle(panel);
  return lastTurn(panel).locator('.jp-AgentPanel-text').last();
}

/**
 * Offer the test tool `echo` through the public `IAgentPanel` API, as
 * another plugin would: the token comes from the panel plugin the
 * extension's module federation container exports, the service from the
 * application. It records its calls in `window.echoCalls`.
 */
async function registerEchoTool(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(async parameters => {
    const scope = window as any;
    const container = scope._JUPYTERLAB['jupyterlab-agent-panel'];
    const extension = (await container.get('./extension'))();
    const plugins: any[] = extension.default;
    const token = plugins.find(
      plugin => plugin.id === 'jupyterlab-agent-panel:plugin'
    ).provides;
    const panel = await scope.jupyterapp.resolveRequiredService(token);
    scope.echoCalls = [];
    panel.registerClientTool({
      name: 'echo',
      description: 'Say the text back.',
      parameters,
      run: async (args: { text: string }) => {
        scope.echoCalls.push(args);
        return { echoed: args.text };
      }
    });
  }, ECHO_PARAMETERS);
}

test('three turns carry the whole conversation and the state, also after a reload', async ({
  page
}) => {
  const panel = await startFresh(page);
  await expect(await answerOf(panel, 'one')).toHaveText(
    'Reply 1. Seen: user:one. turns_seen=1'
  );
  await expect(await answerOf(panel, 'two')).toHaveText(
    'Reply 2. Seen: user:one, assistant:Reply, user:two. turns_seen=2'
  );
  const third = await answerOf(panel, 'three');
  await expect(third).toHaveText(
    'Reply 3. Seen: user:one, assistant:Reply, user:two, assistant:Reply, user:three. turns_seen=3'
  );
  // The run's tokens under the turn, the conversation's in the header.
  await expect(lastTurn(panel).locator('.jp-AgentPanel-usage')).toHaveText(
    '50 tokens in · 5 out'
  );
  await expect(panel.locator('.jp-AgentPanel-endpoint')).toHaveAttribute(
    'title',
    /This conversation: 90 tokens in · 15 out/
  );

  const thread = await lastThread();
  const sent = await inputsOf(thread);
  expect(sent.map(input => input.protocolVersion)).toEqual([
    '1.0',
    '1.0',
    '1.0'
  ]);
  // The ids the panel gave its messages and the ids the stream gave the replies.
  const history = sent[2].messages;
  expect(history.map((message: any) => message.role)).toEqual([
    'user',
    'assistant',
    'user',
    'assistant',
    'user'
  ]);
  expect(history[0]).toEqual(sent[0].messages[0]);
  expect(history[1].id).toBe(`msg-${sent[0].runId}`);
  expect(history[3].id).toBe(`msg-${sent[1].runId}`);
  expect(new Set(history.map((message: any) => message.id)).size).toBe(5);
  expect(sent[2].state).toEqual({ turns_seen: 2 });

  // The thread is the conversation's: it survives a reload with it.
  await page.reload();
  const reloaded = await openPanel(page);
  await expect(reloaded.locator('.jp-AgentPanel-turn')).toHaveCount(3);
  await expect(await answerOf(reloaded, 'four')).toHaveText(
    'Reply 4. Seen: user:one, assistant:Reply, user:two, assistant:Reply, user:three, assistant:Reply, user:four. turns_seen=4'
  );
  expect((await inputsOf(thread)).length).toBe(4);
});

test('a POST-only endpoint (405 on GET) is Ready and is not asked again', async ({
  page
}) => {
  const gets: string[] = [];
  page.on('request', request => {
    if (request.method() === 'GET' && request.url() === URL) {
      gets.push(request.url());
    }
  });
  // A page that loads with the listener on: its panel probes the endpoint.
  await page.reload();
  const panel = await openPanel(page);
  const health = panel.locator('.jp-AgentPanel-health');
  await expect(health).toContainText('Ready');
  await expect(health).toHaveAttribute('title', /reachable \(POST only\)/);
  for (let check = 0; check < 3; check++) {
    await health.click();
  }
  await expect(health).toContainText('Ready');
  expect(gets).toHaveLength(1);
});

test('a 1.0 interrupt is answered through the form its responseSchema describes', async ({
  page
}) => {
  const panel = await startFresh(page);
  await send(panel, 'ask');
  const card = panel.locator('.jp-AgentPanel-request').last();
  await expect(card.locator('.jp-AgentPanel-reviewHeading')).toHaveText(
    'The agent asks for your input (input_required)'
  );
  await expect(card).toContainText('What is your name?');
  const sendButton = card.locator('[data-answer="send"]');
  await expect(sendButton).toBeDisabled();
  await card
    .locator('.jp-AgentPanel-field', { hasText: 'Name' })
    .locator('input')
    .fill('Ada');
  await expect(sendButton).toBeEnabled();
  await sendButton.click();
  await waitIdle(panel);
  const thread = await lastThread();
  const [asked, resumed] = await inputsOf(thread);
  const interruptId = `int-${asked.runId}`;
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    `Resumed ${interruptId}: resolved {"name": "Ada"}. Seen: user:ask, assistant:I.`
  );
  await expect(card).toContainText('Sent:');
  expect(resumed.resume).toEqual([
    { interruptId, status: 'resolved', payload: { name: 'Ada' } }
  ]);
  // A 1.0 request is not a LangGraph review: no decisions envelope.
  expect(resumed.forwardedProps).toEqual({});
  expect(resumed.messages.map((message: any) => message.content)).toEqual([
    'ask',
    'I need your name.'
  ]);
});

test('a tool approval shows on its call, and Dismiss sends "cancelled"', async ({
  page
}) => {
  const panel = await startFresh(page);
  await send(panel, 'confirm');
  const tool = panel
    .locator('.jp-AgentPanel-turn')
    .first()
    .locator('.jp-AgentPanel-tool');
  await expect(tool.locator('.jp-AgentPanel-toolLabel')).toHaveText(
    /^delete_file\(/
  );
  // The request sits right under the call it is about.
  const card = tool.locator('xpath=following-sibling::*[1]');
  await expect(card).toHaveClass(/jp-AgentPanel-request/);
  await expect(card).toContainText('Delete notes.txt?');
  await expect(card.locator('[data-answer]')).toHaveText([
    'Approve',
    'Reject',
    'Dismiss'
  ]);
  await card.locator('[data-answer="dismiss"]').click();
  await waitIdle(panel);
  const [asked, resumed] = await inputsOf(await lastThread());
  const interruptId = `int-${asked.runId}`;
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    `Resumed ${interruptId}: cancelled null. Seen: user:confirm, assistant:I, call:delete_file.`
  );
  expect(resumed.resume).toEqual([{ interruptId, status: 'cancelled' }]);
  await expect(card).toContainText('Dismissed');
});

test('an expired request says so and sends nothing', async ({ page }) => {
  const panel = await startFresh(page);
  await send(panel, 'expire');
  const card = panel.locator('.jp-AgentPanel-request').last();
  await expect(card.locator('.jp-AgentPanel-reviewHeading')).toContainText(
    'This request expired at'
  );
  await expect(card.locator('[data-answer]')).toHaveCount(3);
  await expect(card.locator('.jp-AgentPanel-reviewButtons')).toBeHidden();
  const thread = await lastThread();
  // Nothing waits any more: the conversation goes on with a new message.
  await expect(await answerOf(panel, 'hello')).toHaveText(
    'Reply 2. Seen: user:expire, assistant:This, user:hello. turns_seen=2'
  );
  const sent = await inputsOf(thread);
  expect(sent).toHaveLength(2);
  expect(sent[1].resume).toBeUndefined();
});

test('a client tool the agent calls runs here, and its result goes back in the follow-up run', async ({
  page
}) => {
  const panel = await startFresh(page);
  await registerEchoTool(page);
  await send(panel, 'echo hi');
  await expect(
    panel.locator('.jp-AgentPanel-turn').nth(1).locator('.jp-AgentPanel-text')
  ).toHaveText(
    'The echo tool returned {"echoed":"hi"}. Seen: user:echo, assistant:Calling, call:echo, tool:{"echoed":"hi"}.'
  );
  await waitIdle(panel);
  const tool = panel.locator('.jp-AgentPanel-tool');
  await expect(tool.locator('.jp-AgentPanel-toolStatus')).toHaveText(
    'Done in JupyterLab'
  );
  await tool.locator('.jp-AgentPanel-toolToggle').click();
  // The result reads as keys and values.
  await expect(tool.locator('.jp-AgentPanel-toolDetails dl').last()).toHaveText(
    'echoedhi'
  );
  expect(await page.evaluate(() => (window as any).echoCalls)).toEqual([
    { text: 'hi' }
  ]);
  const [called, followUp] = await inputsOf(await lastThread());
  // The panel's own client tools (the notebook tools, registered when the
  // panel loads, docs/protocol.md §12.9) come first, then the plugin's.
  expect(called.tools).toEqual([
    ...NOTEBOOK_TOOLS.tools.map(({ name, description, parameters }) => ({
      name,
      description,
      parameters
    })),
    {
      name: 'echo',
      description: 'Say the text back.',
      parameters: ECHO_PARAMETERS
    }
  ]);
  const result = followUp.messages[followUp.messages.length - 1];
  expect(result).toMatchObject({
    role: 'tool',
    toolCallId: `call-${called.runId}`,
    content: '{"echoed":"hi"}'
  });
  expect(followUp.messages.map((message: any) => message.role)).toEqual([
    'user',
    'assistant',
    'tool'
  ]);
});
