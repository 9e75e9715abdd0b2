/**
 * Outputs and errors as context, in a real JupyterLab with a real kernel:
 * a cell's error or output attached from its context menu ("Explain this
 * error", "Ask the agent about this") or offered after a cell failed, and
 * what the agent receives: the `echo` graph answers with the message and
 * the context block the server appends (docs/protocol.md §6.2); the
 * stateless AG-UI server records the `RunAgentInput` it got
 * (docs/protocol.md §8.3).
 */
import * as path from 'path';

import { expect, galata, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { ChildProcess } from 'child_process';
import {
  contextChip as chip,
  freePort,
  graphEndpoint,
  lastTurn,
  openPanel,
  PLUGIN_ID,
  runCode,
  startAguiTestServer,
  waitIdle,
  widenPanel
} from './review-panel-helpers';

const IMAGES = path.resolve(__dirname, '..', '..', 'docs', 'images');

/** A 1×1 PNG. */
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PIXEL_BYTES = Buffer.from(PIXEL, 'base64').length;
const SHOW_PIXEL = `from IPython.display import Image, display\nimport base64\ndisplay(Image(data=base64.b64decode("${PIXEL}")))`;

/** Right-click the first output of cell `index` and choose `item`. */
async function fromOutputMenu(
  page: IJupyterLabPageFixture,
  index: number,
  item: string
): Promise<void> {
  const cell = (await page.notebook.getCellLocator(index))!;
  await cell.locator('.jp-OutputArea-child').first().click({ button: 'right' });
  await page.getByRole('menuitem', { name: item, exact: true }).click();
}

test.describe('outputs and errors, against the echo graph', () => {
  test.use({ mockSettings: graphEndpoint('echo') });

  test('"Explain this error" attaches the traceback, ANSI stripped, and asks', async ({
    page,
    tmpPath
  }) => {
    await widenPanel(page);
    await page.notebook.createNew('errors.ipynb');
    await runCode(page, 0, 'x = 1');
    await runCode(page, 1, 'y = x / 0');
    await fromOutputMenu(page, 1, 'Explain this error');

    const panel = page.locator('#jp-agent-panel');
    const input = panel.locator('.jp-AgentPanel-input');
    await expect(input).toHaveValue('Explain this error and how to fix it.');
    await expect(input).toBeFocused();
    const source = `cell 2 of ${tmpPath}/errors.ipynb`;
    await expect(
      chip(panel, 'error').and(panel.locator('[data-attachment]'))
    ).toHaveText('Errorcell 2 of errors.ipynb×');

    await page.sidebar.close('left');
    await page.screenshot({ path: path.join(IMAGES, 'context-error.png') });

    await input.press('Enter');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo).toContainText(
      `User has attached the error output of ${source}:`
    );
    const block = echo.locator('pre').last();
    await expect(block).toContainText('ZeroDivisionError: division by zero');
    await expect(block).toContainText('Traceback');
    await expect(block).toContainText('y = x / 0');
    // Colours are escape sequences in the kernel's traceback: none arrive.
    expect(await block.textContent()).not.toContain('\u001b');
    await expect(
      panel.locator('.jp-AgentPanel-userContext summary').last()
    ).toContainText(`error in ${source}`);
    await waitIdle(panel);
    // Attached to that message only.
    await expect(panel.locator('[data-attachment]')).toHaveCount(0);
  });

  test('a cell that just failed offers its error; + attaches it', async ({
    page,
    tmpPath
  }) => {
    await page.notebook.createNew('offered.ipynb');
    const panel = await openPanel(page);
    await runCode(page, 0, 'raise KeyError("missing")');
    const offered = panel.locator('.jp-AgentPanel-chip.jp-mod-offered');
    await expect(offered).toHaveText('Errorcell 1 of offered.ipynb+');
    await expect(offered).toHaveAttribute(
      'title',
      new RegExp(`cell 1 of ${tmpPath}/offered\\.ipynb`)
    );
    await offered.locator('button').click();
    await expect(offered).toHaveCount(0);
    const input = panel.locator('.jp-AgentPanel-input');
    await input.fill('why?');
    await input.press('Enter');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo.locator('pre').last()).toContainText(
      "KeyError: 'missing'"
    );
    await waitIdle(panel);
    // Fixed and run again: nothing to offer any more.
    await runCode(page, 0, 'missing = 1');
    await expect(offered).toHaveCount(0);
  });

  test('an image output reaches a text-only agent as a placeholder naming type and size', async ({
    page
  }) => {
    await page.notebook.createNew('image.ipynb');
    await runCode(page, 0, SHOW_PIXEL);
    await fromOutputMenu(page, 0, 'Ask the agent about this');
    const panel = page.locator('#jp-agent-panel');
    await expect(chip(panel, 'image')).toContainText('Image');
    const input = panel.locator('.jp-AgentPanel-input');
    await expect(input).toHaveValue('About this output: ');
    await input.pressSequentially('what is it?');
    await input.press('Enter');
    const echo = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(echo).toContainText('User has attached an image output of');
    await expect(echo.locator('pre').last()).toHaveText(
      `[image output: image/png, ${PIXEL_BYTES} bytes; not sent as an image]`
    );
  });
});

test.describe('an image output, against an AG-UI agent that takes images', () => {
  const python = process.env.PYTHON ?? 'python';
  const port = freePort(python);
  const url = `http://127.0.0.1:${port}/`;
  let server: ChildProcess | null = null;

  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN_ID]: {
        endpoints: [{ name: 'Multimodal', transport: 'agui', url }],
        defaultEndpoint: 'Multimodal'
      }
    }
  });

  test.beforeAll(async () => {
    server = await startAguiTestServer(
      'stateless_agui_server.py',
      port,
      python,
      ['--multimodal']
    );
  });

  test.afterAll(() => {
    server?.kill();
  });

  test('goes as an image part of the user message, validated by ag-ui-protocol', async ({
    page
  }) => {
    await page.notebook.createNew('image.ipynb');
    await runCode(page, 0, SHOW_PIXEL);
    const panel = await openPanel(page);
    // The agent's health declares that it takes images.
    await expect(panel.locator('.jp-AgentPanel-health')).toHaveAttribute(
      'title',
      /Multimodal test agent/
    );
    await fromOutputMenu(page, 0, 'Ask the agent about this');
    const input = panel.locator('.jp-AgentPanel-input');
    await input.pressSequentially('what is it?');
    await input.press('Enter');
    await waitIdle(panel);
    const inputs = await (await fetch(`${url}_inputs`)).json();
    const sent = inputs[inputs.length - 1];
    const user = sent.messages[sent.messages.length - 1];
    expect(user.role).toBe('user');
    expect(user.content).toEqual([
      { type: 'text', text: 'About this output: what is it?' },
      {
        type: 'image',
        source: { type: 'data', value: PIXEL, mimeType: 'image/png' },
        metadata: {
          source: expect.stringMatching(/^cell 1 of .*image\.ipynb$/)
        }
      }
    ]);
    // The image is not repeated as a context entry.
    expect(
      sent.context.filter((entry: any) => /image/i.test(entry.description))
    ).toEqual([]);
  });
});
