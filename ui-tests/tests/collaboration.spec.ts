/**
 * The notebook tools with real-time collaboration on (issue 34 item 1): a
 * lab of this file's own with jupyter-collaboration (lab-process.ts), two
 * pages on one notebook, the notebook read from disk. The agent's change
 * reaches the other page when it is applied and not before; what a user
 * types meanwhile is kept; a stale edit overwrites nothing; the file keeps
 * every cell through reloads and a server restart; a file changed on disk
 * by another program is loaded into the notebook, and an edit waiting for
 * review is then stale (or its cell not found), never written over it; the
 * soak's changes and another page's typing all end up in both pages and on
 * disk.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import type { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Browser, Locator, Page } from '@playwright/test';

import { playwrightPage } from './fault-server';
import { labRoot, startLab, stopLab } from './lab-process';
import { answer, cells, notebookWith, reviewOf } from './notebook-helpers';
import {
  freePort,
  graphEndpoint,
  lastTurn,
  openPanel,
  send,
  startFresh
} from './review-panel-helpers';
import { soak, SOAK_EDITS, soakTimeout } from './soak-helpers';

const PORT = freePort();
const STATE = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-panel-rtc-'));
const BASE_URL = `http://127.0.0.1:${PORT}`;

test.use({
  baseURL: BASE_URL,
  mockSettings: graphEndpoint('notebook-demo'),
  // Galata proxies the runner APIs to track what a test starts; a poll that
  // lands while the lab restarts would fail the test. Stopping the lab
  // shuts the kernels down.
  kernels: null,
  sessions: null,
  terminals: null
});
test.describe.configure({ mode: 'serial' });

let lab: ChildProcess;

function startCollaborativeLab(): Promise<ChildProcess> {
  return startLab({ port: PORT, state: STATE, collaboration: true });
}

test.beforeAll(async () => {
  lab = await startCollaborativeLab();
});

test.afterAll(async () => {
  await stopLab(lab);
  fs.rmSync(STATE, { recursive: true, force: true });
});

/** The sources of `found` cells. */
function sources(found: { source: string }[]): string[] {
  return found.map(cell => cell.source);
}

/** The cells' sources of `notebook` (relative to the lab's root) in the file on disk. */
function onDisk(notebook: string): string[] {
  const file = path.join(labRoot(STATE), notebook);
  if (!fs.existsSync(file)) {
    return [];
  }
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf-8'));
    return saved.cells.map((cell: { source: string | string[] }) =>
      Array.isArray(cell.source) ? cell.source.join('') : cell.source
    );
  } catch {
    return []; // read while the server writes it: read again
  }
}

/** Write `notebook` on disk as another program does: code cells of these ids and sources. */
function writeOnDisk(
  notebook: string,
  written: { id: string; source: string; outputs?: object[] }[]
): void {
  const content = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: {
        name: 'python3',
        display_name: 'Python 3 (ipykernel)',
        language: 'python'
      }
    },
    cells: written.map(cell => ({
      outputs: [],
      ...cell,
      cell_type: 'code',
      metadata: {},
      execution_count: null
    }))
  };
  fs.writeFileSync(
    path.join(labRoot(STATE), notebook),
    JSON.stringify(content, null, 1)
  );
}

/**
 * Wait until the room has written every change of the open notebook to its
 * file: with real-time collaboration the server saves, not the page. The
 * tests wait for that rather than press Save: JupyterLab's save compares the
 * file's hash with the one the room last sent the page, and stops at its
 * "File Changed" dialog when an autosave has just written the file and its
 * new hash is still on the way (jupyter-collaboration 5.0.4), or when a
 * pending autosave, not the file watcher, found another program's write.
 * Waiting before such a write also lets the watcher find it.
 */
async function savedByTheRoom(page: IJupyterLabPageFixture): Promise<void> {
  await page.waitForFunction(
    () =>
      (window as any).jupyterapp.shell.currentWidget?.context?.model?.dirty ===
      false
  );
}

/**
 * `notebook` with one cell that failed on a misspelt name (`prnt("hi")`, id
 * `first`), written on disk and opened, its cell active. Not run and saved
 * in the page as notebookWith does: the page's save was seen to wait forever
 * for the server's answer when it followed the run here.
 */
async function failedCell(
  page: IJupyterLabPageFixture,
  notebook: string
): Promise<void> {
  writeOnDisk(notebook, [
    {
      id: 'first',
      source: 'prnt("hi")',
      outputs: [
        {
          output_type: 'error',
          ename: 'NameError',
          evalue: "name 'prnt' is not defined",
          traceback: []
        }
      ]
    }
  ]);
  await page.evaluate(async wanted => {
    const widget = await (window as any).jupyterapp.commands.execute(
      'docmanager:open',
      { path: wanted, factory: 'Notebook' }
    );
    await widget.context.ready;
  }, notebook);
}

/** A second page, in a browser context of its own, on `notebook`; resolves once its model is ready. */
async function secondPage(browser: Browser, notebook: string): Promise<Page> {
  const context = await browser.newContext();
  const other = await context.newPage();
  await other.goto(`${BASE_URL}/lab/tree/${notebook}`);
  await other.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
  await other.waitForFunction(wanted => {
    const app = (window as any).jupyterapp;
    const widget = app?.shell.currentWidget;
    return widget?.context?.path === wanted && widget.context.isReady;
  }, notebook);
  return other;
}

/** Type `text` at the end of cell `index` of the current notebook of `other`, one key at a time. */
async function typeInCell(
  other: Page,
  index: number,
  text: string
): Promise<void> {
  const editor = other
    .locator('.jp-NotebookPanel:visible .jp-Cell')
    .nth(index)
    .locator('.cm-content');
  await editor.click();
  await other.keyboard.press('Control+End');
  await other.keyboard.type(text, { delay: 25 });
}

/** Record in `target` when the current notebook first has `count` cells (Date.now()). */
async function watchCellCount(target: Page, count: number): Promise<void> {
  await target.evaluate(wanted => {
    const model = (window as any).jupyterapp.shell.currentWidget.content.model
      .sharedModel;
    (window as any).cellCountReached = null;
    model.changed.connect(() => {
      if (model.cells.length === wanted && !(window as any).cellCountReached) {
        (window as any).cellCountReached = Date.now();
      }
    });
  }, count);
}

function reachedAt(target: Page): Promise<number | null> {
  return target.evaluate(() => (window as any).cellCountReached);
}

/**
 * Reload `target` and open `notebook` again, waiting for its model (not
 * Galata's reload, which waits for a Launcher the restored workspace does
 * not show).
 */
async function reloadOn(
  target: Page | IJupyterLabPageFixture,
  notebook: string
): Promise<void> {
  const plain = 'notebook' in target ? playwrightPage(target) : target;
  await plain.reload();
  // The splash may not be in the page yet when the reload returns: wait for
  // the application object, then for the splash to go.
  await plain.waitForFunction(() => Boolean((window as any).jupyterapp));
  await plain.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
  await plain.evaluate(async wanted => {
    const app = (window as any).jupyterapp;
    await app.restored;
    const widget = await app.commands.execute('docmanager:open', {
      path: wanted,
      factory: 'Notebook'
    });
    await widget.context.ready;
  }, notebook);
}

async function apply(panel: Locator, tool: string): Promise<void> {
  const review = reviewOf(panel, tool);
  await expect(review).toBeVisible();
  await review.locator('.jp-AgentPanel-changeApply').click();
}

test('two pages: the applied cell reaches the other page at Apply, not before; typing meanwhile is kept; the file has every cell', async ({
  page,
  browser,
  tmpPath
}, testInfo) => {
  const notebook = `${tmpPath}/shared.ipynb`;
  await notebookWith(page, 'shared.ipynb', 'x = 1');
  const other = await secondPage(browser, notebook);
  await expect.poll(async () => sources(await cells(other))).toEqual(['x = 1']);

  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  await expect(reviewOf(panel, 'insert_cell')).toBeVisible();
  await watchCellCount(page, 2);
  await watchCellCount(other, 2);
  // The other user types in the first cell while the review waits, and
  // goes on typing as the change is applied.
  const typing = typeInCell(other, 0, '0\ny = 2  # typed meanwhile');
  await other.waitForFunction(() =>
    (
      window as any
    ).jupyterapp.shell.currentWidget.content.model.sharedModel.cells[0]
      .getSource()
      .includes('\ny')
  );
  expect(await reachedAt(other), 'no agent cell before Apply').toBeNull();
  expect(sources(await cells(page))).toHaveLength(1);
  await apply(panel, 'insert_cell');
  await typing;
  await expect.poll(() => reachedAt(other)).not.toBeNull();
  const here = (await reachedAt(page))!;
  const there = (await reachedAt(other))!;
  expect(there).toBeGreaterThanOrEqual(here);
  testInfo.annotations.push({
    type: 'latency',
    description: `the applied cell reached the second page ${there - here} ms after the first`
  });
  await apply(panel, 'run_cell');
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );

  const expected = ['x = 10\ny = 2  # typed meanwhile', "print('hello')"];
  await expect.poll(async () => sources(await cells(page))).toEqual(expected);
  await expect.poll(async () => sources(await cells(other))).toEqual(expected);
  await savedByTheRoom(page);
  await expect.poll(() => onDisk(notebook)).toEqual(expected);

  // Reloads of both pages: the same cells, once each.
  await other.reload();
  await other.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
  await other.waitForFunction(
    wanted =>
      (window as any).jupyterapp?.shell.currentWidget?.context?.path === wanted,
    notebook
  );
  await expect.poll(async () => sources(await cells(other))).toEqual(expected);
  await reloadOn(page, notebook);
  await expect.poll(async () => sources(await cells(page))).toEqual(expected);
  await expect.poll(() => onDisk(notebook)).toEqual(expected);
  await other.context().close();
});

test('a stale edit overwrites nothing: the other page changed the cell while the review waited', async ({
  page,
  browser,
  tmpPath
}) => {
  const notebook = `${tmpPath}/stale.ipynb`;
  await failedCell(page, notebook);
  const panel = await startFresh(page);
  await send(panel, 'fix the error in the active cell');
  const edit = reviewOf(panel, 'edit_cell');
  await expect(edit.locator('.jp-AgentPanel-diffLine')).toContainText([
    '−prnt("hi")',
    '+print("hi")'
  ]);

  const other = await secondPage(browser, notebook);
  await typeInCell(other, 0, '  # mine');
  const mine = 'prnt("hi")  # mine';
  await expect.poll(async () => sources(await cells(page))).toEqual([mine]);
  await edit.locator('.jp-AgentPanel-changeApply').click();
  await expect(await answer(panel)).toContainText(
    'edit_cell did not work: Cell'
  );
  await expect(lastTurn(panel)).toContainText('changed since you read it');

  for (const target of [page, other]) {
    await expect.poll(async () => sources(await cells(target))).toEqual([mine]);
  }
  await savedByTheRoom(page);
  await expect.poll(() => onDisk(notebook)).toEqual([mine]);
  await other.context().close();
});

test('the file changed on disk while a review waits: the server loads it into the notebook, and the edit of the changed cell is stale', async ({
  page,
  tmpPath
}) => {
  const notebook = `${tmpPath}/disk-stale.ipynb`;
  await failedCell(page, notebook);
  const panel = await startFresh(page);
  await send(panel, 'fix the error in the active cell');
  const edit = reviewOf(panel, 'edit_cell');
  await expect(edit).toBeVisible();
  const theirs = 'prnt("written by another program")';
  await savedByTheRoom(page);
  writeOnDisk(notebook, [{ id: 'first', source: theirs }]);
  await expect.poll(async () => sources(await cells(page))).toEqual([theirs]);
  await edit.locator('.jp-AgentPanel-changeApply').click();
  await expect(await answer(panel)).toContainText(
    'edit_cell did not work: Cell first of'
  );
  await expect(lastTurn(panel)).toContainText('changed since you read it');
  expect(sources(await cells(page))).toEqual([theirs]);
  await savedByTheRoom(page);
  await expect.poll(() => onDisk(notebook)).toEqual([theirs]);
});

test('the file changed on disk while a review waits, the edited cell gone from it: not found, nothing added back', async ({
  page,
  tmpPath
}) => {
  const notebook = `${tmpPath}/disk-gone.ipynb`;
  await failedCell(page, notebook);
  const panel = await startFresh(page);
  await send(panel, 'fix the error in the active cell');
  const edit = reviewOf(panel, 'edit_cell');
  await expect(edit).toBeVisible();
  await savedByTheRoom(page);
  writeOnDisk(notebook, [{ id: 'theirs', source: 'z = 0' }]);
  await expect.poll(async () => sources(await cells(page))).toEqual(['z = 0']);
  await edit.locator('.jp-AgentPanel-changeApply').click();
  await expect(await answer(panel)).toHaveText(
    `edit_cell did not work: ${notebook} has no cell with the id first.`
  );
  expect(sources(await cells(page))).toEqual(['z = 0']);
  await savedByTheRoom(page);
  await expect.poll(() => onDisk(notebook)).toEqual(['z = 0']);
});

test.describe('the soak (soak-helpers.ts)', () => {
  test.use({ mockSettings: graphEndpoint('soak') });

  test(`${SOAK_EDITS} changes of the agent while another page types: the same cells in both pages and on disk`, async ({
    page,
    browser,
    tmpPath
  }, testInfo) => {
    test.setTimeout(soakTimeout(SOAK_EDITS));
    const notebook = `${tmpPath}/soak.ipynb`;
    const first = 'typed = 1  #';
    await notebookWith(page, 'soak.ipynb', first);
    const other = await secondPage(browser, notebook);
    const panel = await startFresh(page);
    const expected = await soak(panel, other, first, SOAK_EDITS, testInfo);
    for (const target of [playwrightPage(page), other]) {
      await expect
        .poll(async () => sources(await cells(target)))
        .toEqual(expected);
    }
    await savedByTheRoom(page);
    await expect.poll(() => onDisk(notebook)).toEqual(expected);
    await other.context().close();
  });
});

test('a server restart after the agent changed the notebook: every cell once, in the page and on disk', async ({
  page,
  tmpPath
}) => {
  const notebook = `${tmpPath}/restart.ipynb`;
  await notebookWith(page, 'restart.ipynb', 'x = 1');
  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  await apply(panel, 'insert_cell');
  await apply(panel, 'run_cell');
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );
  const expected = ['x = 1', "print('hello')"];
  await savedByTheRoom(page);
  await expect.poll(() => onDisk(notebook)).toEqual(expected);

  await stopLab(lab);
  expect(onDisk(notebook)).toEqual(expected);
  lab = await startCollaborativeLab();
  await reloadOn(page, notebook);
  await expect.poll(async () => sources(await cells(page))).toEqual(expected);
  await openPanel(page);
  await expect.poll(() => onDisk(notebook)).toEqual(expected);
});
