/**
 * Live kernel variables as context, in a real JupyterLab with a real kernel:
 * after `%load_ext jupyterlab_agent_panel`, the "Variables…" chip lists the
 * kernel's user variables (asked over the agent_panel comm,
 * docs/protocol.md §7.6) while the message goes to the `echo` graph over HTTP; the echo shows
 * what the agent received. The user's namespace is compared before and after.
 */
import * as path from 'path';

import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
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
const NAMES =
  "print(sorted(k for k in get_ipython().user_ns if not k.startswith('_')))";

/** Put `source` in cell `index`, run it, and return what it printed. */
async function run(
  page: IJupyterLabPageFixture,
  index: number,
  source: string
): Promise<string> {
  await runCode(page, index, source);
  return (await page.notebook.getCellTextOutput(index))?.join('') ?? '';
}

test.describe('kernel variables, against the echo graph', () => {
  test.use({ mockSettings: graphEndpoint('echo') });

  test('a DataFrame goes with its shape, dtypes and head; the namespace is unchanged', async ({
    page,
    tmpPath
  }) => {
    await widenPanel(page);
    await page.notebook.createNew('variables.ipynb');
    await run(page, 0, '%load_ext jupyterlab_agent_panel');
    await run(
      page,
      1,
      "import pandas as pd; df = pd.DataFrame({'city': ['Oslo', 'Rome'], 'people': [0.7, 2.8]}); n = 5"
    );
    const before = await run(page, 2, NAMES);
    expect(before).toContain("'df'");

    const panel = await openPanel(page);
    await panel.locator('.jp-AgentPanel-variablesButton').click();
    const picker = panel.locator('.jp-AgentPanel-variablesPicker');
    const df = picker.locator('li', { hasText: 'df' });
    const textDtype = (await run(page, 3, "print(df['city'].dtype)")).trim();
    await expect(df).toHaveText(
      `dfpandas.DataFrame · 2×2 · city: ${textDtype}, people: float64`
    );
    await expect(picker.locator('li', { hasText: /^nint/ })).toBeVisible();
    await df.locator('input').check();
    await page.sidebar.close('left');
    await page.screenshot({ path: path.join(IMAGES, 'context-variables.png') });
    await picker.getByRole('button', { name: 'Attach' }).click();
    const chip = contextChip(panel, 'variables');
    await expect(chip).toHaveText('Variablesdf×');

    const input = panel.locator('.jp-AgentPanel-input');
    await input.fill('what is in df?');
    await input.press('Enter');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo).toContainText(
      `User has attached variables in the kernel of ${tmpPath}/variables.ipynb:`
    );
    const block = echo.locator('pre').last();
    await expect(block).toContainText('df: pandas.DataFrame');
    await expect(block).toContainText('shape: [2, 2]');
    await expect(block).toContainText(
      `dtypes: city: ${textDtype}, people: float64`
    );
    await expect(block).toContainText('Oslo');
    await expect(block).not.toContainText('n: int');
    await waitIdle(panel);

    // Listing and describing left the user's namespace as it was.
    expect(await run(page, 4, NAMES)).toBe(before);
  });

  test('a huge variable is capped in size, a slow one in time', async ({
    page
  }) => {
    await page.notebook.createNew('huge.ipynb');
    await run(page, 0, '%load_ext jupyterlab_agent_panel');
    await run(
      page,
      1,
      "big = 'x' * 10**7; Slow = type('Slow', (), {'__repr__': lambda self: __import__('time').sleep(3) or 'late'}); slow = Slow()"
    );
    const panel = await openPanel(page);
    const started = Date.now();
    await panel.locator('.jp-AgentPanel-variablesButton').click();
    const picker = panel.locator('.jp-AgentPanel-variablesPicker');
    await expect(picker.locator('li', { hasText: 'big' })).toHaveText(
      'bigstr · length 10000000'
    );
    // The slow repr was given up on, not waited for.
    expect(Date.now() - started).toBeLessThan(3000);
    await picker.locator('li', { hasText: 'big' }).locator('input').check();
    await picker.locator('li', { hasText: 'slow' }).locator('input').check();
    await picker.getByRole('button', { name: 'Attach' }).click();
    const input = panel.locator('.jp-AgentPanel-input');
    await input.fill('sizes?');
    await input.press('Enter');
    const block = lastTurn(panel).locator('.jp-AgentPanel-text pre').last();
    await expect(block).toContainText('big: str\n  length: 10000000\n  repr:');
    await expect(block).toContainText(
      'slow: __main__.Slow\n  repr: (not shown: describing it took longer than 0.5 s)'
    );
    const text = (await block.textContent())!;
    expect(text.length).toBeLessThan(1000);
  });
});
