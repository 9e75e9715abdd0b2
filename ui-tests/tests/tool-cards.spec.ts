/**
 * The transcript speaks to people (issue 33; docs/protocol.md §12.9, §12.10):
 * a notebook tool call is one line in words with one review (the diff card
 * below the conversation), its cell is a link that shows the cell, the
 * decision is a sentence and Undo takes a change back from its line. With
 * the keyless notebook demo (`agent-panel/agents/notebook-demo/`) at
 * 1280×720, and screenshots of each state at 250, 320 and 500 px, light and
 * dark.
 */
import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test
} from '@jupyterlab/galata';
import type { Locator, TestInfo } from '@playwright/test';
import * as path from 'path';
import { answer, cells, notebookWith, reviewOf } from './notebook-helpers';
import {
  box,
  DOC_IMAGES,
  keepScreenshot,
  openPanel,
  PLUGIN_ID,
  send,
  setPanelWidth,
  startFresh,
  THEMES,
  WIDTHS
} from './review-panel-helpers';

const DEMO = 'Notebook demo';

test.use({
  mockSettings: {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN_ID]: {
      endpoints: [
        {
          name: DEMO,
          transport: 'http',
          url: 'agent-panel/agents/notebook-demo/'
        }
      ],
      defaultEndpoint: DEMO
    }
  },
  viewport: { width: 1280, height: 720 }
});

/** The tool lines of the conversation, those shown. */
function toolLines(panel: Locator): Locator {
  return panel.locator('.jp-AgentPanel-tool:not(.lm-mod-hidden)');
}

/** The panel at each width and theme, kept as `<name>-<width>-<theme>`. */
async function screenshotsOf(
  page: IJupyterLabPageFixture,
  panel: Locator,
  name: string,
  testInfo: TestInfo
): Promise<void> {
  for (const width of WIDTHS) {
    await setPanelWidth(page, panel, width);
    for (const [theme, apply] of Object.entries(THEMES)) {
      await apply(page);
      await keepScreenshot(
        await panel.screenshot(),
        `${name}-${width}-${theme}`,
        testInfo
      );
    }
  }
  await THEMES.light(page);
}

test('a notebook change: one line in words, one compact review, the decision in a sentence, its cell a link', async ({
  page
}, testInfo) => {
  await notebookWith(page, 'cards.ipynb', 'x = 1');
  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  const insert = reviewOf(panel, 'insert_cell');
  await expect(insert).toBeVisible();

  // One line for the call, pointing to the one review: no second card.
  const [line] = await toolLines(panel).all();
  await expect(toolLines(panel)).toHaveCount(1);
  await expect(line.locator('.jp-AgentPanel-toolLabel')).toHaveText(
    'Insert a code cell in the active notebook'
  );
  await expect(line.locator('.jp-AgentPanel-toolStatus')).toHaveText(
    'Waiting for your review'
  );
  await expect(panel.locator('.jp-AgentPanel-review:visible')).toHaveCount(0);
  await expect(insert.locator('.jp-AgentPanel-changeReviewWhere')).toHaveText(
    'cards.ipynb, new cell 2'
  );
  // Highlighted as the notebook's editor highlights Python: the string in
  // the theme's string colour.
  const string = insert.locator('.jp-AgentPanel-diffText span', {
    hasText: "'hello'"
  });
  await expect(string).toHaveCount(1);
  const [shown, themeString, plain] = await string.evaluate(node => {
    const colourOf = (value: string) => {
      const probe = document.createElement('span');
      probe.style.color = value;
      node.parentElement!.appendChild(probe);
      const colour = getComputedStyle(probe).color;
      probe.remove();
      return colour;
    };
    return [
      getComputedStyle(node).color,
      colourOf('var(--jp-mirror-editor-string-color)'),
      getComputedStyle(node.parentElement!).color
    ];
  });
  expect(shown).toBe(themeString);
  expect(shown).not.toBe(plain);
  // At 1280×720 and the default width, the conversation keeps 40% of the panel.
  const conversation = await box(
    panel.locator('.jp-AgentPanel-transcriptArea')
  );
  const whole = await box(panel);
  expect(conversation.height / whole.height).toBeGreaterThanOrEqual(0.4);
  testInfo.annotations.push({
    type: 'layout',
    description: `review pending: conversation ${Math.round(conversation.height)} of ${Math.round(whole.height)} px`
  });
  // "Review the change below" takes the keyboard to it.
  await line.locator('.jp-AgentPanel-tool-review').click();
  await expect(insert.locator('.jp-AgentPanel-changeApply')).toBeFocused();
  await screenshotsOf(page, panel, 'card-review-pending', testInfo);

  await insert.locator('.jp-AgentPanel-changeApply').click();
  await reviewOf(panel, 'run_cell')
    .locator('.jp-AgentPanel-changeApply')
    .click();
  await expect(await answer(panel)).toHaveText(
    'I added a cell and ran it. It printed: hello'
  );
  await expect(toolLines(panel)).toHaveCount(2);
  const [inserted, ran] = await toolLines(panel).all();
  await expect(inserted.locator('.jp-AgentPanel-toolLabel')).toHaveText(
    /^Inserted a code cell in cards\.ipynb \(cell 2\)$/
  );
  await expect(inserted.locator('.jp-AgentPanel-toolOutcome')).toContainText(
    'You applied this change.'
  );
  await expect(ran.locator('.jp-AgentPanel-toolLabel')).toHaveText(
    'Ran cell 2 of cards.ipynb — printed hello'
  );
  // No id, no JSON, no 0-based index in what the lines say.
  const said = await toolLines(panel).allInnerTexts();
  for (const text of said) {
    expect(text).not.toMatch(/[{}]|index \d|[0-9a-f]{8}-[0-9a-f]{4}/);
  }
  await screenshotsOf(page, panel, 'card-applied', testInfo);
  // The user guide's picture of the cards (docs/users/notebook-tools.md): the
  // widest, in the light theme.
  await panel.screenshot({
    path: path.join(DOC_IMAGES, 'tool-cards-applied.png')
  });

  // The cell is a link: it shows the cell in its notebook.
  const link = inserted.locator('.jp-AgentPanel-cellLink');
  expect(
    await link.evaluate(node => {
      const style = getComputedStyle(node);
      return [style.borderTopStyle, style.textDecorationLine];
    })
  ).toEqual(['none', 'underline']);
  await page.notebook.selectCells(0);
  await inserted.locator('.jp-AgentPanel-cellLink').click();
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          (window as any).jupyterapp.shell.currentWidget.content.activeCellIndex
      )
    )
    .toBe(1);
});

test('Undo takes back the change from its line, and refuses when the cell changed since', async ({
  page
}) => {
  await notebookWith(page, 'undo.ipynb', 'x = 1');
  const panel = await startFresh(page);
  await send(panel, 'add a cell that prints hello');
  await reviewOf(panel, 'insert_cell')
    .locator('.jp-AgentPanel-changeApply')
    .click();
  await reviewOf(panel, 'run_cell')
    .locator('.jp-AgentPanel-changeApply')
    .click();
  await answer(panel);
  const inserted = toolLines(panel).first();
  expect((await cells(page)).map(cell => cell.source)).toEqual([
    'x = 1',
    "print('hello')"
  ]);

  // The user edits the agent's cell: Undo would lose that, so it refuses.
  await page.notebook.setCell(1, 'code', "print('hello')  # mine");
  await inserted.locator('.jp-AgentPanel-tool-undo').click();
  await expect(
    inserted.locator('.jp-AgentPanel-toolUndoProblem')
  ).toContainText('Cell 2 of');
  expect((await cells(page))[1].source).toBe("print('hello')  # mine");

  // Put back as the agent left it, Undo removes the cell, as one step.
  await page.notebook.setCell(1, 'code', "print('hello')");
  await inserted.locator('.jp-AgentPanel-tool-undo').click();
  await expect(inserted.locator('.jp-AgentPanel-toolUndone')).toHaveText(
    'Undone.'
  );
  await expect.poll(async () => (await cells(page)).length).toBe(1);
  await expect(inserted.locator('.jp-AgentPanel-tool-undo')).toHaveCount(0);
});

test('a rejection is a decision, not a failure', async ({ page }) => {
  await notebookWith(page, 'reject.ipynb', 'x = 1');
  const panel = await openPanel(page);
  await panel.locator('.jp-AgentPanel-newChat').click();
  await send(panel, 'add a cell that prints hello');
  const insert = reviewOf(panel, 'insert_cell');
  await insert.locator('.jp-AgentPanel-changeReject').click();
  await insert.locator('.jp-AgentPanel-reviewInput').fill('not now');
  await insert.locator('.jp-AgentPanel-changeSendReject').click();
  await answer(panel);
  const line = toolLines(panel).first();
  await expect(line).toHaveAttribute('data-status', 'rejected');
  await expect(line.locator('.jp-AgentPanel-toolStatus')).toHaveText(
    'Rejected'
  );
  await expect(line.locator('.jp-AgentPanel-toolOutcome')).toHaveText(
    'You rejected it: not now'
  );
  await expect(line).not.toContainText('Failed');
});
