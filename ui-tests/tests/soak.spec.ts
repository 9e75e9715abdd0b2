/**
 * The soak without real-time collaboration (issue 34 item 6, soak-helpers.ts):
 * the agent's changes and the user's typing in one page; the live notebook
 * and the file on disk hold exactly what both did, cell by cell.
 */
import { expect, test } from '@jupyterlab/galata';

import { playwrightPage } from './fault-server';
import { cells, notebookWith } from './notebook-helpers';
import { graphEndpoint, startFresh } from './review-panel-helpers';
import { soak, SOAK_EDITS, soakTimeout } from './soak-helpers';

test.use({ mockSettings: graphEndpoint('soak') });

test(`${SOAK_EDITS} changes of the agent while the user types: every one kept, in the page and on disk`, async ({
  page,
  request,
  baseURL,
  tmpPath
}, testInfo) => {
  test.setTimeout(soakTimeout(SOAK_EDITS));
  const first = 'typed = 1  #';
  await notebookWith(page, 'soak.ipynb', first);
  const panel = await startFresh(page);
  const expected = await soak(
    panel,
    playwrightPage(page),
    first,
    SOAK_EDITS,
    testInfo
  );
  const sources = async () => (await cells(page)).map(cell => cell.source);
  expect(await sources()).toEqual(expected);
  await page.notebook.save();
  const saved = await request.get(
    `${baseURL}/api/contents/${tmpPath}/soak.ipynb?content=1`
  );
  const { content } = await saved.json();
  expect(content.cells.map((cell: { source: string }) => cell.source)).toEqual(
    expected
  );
});
