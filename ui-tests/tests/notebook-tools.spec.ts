/**
 * The notebook tools in a real JupyterLab with real kernels, driven by the
 * keyless notebook demo agent (jupyterlab_agent_panel/demo/notebook_agent.py)
 * over HTTP (the server's built-in `notebook-demo`), over the kernel comm
 * (the demo served in the notebook's kernel) and over AG-UI (the demo's
 * script behind ui-tests/notebook_agui_server.py, the tools offered as
 * client tools). Every change is reviewed as a diff first
 * (docs/protocol.md §12).
 */
import type { ChildProcess } from 'child_process';
import * as path from 'path';

import { expect, galata, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import {
  answer,
  cells,
  notebookWith,
  pathOf,
  reviewOf
} from './notebook-helpers';
import {
  DOC_IMAGES,
  freePort,
  keepScreenshot,
  lastTurn,
  openPanel,
  PLUGIN_ID,
  send,
  startAguiTestServer,
  startFresh,
  waitIdle
} from './review-panel-helpers';

const PYTHON = process.env.PYTHON ?? 'python';
const DEMO = 'Notebook demo';

function endpointSettings(endpoint: Record<string, unknown>) {
  return {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN_ID]: {
      endpoints: [endpoint],
      defaultEndpoint: endpoint.name
    }
  };
}

/** "add a cell that prints hello", both reviews applied; the answer quotes the output. */
async function addHelloAndApply(panel: Locator): Promise<void> {
  await send(panel, 'add a cell that prints hello');
  const insert = reviewOf(panel, 'insert_cell');
  await expect(insert.locator('.jp-AgentPanel-diffLine')).toHaveText([
    "+print('hello')"
  ]);
  await insert.locator('.jp-AgentPanel-changeApply').click();
  const run = reviewOf(panel, 'run_cell');
  await expect(run).toBeVisible();
  await run.locator('.jp-AgentPanel-changeApply').click();
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );
}

test.describe('over HTTP (the server agent notebook-demo)', () => {
  test.use({
    mockSettings: endpointSettings({
      name: DEMO,
      transport: 'http',
      url: 'agent-panel/agents/notebook-demo/'
    })
  });

  test('insert and run: reviewed as a diff, the cell has provenance, one undo removes it', async ({
    page
  }, testInfo) => {
    await notebookWith(page, 'tools-insert.ipynb', 'x = 1');
    await page.setViewportSize({ width: 1400, height: 900 });
    const panel = await startFresh(page);
    await page.sidebar.setWidth(480, 'right');
    await send(panel, 'add a cell that prints hello');
    const insert = reviewOf(panel, 'insert_cell');
    // The notebook by its name (its path in the tooltip), cells from 1.
    const where = insert.locator('.jp-AgentPanel-changeReviewWhere');
    await expect(where).toHaveText('tools-insert.ipynb, new cell 2');
    await expect(where).toHaveAttribute(
      'title',
      await pathOf(page, 'tools-insert.ipynb')
    );
    await expect(insert.locator('.jp-AgentPanel-diffLine')).toHaveText([
      "+print('hello')"
    ]);
    // Nothing changed before Apply.
    expect(await cells(page)).toHaveLength(1);
    await keepScreenshot(
      await panel.screenshot({
        path: path.join(DOC_IMAGES, 'notebook-tools-diff-card.png')
      }),
      'notebook-tools-diff-card',
      testInfo
    );
    await insert.locator('.jp-AgentPanel-changeApply').click();
    await expect.poll(async () => (await cells(page)).length).toBe(2);
    const [, inserted] = await cells(page);
    expect(inserted.source).toBe("print('hello')");
    expect(inserted.metadata.agent_panel).toMatchObject({
      kind: 'notebook_tool',
      tool_name: 'insert_cell'
    });
    // One step of the notebook's Undo Cell Operation, as the user guide says
    // (docs/users/notebook-tools.md):
    // Z in command mode takes the cell away, Shift+Z brings it back.
    await page.notebook.selectCells(1);
    await page.keyboard.press('Escape');
    await page.keyboard.press('z');
    await expect.poll(async () => (await cells(page)).length).toBe(1);
    expect((await cells(page))[0].source).toBe('x = 1');
    await page.keyboard.press('Shift+Z');
    await expect.poll(async () => (await cells(page)).length).toBe(2);
    const run = reviewOf(panel, 'run_cell');
    await expect(run.locator('.jp-AgentPanel-diffLine')).toHaveText([
      " print('hello')"
    ]);
    await run.locator('.jp-AgentPanel-changeApply').click();
    await expect(await answer(panel)).toHaveText(
      'I added a cell and ran it. It printed: hello'
    );
  });

  test('a rejection with a reason leaves the notebook unchanged, and the answer quotes it', async ({
    page
  }) => {
    await notebookWith(page, 'tools-reject.ipynb', 'x = 1');
    const panel = await startFresh(page);
    await send(panel, 'add a cell that prints hello');
    const insert = reviewOf(panel, 'insert_cell');
    await insert.locator('.jp-AgentPanel-changeReject').click();
    await insert
      .locator('.jp-AgentPanel-reviewInput')
      .fill('not in this notebook');
    await insert.locator('.jp-AgentPanel-changeSendReject').click();
    await expect(await answer(panel)).toHaveText(
      'You rejected insert_cell (not in this notebook), so I left the notebook as it is.'
    );
    expect(await cells(page)).toEqual([
      expect.objectContaining({ source: 'x = 1' })
    ]);
  });

  test('the notebook closed while the review waits: nothing changes, the agent is told', async ({
    page,
    request,
    baseURL,
    tmpPath
  }) => {
    await notebookWith(page, 'tools-closed.ipynb', 'x = 1');
    const panel = await startFresh(page);
    await send(panel, 'add a cell that prints hello');
    const insert = reviewOf(panel, 'insert_cell');
    await expect(insert).toBeVisible();
    await page.evaluate(() =>
      (window as any).jupyterapp.shell.currentWidget.close()
    );
    await insert.locator('.jp-AgentPanel-changeApply').click();
    await expect(await answer(panel)).toContainText(
      `insert_cell did not work: ${tmpPath}/tools-closed.ipynb was closed: nothing was changed in it.`
    );
    const saved = await request.get(
      `${baseURL}/api/contents/${tmpPath}/tools-closed.ipynb?content=1`
    );
    const { content } = await saved.json();
    expect(
      content.cells.map((cell: { source: string }) => cell.source)
    ).toEqual(['x = 1']);
  });

  test.describe('with the kernel API not proxied by Galata (it answers a restart with 201)', () => {
    test.use({ kernels: null, sessions: null });

    test('the kernel restarts while run_cell waits for it: the agent is told which cell', async ({
      page
    }) => {
      await notebookWith(page, 'tools-restart.ipynb', 'x = 1');
      const panel = await startFresh(page);
      await send(panel, 'add a cell that prints hello');
      await reviewOf(panel, 'insert_cell')
        .locator('.jp-AgentPanel-changeApply')
        .click();
      const run = reviewOf(panel, 'run_cell');
      await expect(run).toBeVisible();
      // A long request keeps the kernel busy: the agent's cell waits behind it.
      await page.evaluate(() => {
        (
          window as any
        ).jupyterapp.shell.currentWidget.sessionContext.session.kernel.requestExecute(
          { code: 'import time; time.sleep(60)' }
        );
      });
      await run.locator('.jp-AgentPanel-changeApply').click();
      await expect(run).toBeHidden();
      await page.waitForTimeout(500);
      await page.evaluate(() =>
        (
          window as any
        ).jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()
      );
      const [, added] = await page.evaluate(() =>
        (
          window as any
        ).jupyterapp.shell.currentWidget.content.model.sharedModel.cells.map(
          (cell: any) => cell.id
        )
      );
      await expect(await answer(panel)).toContainText(
        `run_cell did not work: The kernel of `
      );
      await expect(lastTurn(panel)).toContainText(
        `restarted, shut down or changed while cell ${added} ran`
      );
      await page.evaluate(() =>
        (window as any).jupyterapp.shell.currentWidget.sessionContext.shutdown()
      );
    });
  });

  test('Edit applies the source the user wrote, and the agent reports it', async ({
    page
  }) => {
    await notebookWith(page, 'tools-edit.ipynb', 'prnt("hi")', true);
    const panel = await startFresh(page);
    await send(panel, 'fix the error in the active cell');
    const edit = reviewOf(panel, 'edit_cell');
    await expect(edit.locator('.jp-AgentPanel-diffLine')).toHaveText([
      '−prnt("hi")',
      '+print("hi")'
    ]);
    await edit.locator('.jp-AgentPanel-changeEdit').click();
    await edit.locator('.jp-AgentPanel-changeEditor').fill('print("fixed")');
    await edit.locator('.jp-AgentPanel-changeApplyEdited').click();
    const text = await answer(panel);
    await expect(text).toContainText('You changed my fix before applying it');
    await expect(text).toContainText('print("fixed")');
    const [fixed] = await cells(page);
    expect(fixed.source).toBe('print("fixed")');
    expect(fixed.metadata.agent_panel).toMatchObject({
      kind: 'notebook_tool',
      tool_name: 'edit_cell',
      edited_by_user: true
    });
  });

  test('an edit of a cell changed since the agent read it is refused', async ({
    page
  }) => {
    await notebookWith(page, 'tools-stale.ipynb', 'prnt("hi")', true);
    const panel = await startFresh(page);
    await send(panel, 'fix the error in the active cell');
    const edit = reviewOf(panel, 'edit_cell');
    await expect(edit).toBeVisible();
    // The user changes the cell while the review waits.
    await page.notebook.setCell(0, 'code', 'prnt("changed meanwhile")');
    await edit.locator('.jp-AgentPanel-changeApply').click();
    await expect(await answer(panel)).toContainText(
      'edit_cell did not work: Cell'
    );
    await expect(lastTurn(panel)).toContainText('changed since you read it');
    expect((await cells(page))[0].source).toBe('prnt("changed meanwhile")');
  });

  test('"always allow" skips the review for that tool only, in that conversation only', async ({
    page
  }) => {
    await notebookWith(page, 'tools-allow.ipynb', 'x = 1');
    const panel = await startFresh(page);
    await send(panel, 'add a cell that prints hello');
    const insert = reviewOf(panel, 'insert_cell');
    await insert.locator('.jp-AgentPanel-changeAlways input').check();
    await insert.locator('.jp-AgentPanel-changeApply').click();
    await reviewOf(panel, 'run_cell')
      .locator('.jp-AgentPanel-changeApply')
      .click();
    await waitIdle(panel);
    await expect(panel.locator('.jp-AgentPanel-alwaysAllowedTool')).toHaveText(
      'insert_cell ×'
    );
    // The next insert applies at once; running still asks.
    await send(panel, 'add a cell that prints again');
    await expect(reviewOf(panel, 'run_cell')).toBeVisible();
    await expect(reviewOf(panel, 'insert_cell')).toHaveCount(0);
    expect((await cells(page)).map(cell => cell.source)).toEqual([
      'x = 1',
      "print('hello')",
      "print('again')"
    ]);
    await reviewOf(panel, 'run_cell')
      .locator('.jp-AgentPanel-changeApply')
      .click();
    await expect(await answer(panel)).toHaveText(
      'I added a cell and ran it. It printed: again'
    );
    // A new conversation reviews every tool again.
    await panel.locator('.jp-AgentPanel-newChat').click();
    await expect(panel.locator('.jp-AgentPanel-alwaysAllowedTool')).toHaveCount(
      0
    );
    await send(panel, 'add a cell that prints once more');
    await expect(reviewOf(panel, 'insert_cell')).toBeVisible();
    await reviewOf(panel, 'insert_cell')
      .locator('.jp-AgentPanel-changeReject')
      .click();
    await reviewOf(panel, 'insert_cell')
      .locator('.jp-AgentPanel-changeSendReject')
      .click();
    await expect(await answer(panel)).toContainText('You rejected insert_cell');
  });

  test('with two notebooks open, the one named changes, not the active one', async ({
    page
  }) => {
    await notebookWith(page, 'tools-target.ipynb', 't = 1');
    await notebookWith(page, 'tools-active.ipynb', 'a = 1');
    const panel = await startFresh(page);
    const target = await pathOf(page, 'tools-target.ipynb');
    await send(panel, `add a cell that prints hello in ${target}`);
    const insert = reviewOf(panel, 'insert_cell');
    await expect(
      insert.locator('.jp-AgentPanel-changeReviewWhere')
    ).toHaveAttribute('title', target);
    await insert.locator('.jp-AgentPanel-changeApply').click();
    await reviewOf(panel, 'run_cell')
      .locator('.jp-AgentPanel-changeApply')
      .click();
    await expect(await answer(panel)).toHaveText(
      'I added a cell and ran it. It printed: hello'
    );
    expect(
      (await cells(page, 'tools-target.ipynb')).map(c => c.source)
    ).toEqual(['t = 1', "print('hello')"]);
    expect(
      (await cells(page, 'tools-active.ipynb')).map(c => c.source)
    ).toEqual(['a = 1']);
  });

  test('a review pending at a reload is still answerable, once', async ({
    page
  }) => {
    await notebookWith(page, 'tools-reload.ipynb', 'x = 1');
    const panel = await startFresh(page);
    await send(panel, 'add a cell that prints hello');
    await expect(reviewOf(panel, 'insert_cell')).toBeVisible();
    await page.reload({ waitForIsReady: false } as any);
    await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
    const reopened = await openPanel(page);
    const insert = reviewOf(reopened, 'insert_cell');
    await expect(insert).toHaveCount(1);
    await insert.locator('.jp-AgentPanel-changeApply').click();
    await reviewOf(reopened, 'run_cell')
      .locator('.jp-AgentPanel-changeApply')
      .click();
    await expect(await answer(reopened)).toHaveText(
      'I added a cell and ran it. It printed: hello'
    );
    expect(
      (await cells(page, 'tools-reload.ipynb')).map(c => c.source)
    ).toEqual(['x = 1', "print('hello')"]);
    await expect(reviewOf(reopened, 'insert_cell')).toHaveCount(0);
  });
});

test.describe('over the kernel comm (the demo served in the kernel)', () => {
  test.use({
    mockSettings: endpointSettings({
      name: 'Notebook kernel',
      transport: 'comm',
      url: ''
    })
  });

  test('insert and run through the kernel helper', async ({ page }) => {
    await notebookWith(
      page,
      'tools-comm.ipynb',
      '%load_ext jupyterlab_agent_panel\nimport jupyterlab_agent_panel\njupyterlab_agent_panel.serve("jupyterlab_agent_panel.demo.notebook_agent:graph")',
      true
    );
    const panel = await startFresh(page);
    await expect(panel.locator('.jp-AgentPanel-endpoint')).toContainText(
      'tools-comm.ipynb'
    );
    await addHelloAndApply(panel);
    const [, inserted] = await cells(page);
    expect(inserted.source).toBe("print('hello')");
    expect(inserted.metadata.agent_panel.tool_name).toBe('insert_cell');
  });
});

test.describe('over AG-UI (client tools)', () => {
  const port = freePort(PYTHON);
  const url = `http://127.0.0.1:${port}/`;
  let server: ChildProcess | null = null;

  test.use({
    mockSettings: endpointSettings({
      name: 'Notebook demo (AG-UI)',
      transport: 'agui',
      url
    })
  });

  test.beforeAll(async () => {
    server = await startAguiTestServer('notebook_agui_server.py', port, PYTHON);
  });

  test.afterAll(() => {
    server?.kill();
  });

  test('the tools are offered in RunAgentInput.tools; insert and run as client tools', async ({
    page
  }) => {
    await notebookWith(page, 'tools-agui.ipynb', 'x = 1');
    const panel = await startFresh(page);
    await addHelloAndApply(panel);
    expect((await cells(page)).map(c => c.source)).toEqual([
      'x = 1',
      "print('hello')"
    ]);
    const inputs: Record<string, any>[] = await (
      await fetch(`${url}_inputs`)
    ).json();
    expect(inputs[0].tools.map((tool: any) => tool.name)).toEqual(
      expect.arrayContaining([
        'list_notebooks',
        'read_notebook',
        'read_cell',
        'get_active_cell',
        'insert_cell',
        'edit_cell',
        'delete_cell',
        'run_cell'
      ])
    );
    const last = inputs[inputs.length - 1].messages;
    const result = JSON.parse(last[last.length - 1].content);
    expect(result).toMatchObject({
      status: 'ok',
      execution_status: 'ok',
      outputs: [{ output_type: 'stream', name: 'stdout', text: 'hello\n' }]
    });
  });
});
