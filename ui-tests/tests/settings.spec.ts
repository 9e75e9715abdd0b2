/**
 * Settings and endpoints in a real lab: a change in the Settings Editor
 * applies without a reload, the header's picker moves a conversation (and a
 * reload reconnects it), "Test connection" names each failure, and an
 * external endpoint gets its configured headers and no Jupyter credentials.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as path from 'path';

import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test
} from '@jupyterlab/galata';
import type { Locator, Page } from '@playwright/test';
import {
  BUILT_IN_NAMES,
  lastTurn,
  openPanel,
  PLUGIN_ID,
  send,
  waitIdle
} from './review-panel-helpers';

const PYTHON = process.env.PYTHON ?? 'python';
const LAB_ORIGIN = `http://127.0.0.1:${process.env.AGENT_PANEL_UI_PORT || '8899'}`;

/** Two free loopback ports: one for the recorder, one left closed. */
const [RECORDER_PORT, CLOSED_PORT] = JSON.parse(
  execFileSync(PYTHON, [
    '-c',
    [
      'import json, socket',
      'socks = [socket.socket() for _ in range(2)]',
      '[s.bind(("127.0.0.1", 0)) for s in socks]',
      'print(json.dumps([s.getsockname()[1] for s in socks]))'
    ].join('\n')
  ]).toString()
) as number[];

const ENDPOINTS = [
  { name: 'Demo', transport: 'http', url: 'agent-panel/' },
  { name: 'Echo', transport: 'http', url: 'agent-panel/agents/echo/' },
  {
    name: 'Closed port',
    transport: 'http',
    url: `http://127.0.0.1:${CLOSED_PORT}/agent/`
  },
  { name: 'Wrong path', transport: 'http', url: 'agent-panel/agents/nope/' }
];

function useSettings(settings: Record<string, unknown>): void {
  test.use({
    mockSettings: { ...galata.DEFAULT_SETTINGS, [PLUGIN_ID]: settings }
  });
}

/**
 * Resolves with the next chat request to `route` (e.g. `agents/echo/`);
 * Jupyter requests carry a cache-busting query.
 */
function nextChat(page: Page, route: string) {
  return page.waitForRequest(
    request =>
      request.method() === 'POST' &&
      new URL(request.url()).pathname.endsWith(`/agent-panel/${route}chat`)
  );
}

/** The echo graph answers with the message itself: not the demo's words. */
async function expectEcho(panel: Locator, text: string): Promise<void> {
  const answer = lastTurn(panel).locator('.jp-AgentPanel-text');
  await expect(answer).toContainText(text);
  await expect(answer).not.toContainText('(demo agent)');
  await waitIdle(panel);
}

function picker(panel: Locator): Locator {
  return panel.locator('.jp-AgentPanel-picker');
}

/** Type `settings` into the Advanced (JSON) Settings Editor and save them. */
async function saveUserSettings(
  page: IJupyterLabPageFixture,
  settings: Record<string, unknown>
): Promise<void> {
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('settingeditor:open-json', {})
  );
  await page.locator(`.jp-PluginList-entry[data-id="${PLUGIN_ID}"]`).click();
  const editors = page.locator('.jp-SettingsRawEditor .jp-CodeMirrorEditor');
  // The first editor shows the system defaults (read-only); the second is yours.
  const user = editors.nth(1).locator('.cm-content');
  await user.click();
  await page.keyboard.press('Control+A');
  // One insertion, so the editor's bracket closing does not interfere.
  await page.keyboard.insertText(JSON.stringify(settings, null, 2));
  const save = page.locator('jp-button[data-command="settingeditor:save"]');
  await expect(save).toHaveAttribute('aria-disabled', 'false');
  // The save button's own shortcut, as the focus is in the editor.
  await page.keyboard.press('Control+S');
  await expect(save).toHaveAttribute('aria-disabled', 'true');
}

function toast(page: Page, text: string): Locator {
  return page.locator('.Toastify__toast').filter({ hasText: text });
}

test.describe('the Settings Editor', () => {
  test('a new endpoint URL applies to the next message without a reload', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'hello');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      '(demo agent) You said: hello'
    );
    await waitIdle(panel);

    await saveUserSettings(page, {
      endpoints: [
        {
          name: 'Built-in agent (server)',
          transport: 'http',
          url: 'agent-panel/agents/echo/'
        }
      ]
    });
    await expect(panel.locator('.jp-AgentPanel-endpoint')).toHaveText(
      /\/agent-panel\/agents\/echo\/$/
    );
    const chat = nextChat(page, 'agents/echo/');
    await send(panel, 'ping from the settings editor');
    await chat;
    await expectEcho(panel, 'ping from the settings editor');
    // Still the same conversation: both questions are in it.
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      'hello',
      'ping from the settings editor'
    ]);
  });

  test('a value the schema cannot judge is reported with its field', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await saveUserSettings(page, {
      endpoints: [
        { name: 'Echo', transport: 'http', url: 'agent-panel/agents/echo/' },
        { name: 'Echo', transport: 'http', url: 'agent-panel/' }
      ],
      defaultEndpoint: 'Echo'
    });
    await expect(
      toast(
        page,
        'Agent Panel settings: endpoints[1].name: the name "Echo" is used by another endpoint'
      )
    ).toBeVisible();
    // The valid part applies: the first "Echo" is used.
    await expect(picker(panel).locator('option')).toHaveText([
      'Echo',
      ...BUILT_IN_NAMES
    ]);
    const chat = nextChat(page, 'agents/echo/');
    await send(panel, 'still echoing');
    await chat;
    await expectEcho(panel, 'still echoing');
  });
});

test.describe('the endpoint picker', () => {
  useSettings({ endpoints: ENDPOINTS, defaultEndpoint: 'Demo' });

  test('moves the conversation, which a reload reconnects to its endpoint', async ({
    page,
    baseURL
  }) => {
    let panel = await openPanel(page);
    await expect(picker(panel)).toHaveValue('Demo');
    await expect(picker(panel).locator('option')).toHaveText([
      ...ENDPOINTS.map(endpoint => endpoint.name),
      ...BUILT_IN_NAMES
    ]);
    await picker(panel).selectOption('Echo');
    await expect(panel.locator('.jp-AgentPanel-endpoint')).toHaveText(
      /\/agent-panel\/agents\/echo\/$/
    );
    let chat = nextChat(page, 'agents/echo/');
    await send(panel, 'ping');
    await chat;
    await expectEcho(panel, 'ping');

    // The server's conversation store has the conversation on Echo.
    await expect
      .poll(
        async () => {
          const response = await page.request.get(
            `${baseURL}/agent-panel/conversations`
          );
          const { conversations } = response.ok()
            ? await response.json()
            : { conversations: [] };
          return conversations.some(
            (summary: { endpointName: string; entryCount: number }) =>
              summary.endpointName === 'Echo' && summary.entryCount === 2
          );
        },
        { timeout: 30000 }
      )
      .toBe(true);
    await page.reload();
    panel = await openPanel(page);
    await expect(picker(panel)).toHaveValue('Echo');
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText(['ping']);
    chat = nextChat(page, 'agents/echo/');
    await send(panel, 'after the reload');
    await chat;
    await expectEcho(panel, 'after the reload');

    // A new conversation starts on the default endpoint.
    await panel.locator('.jp-AgentPanel-newChat').click();
    await expect(picker(panel)).toHaveValue('Demo');
    chat = nextChat(page, '');
    await send(panel, 'hello');
    await chat;
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      '(demo agent) You said: hello'
    );
  });
});

test.describe('Test connection', () => {
  useSettings({ endpoints: ENDPOINTS, defaultEndpoint: 'Demo' });

  async function testConnection(panel: Locator, endpoint: string) {
    await picker(panel).selectOption(endpoint);
    await panel.locator('.jp-AgentPanel-testConnection').click();
    const report = panel.locator('.jp-AgentPanel-connectionReport');
    await expect(report).not.toHaveAttribute('data-verdict', 'testing');
    return report;
  }

  test('names a live endpoint, a closed port and a wrong path apart', async ({
    page
  }) => {
    const panel = await openPanel(page);

    let report = await testConnection(panel, 'Echo');
    await expect(report).toHaveAttribute('data-verdict', 'ok');
    await expect(report.locator('.jp-AgentPanel-connectionSummary')).toHaveText(
      'Echo: Connected: Echo Test Agent'
    );
    await expect(toast(page, 'Echo: Connected: Echo Test Agent')).toBeVisible();

    report = await testConnection(panel, 'Closed port');
    await expect(report).toHaveAttribute('data-verdict', 'refused');
    const refused = `Closed port: Connection refused: nothing listens at 127.0.0.1:${CLOSED_PORT}`;
    await expect(report.locator('.jp-AgentPanel-connectionSummary')).toHaveText(
      refused
    );
    await expect(
      report.locator('.jp-AgentPanel-connectionDetail')
    ).toContainText(
      `From the Jupyter server: nothing listens at 127.0.0.1:${CLOSED_PORT} (connection refused)`
    );
    await expect(toast(page, refused)).toBeVisible();

    report = await testConnection(panel, 'Wrong path');
    await expect(report).toHaveAttribute('data-verdict', 'not_found');
    const notFound = 'Wrong path: Not found (HTTP 404): wrong path';
    await expect(report.locator('.jp-AgentPanel-connectionSummary')).toHaveText(
      notFound
    );
    await expect(
      report.locator('.jp-AgentPanel-connectionDetail')
    ).toContainText("No agent named 'nope'");
    await expect(toast(page, notFound)).toBeVisible();
  });

  test('runs from the command palette', async ({ page }) => {
    const panel = await openPanel(page);
    await picker(panel).selectOption('Echo');
    await page.keyboard.press('Control+Shift+C');
    await page.keyboard.type('Test Agent Connection');
    await page.keyboard.press('Enter');
    await expect(panel.locator('.jp-AgentPanel-connectionSummary')).toHaveText(
      'Echo: Connected: Echo Test Agent'
    );
  });
});

test.describe('an external endpoint', () => {
  const AGENT = `http://127.0.0.1:${RECORDER_PORT}/agent/`;
  const CANARY = 'canary-jupyter-token-7f3a';
  useSettings({
    endpoints: [
      {
        name: 'External',
        transport: 'http',
        url: AGENT,
        headers: { Authorization: 'Bearer test-123' }
      }
    ],
    defaultEndpoint: 'External'
  });

  let recorder: ChildProcess | null = null;

  test.beforeAll(async () => {
    recorder = spawn(
      PYTHON,
      [
        path.join(__dirname, '..', 'header_recorder.py'),
        '--port',
        String(RECORDER_PORT),
        '--origin',
        LAB_ORIGIN
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] }
    );
    for (let attempt = 0; attempt < 120; attempt++) {
      try {
        if ((await fetch(`http://127.0.0.1:${RECORDER_PORT}/__requests`)).ok) {
          return;
        }
      } catch {
        // not listening yet
      }
      await new Promise(resolve => setTimeout(resolve, 250));
    }
    throw new Error('the header recorder did not start');
  });

  test.afterAll(() => {
    recorder?.kill();
  });

  test('gets its configured header and no Jupyter token, XSRF header or cookie', async ({
    page
  }) => {
    const panel = await openPanel(page);
    // The test lab runs without a token: give it one, so a leak would show.
    await page.evaluate(token => {
      (
        window.jupyterapp.serviceManager.serverSettings as { token: string }
      ).token = token;
    }, CANARY);
    const xsrf = (await page.context().cookies()).find(
      cookie => cookie.name === '_xsrf'
    )?.value;
    expect(xsrf).toBeTruthy();
    // Jupyter's own requests do carry both now.
    const jupyterRequest = page.waitForRequest(request =>
      request.url().includes('/api/contents')
    );
    await page.evaluate(() =>
      window.jupyterapp.serviceManager.contents.get('', { content: false })
    );
    const own = await (await jupyterRequest).allHeaders();
    expect(own['authorization']).toBe(`token ${CANARY}`);
    expect(own['x-xsrftoken']).toBe(xsrf);

    await send(panel, 'hello');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      'recorded: hello'
    );
    await waitIdle(panel);
    await panel.locator('.jp-AgentPanel-testConnection').click();
    await expect(panel.locator('.jp-AgentPanel-connectionSummary')).toHaveText(
      'External: Connected: Header Recorder'
    );

    const recorded = (await (
      await fetch(`http://127.0.0.1:${RECORDER_PORT}/__requests`)
    ).json()) as {
      method: string;
      path: string;
      headers: Record<string, string>;
    }[];
    const requests = recorded.map(request => ({
      ...request,
      headers: Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name.toLowerCase(),
          value
        ])
      )
    }));
    const chat = requests.filter(
      r => r.method === 'POST' && r.path === '/agent/chat'
    );
    const health = requests.filter(
      r => r.method === 'GET' && r.path.startsWith('/agent/health')
    );
    expect(chat).toHaveLength(1);
    expect(health.length).toBeGreaterThan(0);
    for (const request of [...chat, ...health]) {
      expect(request.headers['authorization']).toBe('Bearer test-123');
      expect(request.headers['origin']).toBe(LAB_ORIGIN);
    }
    for (const request of requests) {
      const where = `${request.method} ${request.path}`;
      expect(request.headers['cookie'], where).toBeUndefined();
      expect(request.headers['x-xsrftoken'], where).toBeUndefined();
      expect(request.path, where).not.toMatch(/[?&]token=/);
      const everything = JSON.stringify(request);
      expect(everything, where).not.toContain(CANARY);
      expect(everything, where).not.toContain(xsrf!);
    }
  });
});
