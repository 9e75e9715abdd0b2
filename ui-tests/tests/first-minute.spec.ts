/**
 * The first minute, on the built-in agent's keyless demo
 * (docs/protocol.md §16.8), in a real lab: an empty conversation offers the
 * prompts the demo's health suggests (docs/protocol.md §6.1) beside the hint
 * about connecting a model; a click runs one; the long answer can be stopped
 * and ends as stopped; a selection in a notebook is quoted back; the quiz is
 * a question answered in its own box (docs/protocol.md §5.4); the plan shows
 * in the plan pane; what was typed and not sent survives a reload.
 */
import { expect, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import { notebookWith } from './notebook-helpers';
import {
  contextChip,
  lastTurn,
  openPanel,
  panelAfterReload,
  screenshot,
  startFresh,
  waitIdle,
  widenPanel
} from './review-panel-helpers';

/** What the keyless demo suggests (jupyterlab_agent_panel/demo/showcase.py). */
const PROMPTS = [
  'Write a long answer',
  'What did I attach?',
  'Quiz me',
  'Make a plan',
  'Think about it'
];

function prompts(panel: Locator): Locator {
  return panel.locator('.jp-AgentPanel-prompts');
}

/** Click the suggested prompt `text`; it is the conversation's message. */
async function runPrompt(panel: Locator, text: string): Promise<void> {
  await prompts(panel).getByRole('button', { name: text, exact: true }).click();
  await expect(panel.locator('.jp-AgentPanel-user').last()).toHaveText(text);
}

test.describe('the first minute, on the keyless demo', () => {
  test('an empty conversation offers the demo’s prompts; a click runs one and they go', async ({
    page
  }, testInfo) => {
    await widenPanel(page);
    const panel = await startFresh(page);
    await expect(prompts(panel).locator('.jp-AgentPanel-prompt')).toHaveText(
      PROMPTS
    );
    await expect(prompts(panel)).toHaveAttribute(
      'aria-label',
      'Suggested messages'
    );
    // The hint about connecting a model stays beside them.
    await expect(panel.locator('.jp-AgentPanel-demoHint')).toBeVisible();
    await screenshot(panel, 'first-minute-prompts', testInfo);

    await runPrompt(panel, 'Think about it');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      'Done reasoning'
    );
    await expect(prompts(panel)).toBeHidden();
    await expect(panel.locator('.jp-AgentPanel-demoHint')).toBeHidden();
    await waitIdle(panel);
    // A new conversation offers them again.
    await panel.locator('.jp-AgentPanel-newChat').click();
    await expect(prompts(panel).locator('.jp-AgentPanel-prompt')).toHaveText(
      PROMPTS
    );
  });

  test('the long answer streams until Stop, and the turn ends as stopped', async ({
    page
  }) => {
    const panel = await startFresh(page);
    await runPrompt(panel, 'Write a long answer');
    const text = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(text).toContainText('so you can see how the panel streams');
    const stop = panel.locator('.jp-AgentPanel-stop');
    await expect(stop).toBeVisible();
    await stop.click();

    const turn = lastTurn(panel);
    await expect(turn.locator('.jp-AgentPanel-cancelled')).toContainText(
      'Stopped: Execution cancelled by user'
    );
    await waitIdle(panel);
    await expect(text).not.toContainText('That is the end of this long answer');
    await expect(panel.locator('.jp-AgentPanel-input')).toBeEnabled();
  });

  test('a selection in a notebook goes with "What did I attach?" and is quoted back', async ({
    page
  }) => {
    const panel = await startFresh(page);
    await notebookWith(
      page,
      'first-minute.ipynb',
      'alpha = "selected words"\nbeta = 2'
    );
    // Select the first line of the cell as a user would.
    const cell = (await page.notebook.getCellLocator(0))!;
    await cell.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+End');
    await openPanel(page);
    await expect(contextChip(panel, 'selection')).toHaveText(
      /^Selectioncell 1 of first-minute\.ipynb×$/
    );

    await runPrompt(panel, 'What did I attach?');
    const answer = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(answer).toContainText(
      'You attached one thing to this message'
    );
    await expect(answer).toContainText('The selection from cell index 0:');
    await expect(answer.locator('pre')).toHaveText('alpha = "selected words"');
    await expect(answer).not.toContainText('beta = 2');
    await expect(answer).toContainText('first-minute.ipynb');
    await waitIdle(panel);
  });

  test('"Quiz me" asks a question answered in its own box', async ({
    page
  }) => {
    const panel = await startFresh(page);
    await runPrompt(panel, 'Quiz me');
    // The answer starts a turn of its own: the card stays in the question's.
    const card = panel.locator('.jp-AgentPanel-review');
    await expect(card.locator('.jp-AgentPanel-reviewHeading')).toHaveText(
      'The agent asks you a question'
    );
    await expect(card.locator('.jp-AgentPanel-reviewQuestion')).toHaveText(
      'What is 6 × 7?'
    );
    // A question, not an action to approve or reject.
    await expect(card.locator('[data-verb]')).toHaveCount(0);
    await expect(card.locator('.jp-AgentPanel-reviewAction')).toHaveCount(0);
    const box = card.locator('.jp-AgentPanel-reviewInput');
    await expect(box).toBeVisible();
    await expect(box).toHaveAttribute('placeholder', 'Your answer (required)');
    await expect(panel.locator('.jp-AgentPanel-input')).toBeDisabled();

    await box.fill('42');
    await card.locator('.jp-AgentPanel-confirm').click();
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      'Right: 6 × 7 = 42.'
    );
    await expect(card.locator('.jp-AgentPanel-reviewHeading')).toHaveText(
      'Answer sent'
    );
    await expect(card).toContainText('Sent: Responded: 42');
    await waitIdle(panel);
    await expect(panel.locator('.jp-AgentPanel-input')).toBeEnabled();
  });

  test('"Make a plan" shows the plan in the plan pane, checked off step by step', async ({
    page
  }) => {
    const panel = await startFresh(page);
    const plan = panel.locator('.jp-AgentPanel-plan');
    await expect(plan).toBeHidden();
    await runPrompt(panel, 'Make a plan');
    await expect(plan).toBeVisible();
    await expect(plan.locator('.jp-AgentPanel-checklistItem')).toHaveText([
      /Load the data/,
      /Plot the distributions/,
      /Write up the findings/
    ]);
    await expect(plan.locator('.jp-AgentPanel-planCount')).toHaveText(
      '3 of 3 done'
    );
    // Said after the last update, in the turn's last text.
    await expect(
      lastTurn(panel).locator('.jp-AgentPanel-text').last()
    ).toContainText('All three steps are checked off.');
    // Each update is in the transcript too, folded to one line.
    await expect(
      lastTurn(panel).locator('.jp-AgentPanel-todos summary')
    ).toHaveText([
      'Plan updated · 0 of 3 done',
      'Plan updated · 1 of 3 done',
      'Plan updated · 2 of 3 done',
      'Plan updated · 3 of 3 done'
    ]);
    await waitIdle(panel);
  });

  test('what was typed and not sent survives a reload, and goes once sent', async ({
    page
  }) => {
    let panel = await startFresh(page);
    const input = () => panel.locator('.jp-AgentPanel-input');
    // A conversation without a message: the new one the reload shows takes it.
    await input().fill('first words');
    await page.reload({ waitForIsReady: false } as any);
    panel = await panelAfterReload(page);
    await expect(input()).toHaveValue('first words');
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveCount(0);

    await input().press('Enter');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      '(demo agent) You said: first words'
    );
    await waitIdle(panel);
    await expect(input()).toHaveValue('');
    await input().fill('a second thought');
    await page.reload({ waitForIsReady: false } as any);
    panel = await panelAfterReload(page);
    // The conversation it was typed in opens again, with it.
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      'first words'
    ]);
    await expect(input()).toHaveValue('a second thought');

    await input().press('Enter');
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      'first words',
      'a second thought'
    ]);
    await waitIdle(panel);
    await page.reload({ waitForIsReady: false } as any);
    panel = await panelAfterReload(page);
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      'first words',
      'a second thought'
    ]);
    await expect(input()).toHaveValue('');
  });
});
