/**
 * The Settings Editor's form, on the lab's real settings (no mock): "Default
 * endpoint" is a choice among the endpoints' names, the file on disk keeps
 * only what the user changed, and the form fits its width.
 */
import * as fs from 'fs';
import * as path from 'path';

import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import { BUILT_IN_NAMES, openPanel, PLUGIN_ID } from './review-panel-helpers';

test.use({ mockSettings: false });

/** The user settings file JupyterLab writes for the panel (playwright.config.js names the folder). */
const SETTINGS_FILE = path.join(
  process.env.JUPYTERLAB_SETTINGS_DIR ?? '',
  'jupyterlab-agent-panel',
  'plugin.jupyterlab-settings'
);

/**
 * The settings file as JSON; its text while it is not JSON, as when it is
 * read in the middle of the server's write (not atomic), so the poll goes on.
 */
function savedSettings(): unknown {
  if (!fs.existsSync(SETTINGS_FILE)) {
    return null;
  }
  const text = fs.readFileSync(SETTINGS_FILE, 'utf-8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function openForm(page: IJupyterLabPageFixture): Promise<Locator> {
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('settingeditor:open', {
      query: 'Agent Panel'
    })
  );
  const form = page.locator('.jp-SettingsPanel .jp-SettingsForm').first();
  await expect(form).toContainText('Default endpoint');
  return form;
}

// Each test starts from no user settings, and leaves none to the run's other specs.
test.beforeEach(() => {
  fs.rmSync(SETTINGS_FILE, { force: true });
});
test.afterAll(() => {
  fs.rmSync(SETTINGS_FILE, { force: true });
});

test('Default endpoint is picked among the endpoints, and the file keeps only that choice', async ({
  page
}) => {
  expect(process.env.JUPYTERLAB_SETTINGS_DIR).toBeTruthy();
  const form = await openForm(page);
  const choice = form.locator(`select[id$="${PLUGIN_ID}_defaultEndpoint"]`);
  await expect(choice.locator('option')).toHaveText(BUILT_IN_NAMES);
  await expect(choice).toHaveValue('Built-in agent (server)');
  // A real <label> names it (axe and screen readers).
  await expect(page.getByLabel('Default endpoint')).toHaveCount(1);

  await choice.selectOption('Notebook demo (server)');
  await expect
    .poll(savedSettings, { timeout: 15000 })
    .toEqual({ defaultEndpoint: 'Notebook demo (server)' });

  const panel = await openPanel(page);
  await expect(panel.locator('.jp-AgentPanel-picker')).toHaveValue(
    'Notebook demo (server)'
  );
});

test('an endpoint added in the form is offered as the default, and the form fits its width', async ({
  page
}) => {
  const form = await openForm(page);
  await form.locator('button.jp-mod-accept.jp-ArrayOperationsButton').click();
  const field = (name: string) =>
    form.locator(`[id$="${PLUGIN_ID}_endpoints_0_${name}"]`);
  await field('name').fill('Team echo');
  await field('url').fill('agent-panel/agents/echo/');
  const choice = form.locator(`select[id$="${PLUGIN_ID}_defaultEndpoint"]`);
  await expect(choice.locator('option')).toHaveText([
    'Team echo',
    ...BUILT_IN_NAMES
  ]);
  await choice.selectOption('Team echo');
  // Only what was typed or picked: no default of the schema pinned.
  await expect.poll(savedSettings, { timeout: 15000 }).toEqual({
    endpoints: [{ name: 'Team echo', url: 'agent-panel/agents/echo/' }],
    defaultEndpoint: 'Team echo'
  });

  for (const [width, height] of [
    [1280, 720],
    [1024, 768],
    [800, 600]
  ]) {
    await page.setViewportSize({ width, height });
    if (width < 1000) {
      // JupyterLab gives the form a least width of 360 px (settingeditor's
      // base.css), which the file browser beside it leaves no room for.
      await page.sidebar.close('left');
    }
    // Every field, its label and its description inside the visible column
    // (the Settings Editor's own header is JupyterLab's, left out).
    const overflow = await form.evaluate(root => {
      // What is seen of the form: its ancestors' boxes clip it.
      let right = Infinity;
      for (let node = root.parentElement; node; node = node.parentElement) {
        right = Math.min(right, node.getBoundingClientRect().right);
      }
      const parts = root.querySelectorAll(
        'fieldset input, fieldset select, fieldset textarea, fieldset button, fieldset h3, fieldset legend, .jp-FormGroup-description, .field-description'
      );
      return [...parts]
        .filter(node => {
          const box = node.getBoundingClientRect();
          return box.width > 0 && box.right > right + 1;
        })
        .map(node => node.id || `${node.tagName}.${node.className}`);
    });
    expect(overflow, `at ${width}×${height}`).toEqual([]);
  }

  // The panel follows: a new conversation goes to the chosen endpoint.
  const panel = await openPanel(page);
  await expect(panel.locator('.jp-AgentPanel-picker')).toHaveValue('Team echo');
});
