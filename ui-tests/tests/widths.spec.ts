/**
 * The panel fits at 250, 320 and 500 px, light and dark (issue 33 item 4):
 * the endpoints' names tell them apart where they are cut (whole in the
 * list and the tooltip), the context chips, the conversation list and
 * "Jump to latest" stay inside the panel, and what is cut has its whole
 * text in a tooltip. The header has its own spec (header.spec.ts).
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import type { Locator, TestInfo } from '@playwright/test';
import { notebookWith } from './notebook-helpers';
import {
  box,
  keepScreenshot,
  send,
  setPanelWidth,
  startFresh,
  THEMES,
  waitIdle,
  WIDTHS
} from './review-panel-helpers';

const NOTEBOOK = 'a-notebook-with-a-rather-long-name-for-a-narrow-panel.ipynb';
const LONG_MESSAGE =
  'A first question with a long title that a narrow panel cannot show whole';

/**
 * Each visible match of `locator` lies inside `panel`, left to right.
 * Measured in one evaluation: the conversation list holds every test's
 * conversations on this shared server, hundreds of elements.
 */
async function expectInside(
  panel: Locator,
  locator: Locator,
  what: string
): Promise<void> {
  const outer = await box(panel);
  const edges = await locator.evaluateAll(nodes =>
    nodes.map(node => {
      const { left, right } = node.getBoundingClientRect();
      return { left, right };
    })
  );
  expect(edges.length, `${what}: some are shown`).toBeGreaterThan(0);
  for (const [index, { left, right }] of edges.entries()) {
    expect(left, `${what} ${index}: left edge`).toBeGreaterThanOrEqual(
      outer.x - 0.5
    );
    expect(right, `${what} ${index}: right edge`).toBeLessThanOrEqual(
      outer.x + outer.width + 0.5
    );
  }
}

/**
 * For each element of `locator`: its text is whole, or cut with its whole
 * text in its own tooltip or in the tooltip of `tooltipOf`.
 */
async function expectWholeOrInTooltip(
  locator: Locator,
  what: string,
  tooltipOf = '*'
): Promise<void> {
  const found = await locator.evaluateAll(
    (nodes, selector) =>
      nodes.map(node => {
        const holder = node.closest<HTMLElement>(selector) ?? node;
        return {
          cut: node.scrollWidth > node.clientWidth + 1,
          text: node.textContent ?? '',
          tooltip: (node as HTMLElement).title || holder.title
        };
      }),
    tooltipOf
  );
  expect(found.length, `${what}: some are shown`).toBeGreaterThan(0);
  for (const [index, { cut, text, tooltip }] of found.entries()) {
    if (cut) {
      expect(tooltip, `${what} ${index} is cut`).toContain(text);
    }
  }
}

/** The part of each option's name the endpoint picker shows when it is chosen. */
async function shownNames(picker: Locator): Promise<string[]> {
  return picker.evaluate((select: HTMLSelectElement) => {
    const style = getComputedStyle(select);
    const room =
      select.clientWidth -
      parseFloat(style.paddingLeft) -
      parseFloat(style.paddingRight);
    const probe = document.createElement('span');
    probe.style.font = style.font;
    probe.style.whiteSpace = 'pre';
    document.body.append(probe);
    const fits = (text: string) => {
      probe.textContent = text;
      return probe.getBoundingClientRect().width <= room;
    };
    const names = [...select.options].map(option => {
      const name = option.text;
      if (fits(name)) {
        return name;
      }
      let shown = '';
      for (const character of name) {
        if (!fits(`${shown}${character}…`)) {
          break;
        }
        shown += character;
      }
      return `${shown}…`;
    });
    probe.remove();
    return names;
  });
}

async function screenshot(
  panel: Locator,
  name: string,
  testInfo: TestInfo
): Promise<void> {
  await keepScreenshot(await panel.screenshot(), name, testInfo);
}

/** Two conversations, the second one long enough to scroll, at 1280×480. */
async function setUp(
  page: IJupyterLabPageFixture,
  title: string
): Promise<Locator> {
  await page.setViewportSize({ width: 1280, height: 480 });
  await notebookWith(page, NOTEBOOK, 'x = 1');
  const panel = await startFresh(page);
  await send(panel, title);
  await waitIdle(panel);
  await panel.locator('.jp-AgentPanel-newChat').click();
  for (const word of ['one', 'two', 'three', 'four', 'five']) {
    await send(panel, word);
    await waitIdle(panel);
  }
  return panel;
}

for (const width of WIDTHS) {
  test(`at ${width} px, light and dark, nothing a user needs is cut or outside`, async ({
    page
  }, testInfo) => {
    const title = `At ${width} px: ${LONG_MESSAGE}`;
    const panel = await setUp(page, title);
    await setPanelWidth(page, panel, width);
    const picker = panel.locator('.jp-AgentPanel-picker');
    const transcript = panel.locator('.jp-AgentPanel-transcript');
    const jump = panel.locator('.jp-AgentPanel-jump');
    for (const [theme, apply] of Object.entries(THEMES)) {
      await apply(page);
      // Endpoints: told apart by what the picker shows; whole in the list.
      const names = await picker.evaluate((select: HTMLSelectElement) =>
        [...select.options].map(option => option.text)
      );
      const shown = await shownNames(picker);
      testInfo.annotations.push({
        type: 'endpoints',
        description: `${width} px: ${shown.join(' | ')}`
      });
      expect(new Set(shown).size, shown.join(' | ')).toBe(names.length);
      for (const name of names) {
        expect(name.endsWith('…')).toBe(false);
      }
      const chosen = await picker.evaluate(
        (select: HTMLSelectElement) => select.selectedOptions[0].text
      );
      expect(await picker.getAttribute('title')).toContain(chosen);

      // The chips: inside the panel, a cut value whole in the chip's tooltip.
      const chips = panel.locator('.jp-AgentPanel-chip:visible');
      expect(await chips.count()).toBeGreaterThanOrEqual(2);
      await expectInside(panel, chips, 'chip');
      await expectWholeOrInTooltip(
        panel.locator('.jp-AgentPanel-chipValue:visible'),
        'chip value',
        '.jp-AgentPanel-chip'
      );

      // "Jump to latest": one line, inside the panel.
      await transcript.hover();
      await page.mouse.wheel(0, -3000);
      await expect(jump).toBeVisible();
      await expectInside(panel, jump, 'Jump to latest');
      const lines = await jump.evaluate(node => {
        const style = getComputedStyle(node);
        const line =
          parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
        return Math.round(
          (node.clientHeight -
            parseFloat(style.paddingTop) -
            parseFloat(style.paddingBottom)) /
            line
        );
      });
      expect(lines).toBe(1);
      await screenshot(panel, `widths-chat-${width}-${theme}`, testInfo);
      await jump.click();
      await expect(jump).toBeHidden();

      // The conversation list: rows inside; titles whole or in the
      // tooltip; the time it was last active whole (it wraps, not cut).
      await panel.locator('.jp-AgentPanel-conversationsButton').click();
      // Ours, and those of the tests before on this server.
      const rows = panel.locator('.jp-AgentPanel-conversation');
      await expect(rows.filter({ hasText: `At ${width} px:` })).toHaveCount(1);
      await expectInside(panel, rows, 'conversation');
      await expectInside(
        panel,
        panel.locator('.jp-AgentPanel-conversation button:visible'),
        'conversation button'
      );
      await expectWholeOrInTooltip(
        panel.locator('.jp-AgentPanel-conversationTitle'),
        'conversation title',
        '.jp-AgentPanel-conversationOpen'
      );
      const metas = await panel
        .locator('.jp-AgentPanel-conversationMeta')
        .evaluateAll(nodes =>
          nodes.map(node => ({
            whole: node.scrollWidth <= node.clientWidth + 1,
            text: node.textContent ?? ''
          }))
        );
      expect(metas.length).toBeGreaterThan(0);
      for (const [index, { whole, text }] of metas.entries()) {
        expect(whole, `time of conversation ${index}: ${text}`).toBe(true);
        expect(text).toMatch(/ago|now|seconds|minute/);
      }
      await screenshot(panel, `widths-list-${width}-${theme}`, testInfo);
      await panel.locator('.jp-AgentPanel-conversationsButton').click();
      await expect(rows.first()).toBeHidden();
    }
    await THEMES.light(page);
  });
}
