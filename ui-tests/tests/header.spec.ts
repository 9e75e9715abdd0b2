/**
 * The panel header fits its one toolbar row at every right-sidebar width
 * from JupyterLab's minimum (250 px) up, in the light and dark themes:
 * nothing wraps onto a second line or covers the transcript, and a long
 * endpoint name or URL is cut with an ellipsis, the full text in its tooltip.
 */
import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test
} from '@jupyterlab/galata';
import type { Locator, TestInfo } from '@playwright/test';
import {
  box,
  type IBox,
  keepScreenshot,
  lastTurn,
  openPanel,
  PLUGIN_ID,
  send,
  setPanelWidth,
  THEMES,
  waitIdle,
  WIDTHS
} from './review-panel-helpers';

/**
 * One toolbar row: JupyterLab gives a side panel's toolbar
 * `--jp-private-toolbar-height`, 31 px + a 1 px border = 32 px.
 */
const TOOLBAR_ROW_PX = 32;
function overlaps(a: IBox, b: IBox): boolean {
  return (
    a.x < b.x + b.width &&
    b.x < a.x + a.width &&
    a.y < b.y + b.height &&
    b.y < a.y + a.height
  );
}

/**
 * The header is one toolbar row, every control inside it (none clipped off
 * its end, none on a second line) and none over the transcript. Returns the
 * header's measured height: from its top to its lowest control's bottom.
 */
async function expectHeaderFits(panel: Locator): Promise<number> {
  const toolbar = await box(panel.locator('.jp-SidePanel-toolbar'));
  const transcript = await box(panel.locator('.jp-AgentPanel-transcript'));
  const controls = panel.locator(
    '.jp-SidePanel-toolbar > .jp-Toolbar-item:visible'
  );
  // Endpoint picker, endpoint address (from 400 px: narrower, it would be
  // a sliver; the picker's tooltip has it), health, Test connection,
  // Conversations, New.
  const wide = (await box(panel)).width >= 400;
  await expect(controls).toHaveCount(wide ? 6 : 5);
  let bottom = toolbar.y + toolbar.height;
  for (const control of await controls.all()) {
    const name = await control.getAttribute('data-jp-item-name');
    const own = await box(control);
    bottom = Math.max(bottom, own.y + own.height);
    expect(own.y, `${name}: top inside the header`).toBeGreaterThanOrEqual(
      toolbar.y - 0.5
    );
    expect(own.x, `${name}: left inside the header`).toBeGreaterThanOrEqual(
      toolbar.x - 0.5
    );
    expect(
      own.x + own.width,
      `${name}: right end inside the header`
    ).toBeLessThanOrEqual(toolbar.x + toolbar.width + 0.5);
    expect(overlaps(own, transcript), `${name} covers the transcript`).toBe(
      false
    );
  }
  const height = bottom - toolbar.y;
  expect(height).toBeCloseTo(TOOLBAR_ROW_PX, 0);
  return height;
}

/** The panel's top: the header and the transcript's first lines. */
async function headerScreenshot(
  page: IJupyterLabPageFixture,
  panel: Locator,
  name: string,
  testInfo: TestInfo
): Promise<void> {
  const { x, y, width } = await box(panel);
  const body = await page.screenshot({ clip: { x, y, width, height: 220 } });
  await keepScreenshot(body, name, testInfo);
}

test.describe('the panel header', () => {
  test('fits one row at the default sidebar width', async ({ page }) => {
    const panel = await openPanel(page);
    await expect(panel.locator('.jp-AgentPanel-health')).toContainText('Ready');
    // Icons instead of words, named (and explained in the tooltip) for everyone.
    for (const [item, name] of [
      ['test-connection', 'Test the connection to this endpoint'],
      ['conversations', 'Conversations: open, rename or delete one'],
      ['new-conversation', 'Start a new conversation']
    ]) {
      const slot = panel.locator(`[data-jp-item-name="${item}"]`);
      await expect(
        slot.getByRole('button', { name: new RegExp(name) })
      ).toBeVisible();
      await expect(slot.locator('.jp-ToolbarButtonComponent')).toHaveAttribute(
        'title',
        new RegExp(name)
      );
      await expect(slot.locator('svg')).toBeVisible();
      await expect(slot).toHaveText('');
    }
    const width = Math.round((await box(panel)).width);
    const height = await expectHeaderFits(panel);
    test.info().annotations.push({
      type: 'header',
      description: `default width ${width} px: header ${height} px`
    });
  });

  for (const width of WIDTHS) {
    test(`fits one row at ${width} px, light and dark`, async ({
      page
    }, testInfo) => {
      await page.setViewportSize({ width: 1400, height: 900 });
      const panel = await openPanel(page);
      await expect(panel.locator('.jp-AgentPanel-health')).toContainText(
        'Ready'
      );
      await send(panel, 'hello');
      await expect(
        lastTurn(panel).locator('.jp-AgentPanel-text')
      ).toContainText('(demo agent) You said: hello');
      await waitIdle(panel);
      await setPanelWidth(page, panel, width);
      for (const [theme, apply] of Object.entries(THEMES)) {
        await apply(page);
        const height = await expectHeaderFits(panel);
        // Below 400 px the health symbol stands alone; the tooltip has the
        // words. Shown, the words are whole, not cut to "Re…".
        const label = panel.locator('.jp-AgentPanel-healthLabel');
        await expect(label).toBeVisible({ visible: width >= 400 });
        if (width >= 400) {
          expect(
            await label.evaluate(node => node.scrollWidth <= node.clientWidth)
          ).toBe(true);
        }
        testInfo.annotations.push({
          type: 'header',
          description: `${width} px, ${theme}: header ${height} px`
        });
        await headerScreenshot(
          page,
          panel,
          `header-${width}-${theme}`,
          testInfo
        );
      }
    });
  }
});

test.describe('a long endpoint name and URL', () => {
  const name =
    'The shared research agent of the data platform team (staging, EU)';
  const url = `agent-panel/agents/echo/?${'long-query-'.repeat(8)}`;
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN_ID]: {
        endpoints: [{ name, transport: 'http', url }],
        defaultEndpoint: name
      }
    }
  });

  test('are cut with an ellipsis, the full text in the tooltip', async ({
    page
  }, testInfo) => {
    await page.setViewportSize({ width: 1400, height: 900 });
    const panel = await openPanel(page);
    const picker = panel.locator('.jp-AgentPanel-picker');
    const address = panel.locator('.jp-AgentPanel-endpoint');
    // Narrow: the name is cut, the address left out; the tooltip has both.
    await setPanelWidth(page, panel, 250);
    await expectHeaderFits(panel);
    await expect(picker).toHaveValue(name);
    await expect(picker).toHaveAttribute('title', new RegExp(escape(name)));
    await expect(picker).toHaveAttribute('title', new RegExp(escape(url)));
    await expect(address).toBeHidden();
    await headerScreenshot(page, panel, 'header-250-long-names', testInfo);
    // Wider: the address shows too, cut as well.
    await setPanelWidth(page, panel, 500);
    await expectHeaderFits(panel);
    await expect(address).toHaveText(new RegExp(`${escape(url)}$`));
    await expect(address).toHaveAttribute('title', new RegExp(escape(url)));
    const texts = [picker, address.locator('.jp-AgentPanel-endpointText')];
    for (const cut of texts) {
      await expect(cut).toHaveCSS('text-overflow', 'ellipsis');
      // An ellipsis is drawn only by a block container, not by a flex box.
      await expect(cut).toHaveCSS('display', /^(block|inline-block)$/);
      // Narrower than its text: the ellipsis shows.
      expect(await cut.evaluate(textOverflow)).toBeGreaterThan(0);
    }
  });
});

/** How many px of its text `node` cannot show. */
function textOverflow(node: Element): number {
  const probe = document.createElement('span');
  probe.style.font = getComputedStyle(node).font;
  probe.style.whiteSpace = 'pre';
  probe.textContent =
    node instanceof HTMLSelectElement
      ? node.selectedOptions[0].text
      : node.textContent;
  document.body.append(probe);
  const needed = probe.getBoundingClientRect().width;
  probe.remove();
  return needed - node.clientWidth;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
