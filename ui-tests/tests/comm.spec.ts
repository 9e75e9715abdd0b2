/**
 * The kernel comm transport in a real JupyterLab with a real ipykernel: the
 * panel talks to the graph that `%load_ext jupyterlab_agent_panel` serves in
 * the notebook's kernel ("Notebook kernel" endpoint).
 */
import * as path from 'path';

import { expect, galata, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { runCode } from './review-panel-helpers';

/** A graph that says "started", then waits 30 s in silence. */
const SLOW_GRAPH = `${path.resolve(
  __dirname,
  '../../jupyterlab_agent_panel/tests/graphs/kernel_slow.py'
)}:silent_graph`;

const LOAD_EXT = '%load_ext jupyterlab_agent_panel';
/** Cell source: load the helper and serve the slow graph. */
const SERVE_SLOW_GRAPH = `${LOAD_EXT}\nimport jupyterlab_agent_panel\njupyterlab_agent_panel.serve(${JSON.stringify(SLOW_GRAPH)})`;

test.use({
  mockSettings: {
    ...galata.DEFAULT_SETTINGS,
    'jupyterlab-agent-panel:plugin': { defaultEndpoint: 'Notebook kernel' }
  }
});

/** A new notebook with a running Python kernel, and the panel beside it. */
async function openNotebookAndPanel(
  page: IJupyterLabPageFixture,
  name: string
) {
  await page.notebook.createNew(name);
  await page.sidebar.openTab('jp-agent-panel');
  const panel = page.locator('#jp-agent-panel');
  await expect(panel.locator('.jp-AgentPanel-picker')).toHaveValue(
    'Notebook kernel'
  );
  await expect(panel.locator('.jp-AgentPanel-endpoint')).toHaveText(
    `${name} · Python 3 (ipykernel)`
  );
  return panel;
}

async function send(
  panel: ReturnType<IJupyterLabPageFixture['locator']>,
  message: string
): Promise<void> {
  const input = panel.locator('.jp-AgentPanel-input');
  await input.fill(message);
  await input.press('Enter');
}

test.describe('chat with a graph in the notebook kernel', () => {
  test('tells the user to run %load_ext when the kernel serves nothing', async ({
    page
  }) => {
    const panel = await openNotebookAndPanel(page, 'no-target.ipynb');

    await send(panel, 'hello');
    await expect(panel).toContainText(
      'The kernel of no-target.ipynb has no agent_panel comm target: run `%load_ext jupyterlab_agent_panel` in the notebook.'
    );

    // Once loaded, the same panel chats without any other step.
    await runCode(page, 0, LOAD_EXT);
    await send(panel, 'hello');
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      '(demo agent) You said: hello'
    );
  });

  test('uses a tool, inserts the extraction and answers an interrupt', async ({
    page
  }, testInfo) => {
    const panel = await openNotebookAndPanel(page, 'comm-chat.ipynb');
    await runCode(page, 0, LOAD_EXT);

    await send(panel, 'use a tool');
    await expect(panel.locator('.jp-AgentPanel-tool').last()).toContainText(
      'demo_lookup'
    );
    const extraction = panel.locator('.jp-AgentPanel-extraction').last();
    await expect(extraction).toContainText('demo_fact');
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      'That completes the tool_start -> tool_end -> extraction flow.'
    );

    // The notebook plugin's action puts the extracted data into a cell.
    const cellsBefore = await page.notebook.getCellCount();
    await extraction
      .locator('[data-command="agent-panel:insert-extraction"]')
      .click();
    await expect.poll(() => page.notebook.getCellCount()).toBe(cellsBefore + 1);
    const sources: string[] = [];
    for (let i = 0; i < cellsBefore + 1; i++) {
      sources.push(await page.notebook.getCellTextInput(i));
    }
    expect(sources.filter(source => source.includes('42'))).toHaveLength(1);

    await send(panel, 'ask me a question');
    const review = panel.locator('.jp-AgentPanel-review').last();
    await expect(review).toContainText('What should I call you?');
    await review.locator('[data-verb="respond"]').click();
    await review.locator('textarea').fill('Ada');
    await review.locator('[data-action="confirm"]').click();
    const submit = review.locator('[data-review="submit"]');
    if (await submit.isVisible()) {
      await submit.click();
    }
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      'Resumed. Your decision was:'
    );
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      'Ada'
    );

    await testInfo.attach('comm-panel', {
      body: await panel.screenshot(),
      contentType: 'image/png'
    });
  });
});

test.describe('a running cell does not hold up the agent (comms on a subshell)', () => {
  test('a turn starts and Stop ends it at once while a cell sleeps', async ({
    page
  }) => {
    const panel = await openNotebookAndPanel(page, 'comm-subshell.ipynb');
    await runCode(page, 0, SERVE_SLOW_GRAPH);
    await runCode(page, 1, 'import time\ntime.sleep(5)', false);
    const sleeping = page.locator('.jp-Cell').nth(1).locator('.jp-InputPrompt');
    await expect(sleeping).toHaveText('[*]:');

    await send(panel, 'take your time');
    const turn = panel.locator('.jp-AgentPanel-turn').last();
    await expect(turn.locator('.jp-AgentPanel-text')).toHaveText('started');
    await expect(sleeping).toHaveText('[*]:'); // the turn did not wait for the cell

    // From the click on Stop to the kernel's `cancelled`, timed in the page.
    const stopMs = await page.evaluate(() => {
      const turns = document.querySelectorAll(
        '#jp-agent-panel .jp-AgentPanel-turn'
      );
      const last = turns[turns.length - 1];
      const stop = document.querySelector<HTMLElement>(
        '#jp-agent-panel .jp-AgentPanel-stop'
      )!;
      return new Promise<number>(resolve => {
        const began = performance.now();
        const observer = new MutationObserver(() => {
          if (last.querySelector('.jp-AgentPanel-cancelled')) {
            observer.disconnect();
            resolve(performance.now() - began);
          }
        });
        observer.observe(last, { childList: true, subtree: true });
        stop.click();
      });
    });

    test.info().annotations.push({ type: 'stop-ms', description: `${stopMs}` });
    expect(stopMs).toBeLessThan(1000);
    await expect(sleeping).toHaveText('[*]:'); // still sleeping: Stop did not wait for it
    await expect(turn.locator('.jp-AgentPanel-cancelled')).toBeVisible();
    await expect(sleeping).not.toHaveText('[*]:', { timeout: 10000 });
  });
});

test.describe('a kernel restart or death in the middle of a turn', () => {
  // Galata's kernel-route mock answers every POST with 201, and JupyterLab
  // takes a 201 from /restart as a failed restart: talk to the server directly.
  test.use({ kernels: null });

  test.afterEach(async ({ page }) => {
    await page.evaluate(() =>
      (window as any).galata.app.serviceManager.kernels.shutdownAll()
    );
  });

  test('fails the turn clearly; after %load_ext the panel chats again', async ({
    page
  }) => {
    const panel = await openNotebookAndPanel(page, 'comm-restart.ipynb');
    await runCode(page, 0, SERVE_SLOW_GRAPH);

    await send(panel, 'take your time');
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      'started'
    );

    await page.menu.clickMenuItem('Kernel>Restart Kernel…');
    await page.locator('.jp-Dialog .jp-mod-accept').click();
    await expect(panel).toContainText(
      'The kernel of comm-restart.ipynb restarted; the turn was lost.'
    );
    // The restarted kernel has no comm target until %load_ext runs again.
    await expect(panel.locator('.jp-AgentPanel-health')).toHaveAttribute(
      'title',
      /run `%load_ext jupyterlab_agent_panel` in the notebook/
    );

    await runCode(page, 0, LOAD_EXT);
    await send(panel, 'hello again');
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      '(demo agent) You said: hello again'
    );
  });

  test('kernel death ends the turn, keeps what arrived; after %load_ext the panel chats again', async ({
    page
  }) => {
    const panel = await openNotebookAndPanel(page, 'comm-death.ipynb');
    await runCode(page, 0, SERVE_SLOW_GRAPH);

    await send(panel, 'take your time');
    const turn = panel.locator('.jp-AgentPanel-turn').last();
    await expect(turn.locator('.jp-AgentPanel-text')).toHaveText('started');

    // The kernel process dies mid-turn, as on a segfault or the OOM killer;
    // the server notices and restarts it.
    await runCode(
      page,
      1,
      'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)',
      false // this cell never finishes
    );
    await expect(turn.locator('.jp-AgentPanel-error')).toContainText(
      'The kernel of comm-death.ipynb died and restarted; the turn was lost.'
    );
    await expect(turn.locator('.jp-AgentPanel-text')).toHaveText('started');
    // JupyterLab's own notice of the death.
    await page.locator('.jp-Dialog .jp-mod-accept').click();
    await expect(panel.locator('.jp-AgentPanel-health')).toHaveAttribute(
      'title',
      /run `%load_ext jupyterlab_agent_panel` in the notebook/
    );

    await runCode(page, 0, LOAD_EXT);
    await send(panel, 'hello again');
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      '(demo agent) You said: hello again'
    );
  });
});
