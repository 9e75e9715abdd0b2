/**
 * The soak of issue 34 item 6: the soak agent (graphs/soak.py) inserts
 * `edits` cells at the end of the active notebook, the first ones reviewed
 * and applied, the rest always allowed while a user types into the
 * notebook's first cell. soak.spec.ts runs it without real-time
 * collaboration, collaboration.spec.ts with it; `./scripts/test` runs a short
 * soak (AGENT_PANEL_SOAK_EDITS, 20 by default), `./scripts/soak N` N.
 */
import { expect } from '@jupyterlab/galata';
import type { Locator, Page, TestInfo } from '@playwright/test';

import { reviewOf } from './notebook-helpers';
import { lastTurn, send, waitIdle } from './review-panel-helpers';

/** How many changes the soak makes. */
export const SOAK_EDITS = Number(process.env.AGENT_PANEL_SOAK_EDITS ?? 20);
/** How many of them are reviewed one by one before "always allow". */
const REVIEWED = 3;
/** What the typist types, again and again: no key is a notebook shortcut's alone. */
const TYPED = ' soak';

/** A test's time for a soak of `edits` changes. */
export function soakTimeout(edits: number): number {
  return 120000 + edits * 2000;
}

/**
 * Run the soak in `panel` while `typist` (the same page, or another page on
 * the notebook) types at the end of the first cell, whose source is
 * `first`. Resolves with the sources the notebook must have, cell by cell.
 */
export async function soak(
  panel: Locator,
  typist: Page,
  first: string,
  edits: number,
  testInfo: TestInfo
): Promise<string[]> {
  const started = Date.now();
  await send(panel, `soak ${edits}`);
  for (let reviewed = 0; reviewed < Math.min(REVIEWED, edits); reviewed++) {
    const source = `agent_${reviewed + 1} = ${reviewed + 1}`;
    const review = reviewOf(panel, 'insert_cell').filter({ hasText: source });
    await expect(review).toHaveCount(1);
    if (reviewed === REVIEWED - 1) {
      await review.locator('.jp-AgentPanel-changeAlways input').check();
    }
    await review.locator('.jp-AgentPanel-changeApply').click();
    await expect(review).toHaveCount(0);
  }
  // The rest are always allowed: the user goes back to the notebook.
  const editor = typist
    .locator('.jp-NotebookPanel:visible .jp-Cell')
    .first()
    .locator('.cm-content');
  await editor.click();
  await typist.keyboard.press('Control+End');
  let typing = true;
  let typed = '';
  const typist_ = (async () => {
    while (typing) {
      // Keys typed where the editor is not focused would be notebook
      // shortcuts: fail at once instead.
      expect(
        await editor.evaluate(node => node.contains(document.activeElement)),
        `the first cell's editor keeps the focus (${typed.length} characters typed)`
      ).toBe(true);
      await typist.keyboard.type(TYPED, { delay: 15 });
      typed += TYPED;
    }
  })();
  try {
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toHaveText(
      `Inserted ${edits} cells`,
      { timeout: soakTimeout(edits) }
    );
    await waitIdle(panel);
  } finally {
    typing = false;
    await typist_;
  }
  const seconds = (Date.now() - started) / 1000;
  testInfo.annotations.push({
    type: 'soak',
    description: `${edits} changes (${Math.min(REVIEWED, edits)} reviewed) in ${seconds.toFixed(1)} s while ${typed.length} characters were typed`
  });
  return [
    first + typed,
    ...Array.from({ length: edits }, (_, n) => `agent_${n + 1} = ${n + 1}`)
  ];
}
