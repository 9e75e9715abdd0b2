/**
 * Files and cells as context, in a real JupyterLab with a real kernel:
 * `@` in the message box completes the Jupyter contents and the active
 * notebook's cells, a file dropped from the file browser (a real Lumino
 * drag, with the mouse) or a cell dragged from the notebook becomes the same
 * chip, and the `echo` graph answers with the message and the context block
 * the server appends, so the test reads what the agent received
 * (docs/protocol.md §6.2, kinds `file`, `notebook`, `cell`).
 */
import * as path from 'path';

import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import {
  contextChip,
  graphEndpoint,
  lastTurn,
  openPanel,
  runCode,
  waitIdle,
  widenPanel
} from './review-panel-helpers';

const IMAGES = path.resolve(__dirname, '..', '..', 'docs', 'images');

/** 5,000 characters: longer than the 4,000 an attachment keeps. */
const NOTES = 'NOTES-START\n' + 'x'.repeat(4977) + '\nNOTES-END\n';

/** The completer's lines, as shown. */
function mentions(page: IJupyterLabPageFixture): Locator {
  return page.locator('.jp-AgentPanel-mentions .jp-AgentPanel-mention');
}

/** Drag `from` onto `to` with the mouse: Lumino starts a drag past a few pixels. */
async function drag(
  page: IJupyterLabPageFixture,
  from: Locator,
  to: Locator
): Promise<void> {
  const start = (await from.boundingBox())!;
  const end = (await to.boundingBox())!;
  await page.mouse.move(start.x + 10, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(start.x + 30, start.y + start.height / 2, {
    steps: 5
  });
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, {
    steps: 10
  });
  await page.mouse.up();
}

test.describe('files and cells by mention, against the echo graph', () => {
  test.use({ mockSettings: graphEndpoint('echo') });

  test('@ completes a folder, a file and a cell; the file arrives capped', async ({
    page,
    tmpPath
  }) => {
    await page.contents.uploadContent(
      NOTES,
      'text',
      `${tmpPath}/data/notes.txt`
    );
    await widenPanel(page);
    await page.notebook.createNew('analysis.ipynb');
    await runCode(page, 0, 'rows = 3');
    await runCode(page, 1, 'total = rows * 2  # the second cell\nprint(total)');
    const panel = await openPanel(page);
    const input = panel.locator('.jp-AgentPanel-input');
    await page.sidebar.close('left');

    await input.click();
    await input.pressSequentially(`Compare @${tmpPath}/da`);
    await expect(mentions(page)).toHaveText(['data/folder']);
    await input.press('Enter');
    // A folder completes the path and lists it.
    await expect(input).toHaveValue(`Compare @${tmpPath}/data/`);
    await expect(mentions(page)).toHaveText(['notes.txt']);
    await input.press('Enter');
    await expect(mentions(page)).toHaveCount(0);
    await expect(input).toHaveValue('Compare ');
    const file = contextChip(panel, 'file');
    await expect(file).toContainText(`File${tmpPath}/data/notes.txt`);
    await expect(file.locator('.jp-AgentPanel-chipNote')).toHaveText(
      /^capped: first 3,9\d\d of 5,000 characters$/
    );

    await input.pressSequentially('with @cell 2');
    await expect(mentions(page)).toHaveText([
      'cell 2total = rows * 2  # the second cell'
    ]);
    await page.screenshot({ path: path.join(IMAGES, 'context-mention.png') });
    await input.press('Tab');
    await expect(input).toHaveValue('Compare with ');
    await expect(contextChip(panel, 'cell')).toHaveText(
      'Cell2 of analysis.ipynb×'
    );

    await input.press('Enter');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo).toContainText(
      `User has attached the file ${tmpPath}/data/notes.txt:`
    );
    await expect(echo).toContainText(
      `User has attached the source of cell 2 of ${tmpPath}/analysis.ipynb:`
    );
    const fileBlock = echo.locator('pre', { hasText: 'NOTES-START' });
    await expect(fileBlock).toContainText(
      /… \(truncated, 1,?0\d\d more characters\)/
    );
    expect(await fileBlock.textContent()).not.toContain('NOTES-END');
    await expect(echo.locator('pre').last()).toHaveText(
      'total = rows * 2  # the second cell\nprint(total)'
    );
    const record = panel.locator('.jp-AgentPanel-userContext').last();
    await record.locator('summary').click();
    await expect(record).toContainText(`${tmpPath}/data/notes.txt`);
    await expect(record).toContainText(
      `source of cell 2 of ${tmpPath}/analysis.ipynb`
    );
    await waitIdle(panel);
    await expect(panel.locator('[data-attachment]')).toHaveCount(0);
  });

  test('a binary file goes by name, type and size; hidden files are not offered', async ({
    page,
    tmpPath
  }) => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await page.contents.uploadContent(
      bytes.toString('base64'),
      'base64',
      `${tmpPath}/blob.bin`
    );
    await page.notebook.createNew('hidden.ipynb');
    // The kernel runs in the notebook's folder: it writes what the
    // contents API refuses to create.
    await runCode(page, 0, "open('.secret.txt', 'w').write('do not send')");
    const panel = await openPanel(page);
    const input = panel.locator('.jp-AgentPanel-input');
    await input.click();
    await input.pressSequentially(`@${tmpPath}/`);
    await expect(mentions(page)).toHaveText([
      'blob.bin',
      'hidden.ipynbnotebook'
    ]);
    await input.pressSequentially('.s');
    await expect(mentions(page)).toHaveCount(0);
    await input.press('Backspace');
    await input.press('Backspace');
    await expect(mentions(page)).toHaveCount(2);
    await input.press('Enter');
    await expect(contextChip(panel, 'file')).toContainText('blob.bin');
    // A notebook goes as its cells' sources, as saved.
    await page.notebook.save();
    await input.pressSequentially(`@${tmpPath}/hid`);
    await input.press('Enter');
    await expect(contextChip(panel, 'notebook')).toContainText(
      `Notebook${tmpPath}/hidden.ipynb`
    );
    await input.pressSequentially('what are these?');
    await input.press('Enter');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo).toContainText(
      `User has attached the file ${tmpPath}/blob.bin:`
    );
    await expect(echo.locator('pre', { hasText: 'binary file' })).toHaveText(
      '[binary file: application/octet-stream, 256 bytes; content not sent]'
    );
    await expect(echo).toContainText(
      `User has attached the cell sources of the notebook ${tmpPath}/hidden.ipynb:`
    );
    await expect(echo.locator('pre').last()).toContainText(
      "# %% cell 1 [code]\nopen('.secret.txt', 'w').write('do not send')"
    );
    await expect(echo).not.toContainText('.secret.txt:');
  });

  test('a file dropped from the file browser and a cell dragged from the notebook become chips', async ({
    page,
    tmpPath
  }) => {
    await page.contents.uploadContent(
      'hello from a drop\n',
      'text',
      `${tmpPath}/dropped.txt`
    );
    await page.notebook.createNew('drag.ipynb');
    await runCode(page, 0, 'first = 1');
    await runCode(page, 1, 'dragged = 2');
    const panel = await openPanel(page);
    const input = panel.locator('.jp-AgentPanel-input');

    await page.sidebar.openTab('filebrowser');
    await page.filebrowser.refresh();
    const item = page.locator('.jp-DirListing-item', {
      hasText: 'dropped.txt'
    });
    await drag(page, item, input);
    await expect(contextChip(panel, 'file')).toContainText(
      `${tmpPath}/dropped.txt`
    );
    await expect(
      page.locator('.jp-AgentPanel-composer.jp-mod-dropTarget')
    ).toHaveCount(0);

    const cells = await page.notebook.getCellCount();
    const cell = (await page.notebook.getCellLocator(1))!;
    await drag(page, cell.locator('.jp-InputPrompt'), input);
    await expect(contextChip(panel, 'cell')).toHaveText('Cell2 of drag.ipynb×');
    // The drop left the notebook as it was.
    expect(await page.notebook.getCellCount()).toBe(cells);

    await input.fill('what did I drop?');
    await input.press('Enter');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo).toContainText(
      `User has attached the file ${tmpPath}/dropped.txt:`
    );
    await expect(
      echo.locator('pre', { hasText: 'hello from a drop' })
    ).toHaveCount(1);
    await expect(echo.locator('pre').last()).toHaveText('dragged = 2');
  });
});
