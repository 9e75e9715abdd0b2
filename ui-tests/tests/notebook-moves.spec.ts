/**
 * The notebook moves under the agent (issue 34 item 3): while a review waits
 * or `run_cell` runs, the notebook is deleted, renamed, reverted to its
 * file, or its file changed or deleted by another program. The agent is told
 * what happened, no change goes to another notebook or cell than the one
 * reviewed, and nothing the user wrote is lost (docs/protocol.md §12.5). The
 * same with real-time collaboration is in collaboration.spec.ts; closing the
 * notebook and restarting its kernel are in notebook-tools.spec.ts.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import type { APIRequestContext, Locator } from '@playwright/test';
import { answer, cells, notebookWith, reviewOf } from './notebook-helpers';
import { graphEndpoint, send, startFresh } from './review-panel-helpers';

test.use({ mockSettings: graphEndpoint('notebook-demo') });

async function apply(panel: Locator, tool: string): Promise<void> {
  const review = reviewOf(panel, tool);
  await expect(review).toBeVisible();
  await review.locator('.jp-AgentPanel-changeApply').click();
}

/** The sources of the notebook `path` as saved on disk; null when there is no such file. */
async function onDisk(
  request: APIRequestContext,
  baseURL: string | undefined,
  path: string
): Promise<string[] | null> {
  const saved = await request.get(`${baseURL}/api/contents/${path}?content=1`);
  if (saved.status() === 404) {
    return null;
  }
  expect(
    saved.ok(),
    `GET ${path}: ${saved.status()} ${await saved.text()}`
  ).toBe(true);
  const { content } = await saved.json();
  return content.cells.map((cell: { source: string }) => cell.source);
}

/** Delete `name` in `folder` as a user does: the file browser's context menu, then the dialog. */
async function deleteInFileBrowser(
  page: IJupyterLabPageFixture,
  folder: string,
  name: string
): Promise<void> {
  await page.sidebar.openTab('filebrowser');
  await page.filebrowser.openDirectory(folder);
  await page
    .locator('.jp-DirListing-item', { hasText: name })
    .click({ button: 'right' });
  // "Move to Trash" when the server sends deleted files to the trash (its default).
  await page
    .getByRole('menuitem', { name: /^(Delete|Move to Trash)\b/ })
    .click();
  await page.locator('.jp-Dialog .jp-mod-accept').click();
}

/** Sources of the current notebook's cells, as the notebook holds them. */
async function sources(page: IJupyterLabPageFixture): Promise<string[]> {
  return (await cells(page)).map(cell => cell.source);
}

test('the notebook deleted in the file browser while the review waits: the agent is told, nothing is written', async ({
  page,
  request,
  baseURL,
  tmpPath
}) => {
  const path = `${tmpPath}/tools-deleted.ipynb`;
  await notebookWith(page, 'tools-deleted.ipynb', 'x = 1');
  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  await expect(reviewOf(panel, 'insert_cell')).toBeVisible();
  await deleteInFileBrowser(page, tmpPath, 'tools-deleted.ipynb');
  await expect(page.locator('.jp-NotebookPanel')).toHaveCount(0);
  await apply(panel, 'insert_cell');
  await expect(await answer(panel)).toHaveText(
    `insert_cell did not work: ${path} was deleted while the call waited for its review: nothing was changed.`
  );
  // The tool card says it too, and names the notebook.
  const card = panel.locator('.jp-AgentPanel-tool:not(.lm-mod-hidden)');
  await expect(card.locator('.jp-AgentPanel-toolLabel')).toHaveText(
    'Insert a code cell in tools-deleted.ipynb'
  );
  await expect(card.locator('.jp-AgentPanel-toolOutcome')).toHaveText(
    `${path} was deleted while the call waited for its review: nothing was changed.`
  );
  expect(await onDisk(request, baseURL, path)).toBeNull();
});

test.describe('with the kernel API not proxied by Galata (the delete shuts the kernel down)', () => {
  test.use({ kernels: null, sessions: null });

  test('the notebook deleted in the file browser while run_cell runs: deleted, not a kernel restart, naming the cell', async ({
    page,
    request,
    baseURL,
    tmpPath
  }) => {
    const path = `${tmpPath}/tools-deleted-run.ipynb`;
    await notebookWith(page, 'tools-deleted-run.ipynb', 'x = 1');
    const panel = await startFresh(page);
    await send(panel, 'add a cell that prints hello');
    await apply(panel, 'insert_cell');
    const run = reviewOf(panel, 'run_cell');
    await expect(run).toBeVisible();
    const [, added] = await page.evaluate(() =>
      (
        window as any
      ).jupyterapp.shell.currentWidget.content.model.sharedModel.cells.map(
        (cell: any) => cell.id
      )
    );
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
    await deleteInFileBrowser(page, tmpPath, 'tools-deleted-run.ipynb');
    await expect(await answer(panel)).toHaveText(
      `run_cell did not work: ${path} was deleted while cell ${added} ran: the run did not finish, and its outputs are not known.`
    );
    expect(await onDisk(request, baseURL, path)).toBeNull();
  });
});

test('the file deleted by another program while the review waits: the open notebook gets the change, and its next save writes the file again', async ({
  page,
  request,
  baseURL,
  tmpPath
}) => {
  const path = `${tmpPath}/tools-gone.ipynb`;
  await notebookWith(page, 'tools-gone.ipynb', 'x = 1');
  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  await expect(reviewOf(panel, 'insert_cell')).toBeVisible();
  expect(await page.contents.deleteFile(path)).toBe(true);
  expect(await onDisk(request, baseURL, path)).toBeNull();
  await apply(panel, 'insert_cell');
  await apply(panel, 'run_cell');
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );
  const expected = ['x = 1', "print('hello')"];
  expect(await sources(page)).toEqual(expected);
  await page.notebook.save();
  await expect.poll(() => onDisk(request, baseURL, path)).toEqual(expected);
});

test('the file changed on disk by another program while the review waits: the change goes to the open notebook, and the save asks', async ({
  page,
  request,
  baseURL,
  tmpPath
}) => {
  const path = `${tmpPath}/tools-disk.ipynb`;
  await notebookWith(page, 'tools-disk.ipynb', 'x = 1');
  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  await expect(reviewOf(panel, 'insert_cell')).toBeVisible();
  const other = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      {
        id: 'first',
        cell_type: 'code',
        source: 'x = 2  # written by another program',
        metadata: {},
        outputs: [],
        execution_count: null
      }
    ]
  };
  const written = await request.put(`${baseURL}/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: other }
  });
  expect(written.status()).toBe(200);
  await apply(panel, 'insert_cell');
  await apply(panel, 'run_cell');
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );
  const expected = ['x = 1', "print('hello')"];
  expect(await sources(page)).toEqual(expected);
  // Nothing was written behind the user's back.
  expect(await onDisk(request, baseURL, path)).toEqual([
    'x = 2  # written by another program'
  ]);
  // JupyterLab asks at the save, as for any change made while the file changed.
  void page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('docmanager:save')
  );
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('.jp-Dialog-header')).toHaveText('File Changed');
  // The server writes the file in place: read it once the save has answered.
  const saved = page.waitForResponse(
    response =>
      response.request().method() === 'PUT' &&
      response.url().includes(`/api/contents/${path}`)
  );
  await dialog.locator('button:has-text("Overwrite")').click();
  expect((await saved).ok()).toBe(true);
  expect(await onDisk(request, baseURL, path)).toEqual(expected);
});

test('the notebook renamed while the review waits: the change goes to it under its new path', async ({
  page,
  request,
  baseURL,
  tmpPath
}) => {
  const before = `${tmpPath}/tools-rename.ipynb`;
  const after = `${tmpPath}/tools-renamed.ipynb`;
  await notebookWith(page, 'tools-rename.ipynb', 'x = 1');
  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  await expect(reviewOf(panel, 'insert_cell')).toBeVisible();
  // As the file browser's Rename does it: through the contents manager, which the open notebook follows.
  await page.evaluate(
    ([from, to]) =>
      (window as any).jupyterapp.serviceManager.contents.rename(from, to),
    [before, after]
  );
  await expect
    .poll(() =>
      page.evaluate(
        () => (window as any).jupyterapp.shell.currentWidget.context.path
      )
    )
    .toBe(after);
  await apply(panel, 'insert_cell');
  // The agent got the new path in the result, and runs the cell there.
  await expect(
    reviewOf(panel, 'run_cell').locator('.jp-AgentPanel-changeReviewWhere')
  ).toHaveAttribute('title', after);
  await apply(panel, 'run_cell');
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );
  const expected = ['x = 1', "print('hello')"];
  expect(await sources(page)).toEqual(expected);
  await page.notebook.save();
  await expect.poll(() => onDisk(request, baseURL, after)).toEqual(expected);
  expect(await onDisk(request, baseURL, before)).toBeNull();
});

test('the notebook reverted to its file while the review waits: the edit applies to the reverted cell, which it still fits', async ({
  page
}) => {
  await notebookWith(page, 'tools-revert.ipynb', 'prnt("hi")', true);
  const panel = await startFresh(page);
  await send(panel, 'fix the error in the active cell');
  const edit = reviewOf(panel, 'edit_cell');
  await expect(edit).toBeVisible();
  // The user types in the cell, then reloads the notebook from disk, dropping what they typed.
  await page.notebook.setCell(0, 'code', 'prnt("typed, then reverted")');
  await page.evaluate(() => {
    void (window as any).jupyterapp.commands.execute('docmanager:reload');
  });
  await page.locator('.jp-Dialog .jp-mod-accept').click();
  await expect.poll(() => sources(page)).toEqual(['prnt("hi")']);
  await edit.locator('.jp-AgentPanel-changeApply').click();
  await expect(await answer(panel)).toContainText(
    'I fixed cell 1 of tools-revert.ipynb'
  );
  expect(await sources(page)).toEqual(['print("hi")']);
});
