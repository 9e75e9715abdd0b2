/**
 * Notebook integration in a real JupyterLab with the real demo agent: an
 * extraction becomes a cell with its output (nothing runs), undo removes it
 * in one step, running it binds the data, and the conversation exports to a
 * notebook whose cells follow it.
 */
import * as path from 'path';

import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

const SCREENSHOT = path.resolve(
  __dirname,
  '../../docs/images/extraction-to-cell.png'
);

type Panel = ReturnType<IJupyterLabPageFixture['locator']>;

async function openPanel(page: IJupyterLabPageFixture): Promise<Panel> {
  await page.sidebar.openTab('jp-agent-panel');
  return page.locator('#jp-agent-panel');
}

async function send(panel: Panel, message: string): Promise<void> {
  const input = panel.locator('.jp-AgentPanel-input');
  await input.fill(message);
  await input.press('Enter');
}

/** Ask the demo agent to use its tool; resolves once its answer is complete. */
async function useATool(panel: Panel): Promise<void> {
  await send(panel, 'use a tool');
  await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
    'That completes the tool_start -> tool_end -> extraction flow.'
  );
}

function insertButton(panel: Panel) {
  return panel
    .locator('.jp-AgentPanel-extraction')
    .last()
    .locator('button[data-command="agent-panel:insert-extraction"]');
}

/** The current notebook's cells as `[type, source]`, read from its model. */
async function cells(
  page: IJupyterLabPageFixture
): Promise<[string, string][]> {
  return page.evaluate(() => {
    const widget = (window as any).jupyterapp.shell.currentWidget;
    return widget.content.model.sharedModel.cells.map((cell: any) => [
      cell.cell_type,
      cell.getSource()
    ]);
  });
}

async function execute(
  page: IJupyterLabPageFixture,
  command: string
): Promise<void> {
  await page.evaluate(
    id => (window as any).jupyterapp.commands.execute(id),
    command
  );
}

test.describe('notebook integration', () => {
  test('an extraction becomes a cell below the active cell, shown but not run', async ({
    page
  }) => {
    await page.notebook.createNew('extraction.ipynb');
    await page.notebook.setCell(0, 'code', 'first = 1');
    await page.notebook.addCell('code', 'second = 2');
    await page.notebook.selectCells(0);
    const panel = await openPanel(page);
    await useATool(panel);

    const button = insertButton(panel);
    await expect(button).toHaveText('Insert into Notebook');
    await expect(button).toHaveAttribute(
      'title',
      'Insert demo_fact as a code cell below the active cell of extraction.ipynb, showing the data without running anything.'
    );
    await button.click();

    await expect.poll(() => page.notebook.getCellCount()).toBe(3);
    const inserted = await cells(page);
    expect(inserted[0]).toEqual(['code', 'first = 1']);
    expect(inserted[1][1]).toContain("demo_fact = json.loads(r'''");
    expect(inserted[2]).toEqual(['code', 'second = 2']);
    const cell = (await page.notebook.getCellLocator(1))!;
    await expect(cell.locator('.jp-OutputArea-output')).toContainText('42');
    await expect(cell.locator('.jp-InputArea-prompt')).toHaveText('[ ]:');
    await page.sidebar.close('left');
    await page.screenshot({ path: SCREENSHOT });

    // Undo (Edit → Undo in the notebook) removes the cell in one step.
    await page.notebook.selectCells(1);
    await execute(page, 'notebook:undo-cell-action');
    expect(await cells(page)).toEqual([
      ['code', 'first = 1'],
      ['code', 'second = 2']
    ]);

    // Insert again, and show that nothing ran: the variable is not defined
    // until the cell is run, and then it holds the data.
    await page.notebook.selectCells(0);
    await button.click();
    await expect.poll(() => page.notebook.getCellCount()).toBe(3);
    await page.notebook.addCell('code', "print('demo_fact' in globals())");
    await page.notebook.runCell(3);
    expect(await page.notebook.getCellTextOutput(3)).toEqual(['False\n']);

    await page.notebook.runCell(1);
    await expect(cell.locator('.jp-InputArea-prompt')).toHaveText('[2]:');
    await expect(
      cell.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
    ).toHaveCount(0);
    await page.notebook.setCell(
      3,
      'code',
      'import json; print(json.dumps(demo_fact, sort_keys=True))'
    );
    await page.notebook.runCell(3);
    expect(await page.notebook.getCellTextOutput(3)).toEqual([
      '{"answer": "42", "query": "use a tool"}\n'
    ]);
  });

  test('the context menu puts an answer in a Markdown cell', async ({
    page
  }) => {
    await page.notebook.createNew('answers.ipynb');
    const panel = await openPanel(page);
    await send(panel, 'hello');
    const answer = panel.locator('.jp-AgentPanel-text').last();
    await expect(answer).toContainText('(demo agent) You said: hello');

    await answer.click({ button: 'right' });
    const menu = page.locator('.lm-Menu');
    await menu.getByText('Insert as Markdown', { exact: true }).click();

    await expect.poll(async () => (await cells(page)).length).toBe(2);
    expect((await cells(page))[1]).toEqual([
      'markdown',
      '(demo agent) You said: hello'
    ]);
  });

  test('with no notebook open, it offers to create one', async ({ page }) => {
    const panel = await openPanel(page);
    await useATool(panel);
    await expect(insertButton(panel)).toHaveAttribute(
      'title',
      'No notebook is open: you will be asked to create one for demo_fact.'
    );
    await insertButton(panel).click();
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog).toContainText(
      'Create a new notebook and insert demo_fact there?'
    );
    await dialog.getByRole('button', { name: 'Create Notebook' }).click();

    await expect.poll(() => page.notebook.isAnyActive()).toBe(true);
    await expect.poll(async () => (await cells(page)).length).toBe(1);
    expect((await cells(page))[0][1]).toContain('demo_fact = json.loads');
  });

  test('export makes a notebook whose cells match the conversation', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'hello');
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      '(demo agent) You said: hello'
    );
    await useATool(panel);

    await page.keyboard.press('Control+Shift+C');
    await page.locator('#command-palette input').fill('Export Conversation');
    await page.keyboard.press('Enter');

    await expect.poll(() => page.notebook.isAnyActive()).toBe(true);
    await expect.poll(async () => (await cells(page)).length).toBe(7);
    const exported = await cells(page);
    expect(exported.map(([type]) => type)).toEqual([
      'markdown',
      'markdown',
      'markdown',
      'markdown',
      'markdown',
      'code',
      'markdown'
    ]);
    expect(exported[0][1]).toMatch(/^# Agent conversation/);
    expect(exported[1][1]).toBe('**You**\n\nhello');
    expect(exported[2][1]).toBe('**Agent**\n\n(demo agent) You said: hello');
    expect(exported[3][1]).toBe('**You**\n\nuse a tool');
    expect(exported[4][1]).toContain('**Tool** `demo_lookup` succeeded.');
    expect(exported[5][1]).toContain("demo_fact = json.loads(r'''");
    expect(exported[6][1]).toContain(
      'That completes the tool_start -> tool_end -> extraction flow.'
    );
    // Saved: the file on disk has the same cells.
    const saved = await page.evaluate(async () => {
      const app = (window as any).jupyterapp;
      const path = app.shell.currentWidget.context.path;
      const model = await app.serviceManager.contents.get(path);
      return model.content.cells.map((cell: any) => cell.cell_type);
    });
    expect(saved).toEqual(exported.map(([type]) => type));
  });
});
