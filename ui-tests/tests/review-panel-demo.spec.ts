/**
 * The review panel against the real demo agent (langstage_core.demo.tools).
 */
import { expect, test } from '@jupyterlab/galata';
import {
  lastTurn,
  openPanel,
  screenshot,
  send,
  waitIdle,
  widenPanel
} from './review-panel-helpers';

test.describe('review panel with the demo agent', () => {
  test('"hello" streams a markdown answer', async ({ page }) => {
    const panel = await openPanel(page);
    await expect(panel.locator('.jp-AgentPanel-health')).toContainText('Ready');
    await send(panel, 'hello');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      '(demo agent) You said: hello'
    );
    await waitIdle(panel);
    await expect(panel.locator('.jp-AgentPanel-working')).toBeHidden();

    await panel.locator('.jp-AgentPanel-newChat').click();
    await expect(panel.locator('.jp-AgentPanel-transcript > *')).toHaveCount(0);
    await send(panel, 'hello again');
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      'hello again'
    ]);
  });

  test('Accel+Shift+Y opens the panel with the cursor in the message box', async ({
    page
  }) => {
    await page.locator('#jp-main-dock-panel').click();
    await page.keyboard.press('Control+Shift+Y');
    await expect(
      page.locator('#jp-agent-panel .jp-AgentPanel-input')
    ).toBeFocused();
  });

  test('"think about it" shows reasoning, collapsed once the answer came', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'think about it');
    const turn = lastTurn(panel);
    await expect(turn.locator('.jp-AgentPanel-text')).toContainText(
      'Done reasoning'
    );
    await waitIdle(panel);
    const reasoning = turn.locator('details.jp-AgentPanel-reasoning');
    await expect(reasoning).toHaveCount(1);
    await expect(reasoning).not.toHaveAttribute('open', '');
    // The reasoning comes before the answer.
    const kinds = await turn
      .locator('[data-item]')
      .evaluateAll(nodes => nodes.map(n => n.className));
    expect(kinds[0]).toContain('jp-AgentPanel-reasoning');
    expect(kinds[1]).toContain('jp-AgentPanel-textItem');
    await reasoning.locator('summary').click();
    await expect(reasoning).toContainText(
      'Let me reason about this step by step.'
    );
  });

  test('"use a tool" shows the tool card with result and duration, and the extraction', async ({
    page
  }, testInfo) => {
    await widenPanel(page);
    const panel = await openPanel(page);
    await send(panel, 'use a tool');
    const turn = lastTurn(panel);
    await expect(turn.locator('.jp-AgentPanel-text')).toContainText(
      'That completes the tool_start -> tool_end -> extraction flow.'
    );
    const tool = turn.locator('.jp-AgentPanel-tool');
    await expect(tool.locator('.jp-AgentPanel-toolLabel')).toHaveText(
      'demo_lookup(query: "use a tool")'
    );
    await expect(tool.locator('.jp-AgentPanel-toolStatus')).toHaveText('Done');
    await expect(tool.locator('.jp-AgentPanel-toolDuration')).toHaveText(
      /\d+(\.\d)? (ms|s)/
    );
    // Details: the arguments and the result as keys and values.
    await tool.locator('.jp-AgentPanel-toolToggle').click();
    await expect(tool.locator('.jp-AgentPanel-toolDetails dl')).toHaveText([
      'queryuse a tool',
      /answer42/
    ]);
    const extraction = turn.locator('.jp-AgentPanel-extraction');
    await expect(
      extraction.locator('.jp-AgentPanel-extractionType')
    ).toHaveText('demo_fact');
    await expect(
      extraction.locator('.jp-AgentPanel-extractionTool')
    ).toHaveText('from demo_lookup');
    await expect(extraction.locator('table tbody tr')).toHaveText([
      'queryuse a tool',
      'answer42'
    ]);
    // The JSON view is JupyterLab's application/json renderer.
    await extraction.locator('.jp-AgentPanel-extractionJson summary').click();
    const json = extraction.locator('.jp-AgentPanel-extractionOutput');
    await expect(json).toHaveClass(/jp-RenderedJSON/);
    await expect(json).toContainText('answer');
    await waitIdle(panel);
    await screenshot(panel, 'demo-tool-light', testInfo);
  });

  test('"ask me a question": Respond "Ada" resumes with that decision', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'ask me a question');
    const review = panel.locator('.jp-AgentPanel-review');
    await expect(review).toContainText('ask_user');
    await expect(review.locator('[data-verb]')).toHaveText([
      'Respond',
      'Approve'
    ]);
    await expect(panel.locator('.jp-AgentPanel-composerNotice')).toContainText(
      'Waiting for your review above.'
    );
    await expect(panel.locator('.jp-AgentPanel-input')).toBeDisabled();
    await review.locator('[data-verb="respond"]').click();
    await review.locator('textarea').fill('Ada');
    await review.locator('.jp-AgentPanel-confirm').click();
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      "Resumed. Your decision was: {'decisions': [{'type': 'respond', 'message': 'Ada'}]}."
    );
    await expect(review).toContainText('Sent: Responded: Ada');
    await expect(panel.locator('.jp-AgentPanel-input')).toBeEnabled();
  });

  test('"ask me a question": Approve resumes with an approval', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'ask me a question');
    const review = panel.locator('.jp-AgentPanel-review');
    await review.locator('[data-verb="approve"]').click();
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}."
    );
    await expect(review).toContainText('Sent: Approved');
  });

  test('a pending review survives a page reload and can be answered after it', async ({
    page,
    baseURL
  }) => {
    let panel = await openPanel(page);
    // The workspace names the conversation shown, for the reload to open it.
    const shownSaved = page.waitForRequest(
      request =>
        request.method() === 'PUT' &&
        request.url().includes('/api/workspaces') &&
        (request.postData() ?? '').includes(
          '"jupyterlab-agent-panel:last-conversation"'
        ),
      { timeout: 30000 }
    );
    await send(panel, 'ask me a question');
    await expect(
      panel.locator('.jp-AgentPanel-review [data-verb="respond"]')
    ).toBeEnabled();
    const id = JSON.parse((await shownSaved).postData()!).data[
      'jupyterlab-agent-panel:last-conversation'
    ];
    // Wait until the server's store holds the paused conversation.
    await expect
      .poll(
        async () =>
          (
            await (
              await page.request.get(
                `${baseURL}/agent-panel/conversations/${id}`
              )
            ).json()
          ).status,
        { timeout: 30000 }
      )
      .toBe('review');
    await page.reload();
    panel = await openPanel(page);
    const review = panel.locator('.jp-AgentPanel-review');
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      'ask me a question'
    ]);
    await expect(panel.locator('.jp-AgentPanel-input')).toBeDisabled();
    await review.locator('[data-verb="respond"]').click();
    await review.locator('textarea').fill('Ada');
    await review.locator('.jp-AgentPanel-confirm').click();
    await expect(lastTurn(panel).locator('.jp-AgentPanel-text')).toContainText(
      "Resumed. Your decision was: {'decisions': [{'type': 'respond', 'message': 'Ada'}]}."
    );
  });

  test('screenshots in light, dark and high-contrast themes', async ({
    page
  }, testInfo) => {
    await widenPanel(page);
    const panel = await openPanel(page);
    await send(panel, 'think about it');
    await waitIdle(panel);
    await send(panel, 'use a tool');
    await waitIdle(panel);
    await send(panel, 'ask me a question');
    await expect(
      panel.locator('.jp-AgentPanel-review [data-verb="respond"]')
    ).toBeEnabled();
    await panel.locator('.jp-AgentPanel-review [data-verb="respond"]').click();
    await screenshot(panel, 'demo-review-light', testInfo);
    await page.theme.setDarkTheme();
    await screenshot(panel, 'demo-review-dark', testInfo);
    await page.theme.setDarkHighContrastTheme();
    await screenshot(panel, 'demo-review-dark-high-contrast', testInfo);
    await page.theme.setLightTheme();
  });
});
