/**
 * Rewinding the notebook with the conversation (docs/protocol.md §12.11), in
 * a real JupyterLab driven by the keyless notebook demo agent over HTTP (the
 * server's built-in `notebook-demo`, as notebook-tools.spec.ts): a turn
 * inserts a cell, the user types in it, a second turn fixes another cell;
 * "Restore notebook to before this turn" on the first turn shows both
 * changes, the user's cell a conflict left unchecked; Keep changes nothing;
 * after a reload (the change log was saved with the conversation) Apply
 * restores the fixed cell and keeps the user's, and checking that one too
 * brings the notebook back to what it was; each Apply is one step of the
 * notebook's Undo Cell Operation. Editing the first message offers the same
 * card for the turns it leaves behind.
 */
import { expect, galata, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import { answer, cells, notebookWith, reviewOf } from './notebook-helpers';
import {
  keepScreenshot,
  panelAfterReload,
  PLUGIN_ID,
  send,
  startFresh
} from './review-panel-helpers';

const ORIGINAL = 'prnt("hi")';
const MINE = "print('hello, mine')";

test.use({
  mockSettings: {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN_ID]: {
      endpoints: [
        {
          name: 'Notebook demo',
          transport: 'http',
          url: 'agent-panel/agents/notebook-demo/'
        }
      ],
      defaultEndpoint: 'Notebook demo'
    }
  }
});

function rewindCard(panel: Locator): Locator {
  return panel.locator('.jp-AgentPanel-rewind');
}

/** "Restore notebook to before this turn" on the first turn that changed the notebook. */
async function restoreFirstTurn(panel: Locator): Promise<Locator> {
  await panel.locator('.jp-AgentPanel-rewindTurn').first().click();
  const card = rewindCard(panel);
  await expect(card).toBeVisible();
  return card;
}

async function sources(
  page: Parameters<typeof cells>[0],
  name = 'rewind.ipynb'
): Promise<string[]> {
  return (await cells(page, name)).map(cell => cell.source);
}

/**
 * Turn 1 inserts a cell (and runs it), the user types in it, turn 2 fixes
 * the first cell of notebook `name`.
 */
async function twoTurns(
  page: Parameters<typeof notebookWith>[0],
  name: string
): Promise<Locator> {
  await notebookWith(page, name, ORIGINAL, true);
  await page.setViewportSize({ width: 1400, height: 900 });
  const panel = await startFresh(page);
  await page.sidebar.setWidth(480, 'right');
  await send(panel, 'add a cell that prints hello');
  await reviewOf(panel, 'insert_cell')
    .locator('.jp-AgentPanel-changeApply')
    .click();
  await reviewOf(panel, 'run_cell')
    .locator('.jp-AgentPanel-changeApply')
    .click();
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );
  await page.notebook.setCell(1, 'code', MINE);
  await page.notebook.selectCells(0);
  await send(panel, 'fix the error in the active cell');
  await reviewOf(panel, 'edit_cell')
    .locator('.jp-AgentPanel-changeApply')
    .click();
  await expect(await answer(panel)).toContainText('I fixed cell 1');
  expect(await sources(page, name)).toEqual(['print("hi")', MINE]);
  return panel;
}

test('restore the notebook to before a turn: conflicts kept, Keep, and after a reload', async ({
  page
}, testInfo) => {
  const panel = await twoTurns(page, 'rewind.ipynb');

  // Both changes are listed; the cell the user changed is a conflict, unchecked.
  let card = await restoreFirstTurn(panel);
  const rows = card.locator('.jp-AgentPanel-rewindCell');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-status', 'conflict');
  await expect(rows.nth(0).locator('input')).not.toBeChecked();
  await expect(rows.nth(0)).toContainText(
    'rewind.ipynb, cell 2: remove the cell the agent inserted'
  );
  await expect(rows.nth(1)).toHaveAttribute('data-status', 'ready');
  await expect(rows.nth(1).locator('input')).toBeChecked();
  await expect(rows.nth(1).locator('.jp-AgentPanel-diffLine')).toHaveText([
    '−print("hi")',
    '+prnt("hi")'
  ]);
  await keepScreenshot(await card.screenshot(), 'rewind-card', testInfo);
  await page.theme.setDarkTheme();
  await keepScreenshot(await card.screenshot(), 'rewind-card-dark', testInfo);
  await page.theme.setLightTheme();

  // Keep leaves the notebook as it is.
  await card.locator('.jp-AgentPanel-rewindKeep').click();
  await expect(card.locator('.jp-AgentPanel-rewindOutcome')).toHaveText(
    'Kept the notebook as it is: nothing was changed.'
  );
  expect(await sources(page)).toEqual(['print("hi")', MINE]);
  await card.locator('.jp-AgentPanel-rewindClose').click();
  await expect(card).toHaveCount(0);

  // The change log was saved with the conversation: after a reload the
  // action still works (the notebook saved, so it reopens as it is).
  await page.notebook.save();
  await page.waitForTimeout(1500);
  await page.reload({ waitForIsReady: false } as any);
  const reopened = await panelAfterReload(page);
  await expect
    .poll(async () => (await sources(page)).length, { timeout: 30000 })
    .toBe(2);
  card = await restoreFirstTurn(reopened);
  await expect(card.locator('.jp-AgentPanel-rewindCell')).toHaveCount(2);
  await card.locator('.jp-AgentPanel-rewindApply').click();
  await expect(card.locator('.jp-AgentPanel-rewindOutcome')).toContainText(
    'Restored 1 cell'
  );
  await expect(card.locator('.jp-AgentPanel-rewindOutcome')).toContainText(
    '1 cell was left as it is.'
  );
  // The fixed cell is as before the turns; the user's cell is kept.
  expect(await sources(page)).toEqual([ORIGINAL, MINE]);

  // The rewind is one step of the notebook's Undo Cell Operation.
  await undoInNotebook(page, 'z');
  await expect.poll(() => sources(page)).toEqual(['print("hi")', MINE]);

  // Checking the conflict too: both cells go back, and the notebook is as
  // it was before the first turn, again as one undo step.
  await card.locator('.jp-AgentPanel-rewindClose').click();
  card = await restoreFirstTurn(reopened);
  await expect(card.locator('.jp-AgentPanel-rewindCell')).toHaveCount(2);
  await card.locator('.jp-AgentPanel-rewindCheck').first().check();
  await card.locator('.jp-AgentPanel-rewindApply').click();
  await expect(card.locator('.jp-AgentPanel-rewindOutcome')).toContainText(
    'Restored 2 cells'
  );
  expect(await sources(page)).toEqual([ORIGINAL]);
  await undoInNotebook(page, 'z');
  await expect.poll(() => sources(page)).toEqual(['print("hi")', MINE]);
  await undoInNotebook(page, 'Shift+Z');
  await expect.poll(() => sources(page)).toEqual([ORIGINAL]);
});

test('editing the first message offers to rewind the turns it leaves behind', async ({
  page
}) => {
  const panel = await twoTurns(page, 'rewind-edit.ipynb');

  const first = panel.locator('.jp-AgentPanel-userMessage').first();
  await first.locator('.jp-AgentPanel-branch-edit').click();
  await first.locator('.jp-AgentPanel-userEditor').fill('hello');
  await first.locator('.jp-AgentPanel-branch-send').click();

  // A new branch, and the card for both turns left behind.
  await expect(panel.locator('.jp-AgentPanel-user')).toHaveText(['hello']);
  await expect(first.locator('.jp-AgentPanel-branchPosition')).toHaveText(
    '2 / 2'
  );
  const card = rewindCard(panel);
  const rows = card.locator('.jp-AgentPanel-rewindCell');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-status', 'conflict');
  await expect(rows.nth(0).locator('input')).not.toBeChecked();
  await expect(rows.nth(1)).toHaveAttribute('data-status', 'ready');
  await card.locator('.jp-AgentPanel-rewindApply').click();
  await expect(card.locator('.jp-AgentPanel-rewindOutcome')).toContainText(
    'Restored 1 cell'
  );
  // The agent's fix is taken back; the cell the user typed in is kept.
  expect(await sources(page, 'rewind-edit.ipynb')).toEqual([ORIGINAL, MINE]);
});

/** Undo Cell Operation (Z) or Redo (Shift+Z) in the notebook's command mode. */
async function undoInNotebook(
  page: Parameters<typeof notebookWith>[0],
  key: string
): Promise<void> {
  await page.notebook.selectCells(0);
  await page.keyboard.press('Escape');
  await page.keyboard.press(key);
}
