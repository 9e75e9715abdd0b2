/**
 * Working alongside the agent, in a real JupyterLab against the test graphs
 * of ui-tests/graphs: the context chips (what `echo` receives is what they
 * show), the message queue during a `slow` turn, and the live plan of the
 * `todos` graph, inserted into the notebook as a checklist.
 */
import * as path from 'path';

import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import {
  contextChip as chip,
  graphEndpoint,
  lastTurn,
  openPanel,
  send,
  waitIdle,
  widenPanel
} from './review-panel-helpers';

const IMAGES = path.resolve(__dirname, '..', '..', 'docs', 'images');

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

/** Give the current notebook's cells these sources (no typing: no auto-close). */
async function setSources(
  page: IJupyterLabPageFixture,
  sources: string[]
): Promise<void> {
  await page.evaluate(texts => {
    const widget = (window as any).jupyterapp.shell.currentWidget;
    const shared = widget.content.model.sharedModel;
    shared.transact(() => {
      shared.deleteCellRange(0, shared.cells.length);
      shared.insertCells(
        0,
        texts.map((source: string) => ({ cell_type: 'code', source }))
      );
    });
  }, sources);
}

test.describe('context chips, against the echo graph', () => {
  test.use({ mockSettings: graphEndpoint('echo') });

  test('a selected line goes with the message as the chip shows it; a removed chip is not sent', async ({
    page,
    tmpPath
  }) => {
    await widenPanel(page);
    await page.notebook.createNew('context.ipynb');
    await setSources(page, ['x = 1', 'alpha = "selected words"\nbeta = 2']);
    // Select the first line of cell 2 as a user would.
    const cell = (await page.notebook.getCellLocator(1))!;
    await cell.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+End');

    const panel = await openPanel(page);
    await expect(chip(panel, 'directory')).toContainText(tmpPath);
    await expect(chip(panel, 'document')).toHaveText(
      /^Notebookcontext\.ipynb×$/
    );
    await expect(chip(panel, 'selection')).toHaveText(
      /^Selectioncell 2 of context\.ipynb×$/
    );

    await send(panel, 'what is selected?');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo).toContainText(`Current directory: ${tmpPath}`);
    await expect(echo).toContainText(
      `Currently focused file: ${tmpPath}/context.ipynb`
    );
    await expect(echo).toContainText(
      'User has selected the following text from cell index 1:'
    );
    await expect(echo.locator('pre')).toHaveText('alpha = "selected words"');
    await expect(echo).not.toContainText('beta = 2');
    // The record under the message says what went with it.
    await expect(
      panel.locator('.jp-AgentPanel-userContext summary').last()
    ).toHaveText(`Sent with: ${tmpPath} · context.ipynb · cell 2`);
    await waitIdle(panel);

    await panel.locator('.jp-AgentPanel-input').fill('and without it?');
    await page.sidebar.close('left');
    // The notebook with its selection, and the panel with the chips.
    await page.screenshot({ path: path.join(IMAGES, 'context-chips.png') });

    await chip(panel, 'selection').locator('button').click();
    await expect(chip(panel, 'selection')).toHaveClass(/jp-mod-excluded/);
    await panel.locator('.jp-AgentPanel-input').press('Enter');
    await expect(panel.locator('.jp-AgentPanel-user').last()).toHaveText(
      'and without it?'
    );
    const second = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(second).toContainText(
      `Currently focused file: ${tmpPath}/context.ipynb`
    );
    await expect(second).not.toContainText('User has selected');
    await expect(
      panel.locator('.jp-AgentPanel-userContext summary').last()
    ).toHaveText(`Sent with: ${tmpPath} · context.ipynb`);
    // Removed for that message only.
    await expect(chip(panel, 'selection')).not.toHaveClass(/jp-mod-excluded/);
  });
});

test.describe('message queue, against the slow graph', () => {
  test.use({ mockSettings: graphEndpoint('slow') });

  test('two messages queued during a turn run in order after it', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'first ticks=10');
    const input = panel.locator('.jp-AgentPanel-input');
    await expect(panel.locator('.jp-AgentPanel-queueSend')).toBeVisible();
    for (const text of ['second ticks=2', 'third ticks=3']) {
      await input.fill(text);
      await input.press('Enter');
    }
    const queue = panel.locator('.jp-AgentPanel-queue');
    await expect(queue.locator('.jp-AgentPanel-queueText')).toHaveText([
      'second ticks=2',
      'third ticks=3'
    ]);
    await expect(queue.locator('.jp-AgentPanel-queueTitle')).toHaveText(
      '2 queued messages'
    );
    // Nothing was sent while the first turn ran.
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveCount(1);
    await expect(lastTurn(panel)).toContainText('tick3');

    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText(
      ['first ticks=10', 'second ticks=2', 'third ticks=3'],
      { timeout: 60000 }
    );
    const turns = panel.locator('.jp-AgentPanel-turn');
    await expect(turns.locator('.jp-AgentPanel-text')).toHaveText(
      [
        'tick1 tick2 tick3 tick4 tick5 tick6 tick7 tick8 tick9 tick10',
        'tick1 tick2',
        'tick1 tick2 tick3'
      ],
      { timeout: 60000 }
    );
    await waitIdle(panel);
    await expect(queue).toBeHidden();
  });
});

test.describe('live plan, against the todos graph', () => {
  test.use({ mockSettings: graphEndpoint('todos') });

  test('the checklist is updated in place and inserted into the notebook', async ({
    page
  }) => {
    await widenPanel(page);
    await page.notebook.createNew('plan.ipynb');
    const panel = await openPanel(page);
    const plan = panel.locator('.jp-AgentPanel-plan');
    await expect(plan).toBeHidden();
    // Record every count the pane shows, and mark the pane itself.
    await page.evaluate(() => {
      const pane = document.querySelector<HTMLElement>(
        '#jp-agent-panel .jp-AgentPanel-plan'
      )!;
      pane.dataset.probe = 'the same pane';
      const counts: string[] = ((window as any).planCounts = []);
      new MutationObserver(records => {
        for (const record of records) {
          record.addedNodes.forEach(node => counts.push(node.textContent!));
        }
      }).observe(pane.querySelector('.jp-AgentPanel-planCount')!, {
        childList: true
      });
    });

    await send(panel, 'make a plan');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      'Read the notebook; fixing the failing cell next.'
    );
    await expect(plan).toBeVisible();
    await expect(plan.locator('.jp-AgentPanel-planCount')).toHaveText(
      '1 of 3 done'
    );
    // The second list replaced the first in the same pane.
    expect(await page.evaluate(() => (window as any).planCounts)).toEqual([
      '0 of 3 done',
      '1 of 3 done'
    ]);
    await expect(plan).toHaveAttribute('data-probe', 'the same pane');
    const items = plan.locator('.jp-AgentPanel-checklistItem');
    await expect(items).toHaveText([
      /Read the notebook/,
      /Fix the failing cell/,
      /Write a summary/
    ]);
    expect(
      await items.evaluateAll(rows => rows.map(row => row.dataset.status))
    ).toEqual(['completed', 'in_progress', 'pending']);
    // Each update is in the transcript too, folded to one line.
    await expect(
      lastTurn(panel).locator('.jp-AgentPanel-todos summary')
    ).toHaveText(['Plan updated · 0 of 3 done', 'Plan updated · 1 of 3 done']);

    await page.sidebar.close('left');
    await panel.screenshot({ path: path.join(IMAGES, 'plan-pane.png') });

    const toggle = plan.locator('.jp-AgentPanel-planToggle');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(items.first()).toBeHidden();
    await toggle.click();
    await expect(items.first()).toBeVisible();

    await plan
      .locator('button[data-command="agent-panel:insert-plan"]')
      .click();
    await expect.poll(() => page.notebook.getCellCount()).toBe(2);
    expect((await cells(page))[1]).toEqual([
      'markdown',
      '**Agent plan** (1 of 3 done)\n\n' +
        '- [x] Read the notebook\n' +
        '- [ ] Fix the failing cell *(in progress)*\n' +
        '- [ ] Write a summary'
    ]);
  });
});
