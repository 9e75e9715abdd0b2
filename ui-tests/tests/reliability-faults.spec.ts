/**
 * Transport faults against a real endpoint that misbehaves on purpose
 * (ui-tests/fault_server.py, another origin on 127.0.0.1): each fault ends
 * the turn with an error that names the endpoint and the cause, keeps what
 * arrived, offers Retry, and leaves the panel usable. Big and many frames
 * stay bounded in memory. No request to the endpoint carries Jupyter
 * credentials.
 */
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator, Request } from '@playwright/test';

import {
  FAULT_URL,
  FaultServer,
  faultEndpoint,
  playwrightPage,
  RequestLog
} from './fault-server';
import { lastTurn, openPanel, send, waitIdle } from './review-panel-helpers';

const CHAT_URL = `${FAULT_URL}chat`;

let server: FaultServer;
let requests: RequestLog;

test.beforeAll(async () => {
  server = await FaultServer.start();
});

test.afterAll(async () => {
  await server.stop();
});

test.beforeEach(async ({ page }) => {
  requests = await RequestLog.attach(page);
});

test.afterEach(async () => {
  // The endpoint is another origin: Jupyter's token, XSRF header and cookies
  // stay home, whatever the fault.
  const sent = requests.toFaultServer();
  expect(sent.length).toBeGreaterThan(0);
  for (const request of sent) {
    expect(Object.keys(request.headers)).not.toContain('authorization');
    expect(Object.keys(request.headers)).not.toContain('x-xsrftoken');
    expect(Object.keys(request.headers)).not.toContain('cookie');
  }
  expect(requests.foreign()).toEqual([]);
});

/** The error banner of the latest turn. */
function banner(panel: Locator): Locator {
  return lastTurn(panel).locator('.jp-AgentPanel-error');
}

/** The panel still chats: a normal turn right after the fault. */
async function stillChats(panel: Locator): Promise<void> {
  await send(panel, 'ok after the fault');
  await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
    'all is well'
  );
  await waitIdle(panel);
}

/** JavaScript heap in use after a full garbage collection, in MB. */
async function heapMb(page: IJupyterLabPageFixture): Promise<number> {
  const cdp = await page.context().newCDPSession(playwrightPage(page));
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize / 1e6;
}

/**
 * A function that resolves once the store holds no running conversation
 * (the panel saves at once when a turn ends) and no save is under way: a
 * save holds the conversation's JSON while it is encoded and sent, which
 * is not what the panel keeps.
 */
function savesSettled(page: IJupyterLabPageFixture): () => Promise<void> {
  const isSave = (request: Request) =>
    request.method() === 'PUT' &&
    request.url().includes('/agent-panel/conversations/');
  let inFlight = 0;
  const browserPage = playwrightPage(page);
  browserPage.on('request', request => {
    inFlight += isSave(request) ? 1 : 0;
  });
  const finished = (request: Request) => {
    inFlight -= isSave(request) ? 1 : 0;
  };
  browserPage.on('requestfinished', finished);
  browserPage.on('requestfailed', finished);
  const storedRunning = async () => {
    const list = await (
      await page.request.get('/agent-panel/conversations')
    ).json();
    return list.conversations.filter(
      (summary: { status: string }) => summary.status === 'running'
    ).length;
  };
  return () =>
    expect
      .poll(async () => (await storedRunning()) + inFlight, {
        timeout: 30_000
      })
      .toBe(0);
}

test.describe('faults with the default timeouts', () => {
  test.use({ mockSettings: faultEndpoint() });

  test('a connection dropped mid-frame keeps the partial answer and names the cause', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'drop');
    await expect(banner(panel)).toContainText(`connection to ${CHAT_URL} lost`);
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      'partial answer before the drop'
    );
    await expect(banner(panel).locator('.jp-AgentPanel-retry')).toBeVisible();
    await stillChats(panel);
  });

  test('HTTP errors with JSON or HTML bodies name the status, the URL and the reason', async ({
    page
  }) => {
    const panel = await openPanel(page);
    const statuses: [number, string][] = [
      [401, 'HTTP 401 Unauthorized'],
      [403, 'HTTP 403 Forbidden'],
      [404, 'HTTP 404 Not Found'],
      [500, 'HTTP 500 Internal Server Error'],
      [502, 'HTTP 502 Bad Gateway']
    ];
    const cases = statuses.flatMap(([code, status]) =>
      ['json', 'html'].map(body => [`http-${code}-${body}`, status])
    );
    for (const [scenario, status] of cases) {
      await send(panel, scenario);
      const message = banner(panel).locator('.jp-AgentPanel-errorMessage');
      await expect(message).toContainText(`${status} from ${CHAT_URL}: `);
      await expect(message).toContainText(
        scenario.endsWith('json')
          ? `fault server says ${scenario.slice(5, 8)}`
          : 'The fault server refused this request on purpose.'
      );
      // An HTML body is shown as text, never rendered.
      await expect(message.locator('h1, p, body')).toHaveCount(0);
      await waitIdle(panel);
    }
    await stillChats(panel);
  });

  test('a wrong content type is named, with what the server said instead', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'type-html');
    await expect(banner(panel)).toContainText(
      `${CHAT_URL} answered with text/html, not an event stream: Welcome to the proxy login page`
    );
    await send(panel, 'type-json');
    await expect(banner(panel)).toContainText(
      `${CHAT_URL} answered with application/json, not an event stream`
    );
    await stillChats(panel);
  });

  test('lines that are not frames become stream notes; the frames around them stay', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'invalid');
    await waitIdle(panel);
    const turn = lastTurn(panel);
    await expect(turn.locator('.jp-AgentPanel-text')).toHaveText(
      'before after'
    );
    await expect(turn.locator('.jp-AgentPanel-error')).toHaveCount(0);
    const notes = turn.locator('.jp-AgentPanel-diagnostics');
    await expect(notes.locator('summary')).toHaveText(/^\d+ stream notes$/);
    await notes.locator('summary').click();
    const items = notes.locator('li');
    expect(await items.count()).toBeGreaterThanOrEqual(4);
    for (const text of await items.allTextContents()) {
      expect(text.startsWith(CHAT_URL)).toBe(true);
    }
  });

  test('a frame split into one-byte writes arrives whole, multi-byte characters included', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'bytewise');
    await waitIdle(panel);
    const turn = lastTurn(panel);
    await expect(turn.locator('.jp-AgentPanel-text').first()).toHaveText(
      'byte by byte: é, ß, 漢字, 😀'
    );
    const tool = turn.locator('.jp-AgentPanel-tool');
    await expect(tool.locator('.jp-AgentPanel-toolLabel')).toHaveText(
      'lookup(q: "ü")'
    );
    // The result is under Details, whole.
    await tool.getByRole('button', { name: 'Details' }).click();
    await expect(tool.locator('.jp-AgentPanel-toolDetails')).toContainText(
      'done ✓'
    );
    await expect(turn.locator('.jp-AgentPanel-error')).toHaveCount(0);
  });

  test('Retry after a failed request sends the message again and gets the answer', async ({
    page
  }) => {
    const panel = await openPanel(page);
    const message = `flaky ${Date.now()}`;
    await send(panel, message);
    await expect(banner(panel)).toContainText(
      `HTTP 502 Bad Gateway from ${CHAT_URL}`
    );
    await banner(panel).locator('.jp-AgentPanel-retry').click();
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      'all is well'
    );
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      message,
      message
    ]);
    const chats = requests
      .toFaultServer()
      .filter(request => request.method === 'POST' && request.url === CHAT_URL);
    expect(chats).toHaveLength(2);
  });

  // The requirement changed (issue 21): the frame used to be cut at
  // 1,000,000 characters; now every character is kept, the view shows the
  // end of the text, and memory stays proportional to the text.
  test('a 10 MB frame is kept whole: its end is shown, Copy all gives every character, memory stays proportional', async ({
    page
  }) => {
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write']);
    const panel = await openPanel(page);
    await stillChats(panel);
    const settled = savesSettled(page);
    await settled();
    const before = await heapMb(page);
    await send(panel, 'big');
    await waitIdle(panel);
    await settled();
    const text = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(text).toContainText('BIG-END');
    // The start is not rendered: the head says how much is not shown.
    await expect(text).not.toContainText('BIG-START');
    const head = text.locator('.jp-AgentPanel-collapsedHead');
    await expect(head).toContainText(
      /The first [\d,]+ of [\d,]+ characters are not shown\./
    );
    await expect(
      lastTurn(panel).locator('.jp-AgentPanel-diagnostics')
    ).toHaveCount(0);
    const growth = (await heapMb(page)) - before;
    test.info().annotations.push({
      type: 'heap',
      description: `JS heap grew by ${growth.toFixed(1)} MB after the 10 MB frame (${(growth / 10).toFixed(2)} bytes per character)`
    });
    // The text (one byte a character) and its copy in the saved
    // conversation, and at most one more byte a character for the rest.
    expect(growth).toBeLessThan(3 * 10);
    await head.locator('.jp-AgentPanel-copyAll').click();
    const copied = await playwrightPage(page).evaluate(() =>
      navigator.clipboard.readText()
    );
    expect(copied.length).toBeGreaterThan(10_000_000);
    expect(copied.startsWith('BIG-START\n0123456789')).toBe(true);
    expect(copied.endsWith('ABCDEFGHI\nBIG-END')).toBe(true);
    await stillChats(panel);
  });

  test('100,000 tiny frames are all kept, in order, and the panel stays usable', async ({
    page
  }) => {
    const panel = await openPanel(page);
    const started = Date.now();
    await send(panel, 'many');
    const text = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(text).toContainText('MANY-END', { timeout: 90000 });
    await waitIdle(panel);
    const seconds = (Date.now() - started) / 1000;
    test.info().annotations.push({
      type: 'timing',
      description: `100,000 frames shown in ${seconds.toFixed(1)} s`
    });
    const shown = ((await text.textContent()) ?? '').trim();
    expect(shown).toBe(('|' + 'x'.repeat(999)).repeat(100) + ' MANY-END');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-error')).toHaveCount(
      0
    );
    await stillChats(panel);
  });
});

test.describe('an endpoint that stalls', () => {
  test.use({
    mockSettings: faultEndpoint({
      connectTimeoutSeconds: 2,
      idleTimeoutSeconds: 2
    })
  });

  test('silence after the first frame ends the turn on the idle timeout, keeping the frame', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'stall');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      'waiting for a slow tool'
    );
    await expect(banner(panel)).toContainText(
      `no frame from ${CHAT_URL} for 2 s (idle timeout)`
    );
    await stillChats(panel);
  });

  test('no byte at all ends the turn on the connect timeout', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'silent');
    await expect(banner(panel)).toContainText(
      `no answer from ${CHAT_URL} within 2 s`
    );
    await expect(banner(panel).locator('.jp-AgentPanel-retry')).toBeVisible();
    await stillChats(panel);
  });
});
