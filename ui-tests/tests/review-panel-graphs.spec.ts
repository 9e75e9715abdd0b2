/**
 * The review panel against the named test graphs of ui-tests/graphs, served
 * by the server extension at agent-panel/agents/<name>/.
 */
import { expect, test } from '@jupyterlab/galata';
import {
  graphEndpoint,
  lastTurn,
  openPanel,
  screenshot,
  send,
  waitIdle,
  widenPanel
} from './review-panel-helpers';

test.describe('HITL graph: two actions with different allowed decisions', () => {
  test.use({ mockSettings: graphEndpoint('hitl') });

  test('edit row 1 and reject row 2: the graph receives exactly those decisions', async ({
    page
  }, testInfo) => {
    await widenPanel(page);
    const panel = await openPanel(page);
    await send(panel, 'write the notes');
    const review = panel.locator('.jp-AgentPanel-review');
    const row = (index: number) => review.locator(`[data-row="${index}"]`);
    await expect(row(0).locator('.jp-AgentPanel-reviewAction')).toHaveText(
      'write_file'
    );
    await expect(row(0).locator('[data-verb]')).toHaveText([
      'Reject',
      'Edit',
      'Respond',
      'Approve'
    ]);
    await expect(row(1).locator('.jp-AgentPanel-reviewAction')).toHaveText(
      'execute'
    );
    await expect(row(1).locator('[data-verb]')).toHaveText([
      'Reject',
      'Approve'
    ]);
    // The two calls, made one after the other, are one group that says
    // how they stand, and folds away.
    const group = lastTurn(panel).locator('.jp-AgentPanel-toolGroup');
    const head = group.locator('.jp-AgentPanel-toolGroupHead');
    await expect(head).toHaveText('2 tool calls (2 wait for your review)');
    await expect(group.locator('.jp-AgentPanel-tool')).toHaveCount(2);
    await head.click();
    await expect(head).toHaveAttribute('aria-expanded', 'false');
    await expect(group.locator('.jp-AgentPanel-tool').first()).toBeHidden();
    await head.press('Enter');
    await expect(head).toHaveAttribute('aria-expanded', 'true');
    await expect(group.locator('.jp-AgentPanel-tool')).toHaveText([
      /^write_file\(/,
      /^execute\(/
    ]);
    await expect(review.locator('.jp-AgentPanel-approveAll')).toBeVisible();
    await expect(review.locator('.jp-AgentPanel-rejectAll')).toBeVisible();
    const submit = review.locator('.jp-AgentPanel-reviewSubmit');
    await expect(submit).toBeDisabled();

    await row(0).locator('[data-verb="edit"]').click();
    const editor = row(0).locator('textarea');
    await expect(editor).toHaveValue(/"content": "Draft notes"/);
    await editor.fill(
      '{"path": "notes.md", "content": "Edited by the reviewer"'
    );
    await expect(
      row(0).locator('.jp-AgentPanel-argsEditor .jp-AgentPanel-reviewError')
    ).toContainText('Not valid JSON');
    await expect(row(0).locator('.jp-AgentPanel-confirm')).toBeDisabled();
    await editor.fill(
      '{"path": "notes.md", "content": "Edited by the reviewer"}'
    );
    await expect(row(0).locator('.jp-AgentPanel-diff li')).toHaveText([
      '~ content changed: "Draft notes" → "Edited by the reviewer"'
    ]);
    await screenshot(panel, 'hitl-edit-light', testInfo);
    await row(0).locator('.jp-AgentPanel-confirm').click();

    await row(1).locator('[data-verb="reject"]').click();
    await row(1).locator('textarea').fill('too risky');
    await row(1).locator('.jp-AgentPanel-confirm').click();
    await expect(review.locator('.jp-AgentPanel-reviewProgress')).toHaveText(
      '2 of 2 decided'
    );
    await submit.click();

    const answer = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(answer).toContainText('Tool results:');
    // The edited arguments reached the tool; the rejection's reason replaced the other call.
    await expect(answer).toContainText('wrote 22 chars to notes.md');
    await expect(answer).toContainText('too risky');
    await expect(answer).not.toContainText('ran: rm -rf build');
    await expect(row(0)).toContainText('Sent: Edited the arguments');
    await expect(row(1)).toContainText('Sent: Rejected: too risky');
    await waitIdle(panel);
    await screenshot(panel, 'hitl-answered-light', testInfo);
  });
});

test.describe('slow graph: Stop', () => {
  test.use({ mockSettings: graphEndpoint('slow') });

  test('Stop mid-turn keeps the partial answer and says it was stopped', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await send(panel, 'count');
    const text = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(text).toContainText('tick3');
    await expect(panel.locator('.jp-AgentPanel-working')).toContainText(
      'Working…'
    );
    await panel.locator('.jp-AgentPanel-stop').click();
    await expect(
      lastTurn(panel).locator('.jp-AgentPanel-cancelled')
    ).toContainText('Stopped');
    await expect(panel.locator('.jp-AgentPanel-working')).toBeHidden();
    const stoppedAt = await text.textContent();
    await page.waitForTimeout(1500);
    expect(await text.textContent()).toBe(stoppedAt);
    expect(stoppedAt).not.toContain('tick120');
    await expect(lastTurn(panel).locator('.jp-AgentPanel-retry')).toBeVisible();
  });

  test('Stop works before the first token', async ({ page }) => {
    const panel = await openPanel(page);
    const input = panel.locator('.jp-AgentPanel-input');
    await input.fill('count');
    await input.press('Enter');
    await panel.locator('.jp-AgentPanel-stop').click();
    await expect(
      lastTurn(panel).locator('.jp-AgentPanel-cancelled')
    ).toContainText('Stopped');
    await page.waitForTimeout(1500);
    expect(await lastTurn(panel).textContent()).not.toContain('tick5');
    await expect(input).toBeEnabled();
  });

  test('autoscroll follows at the bottom and offers "Jump to latest" after scrolling up', async ({
    page
  }) => {
    await page.setViewportSize({ width: 1000, height: 420 });
    const panel = await openPanel(page);
    await send(panel, 'count');
    const transcript = panel.locator('.jp-AgentPanel-transcript');
    const text = lastTurn(panel).locator('.jp-AgentPanel-text');
    await expect(text).toContainText('tick40', { timeout: 40000 });
    const gap = () =>
      transcript.evaluate(n => n.scrollHeight - n.scrollTop - n.clientHeight);
    expect(
      await transcript.evaluate(n => n.scrollHeight > n.clientHeight)
    ).toBe(true);
    expect(await gap()).toBeLessThanOrEqual(24);
    const jump = panel.locator('.jp-AgentPanel-jump');
    await expect(jump).toBeHidden();

    await transcript.hover();
    await page.mouse.wheel(0, -2000);
    await expect(jump).toBeVisible();
    const top = await transcript.evaluate(n => n.scrollTop);
    await expect(text).toContainText('tick50', { timeout: 20000 });
    expect(await transcript.evaluate(n => n.scrollTop)).toBe(top);

    await jump.click();
    await expect(jump).toBeHidden();
    await expect(text).toContainText('tick55', { timeout: 20000 });
    expect(await gap()).toBeLessThanOrEqual(24);
    await panel.locator('.jp-AgentPanel-stop').click();
  });
});

test.describe('failing graph', () => {
  test.use({ mockSettings: graphEndpoint('failing') });

  test('shows the error banner under the partial text, with Retry', async ({
    page
  }, testInfo) => {
    await widenPanel(page);
    const panel = await openPanel(page);
    await send(panel, 'try it');
    const turn = lastTurn(panel);
    const banner = turn.locator('.jp-AgentPanel-error');
    await expect(banner).toContainText('The turn failed');
    await expect(banner).toContainText(
      'RuntimeError: the test graph failed on purpose'
    );
    await expect(turn.locator('.jp-AgentPanel-text')).toContainText(
      'Partial answer before the failure'
    );
    const order = await turn
      .locator('.jp-AgentPanel-text, .jp-AgentPanel-error')
      .evaluateAll(nodes => nodes.map(n => n.className.includes('error')));
    expect(order).toEqual([false, true]);
    await screenshot(panel, 'failing-light', testInfo);
    await banner.locator('.jp-AgentPanel-retry').click();
    await expect(panel.locator('.jp-AgentPanel-user')).toHaveText([
      'try it',
      'try it'
    ]);
    await expect(panel.locator('.jp-AgentPanel-error')).toHaveCount(2);
    // Only the latest turn offers Retry.
    await expect(panel.locator('.jp-AgentPanel-retry')).toHaveCount(1);
  });
});

test.describe('markdown graph', () => {
  test.use({ mockSettings: graphEndpoint('markdown') });

  test('renders a table, a code block with Copy, LaTeX and a link', async ({
    page
  }, testInfo) => {
    await widenPanel(page);
    const panel = await openPanel(page);
    await send(panel, 'render');
    await waitIdle(panel);
    const text = lastTurn(panel).locator('.jp-AgentPanel-text');
    // The heading also holds JupyterLab's "¶" anchor link.
    await expect(text.locator('h2')).toContainText('Rendering check');
    await expect(text.locator('table tbody td')).toHaveText([
      'alpha',
      '1',
      'beta',
      '2'
    ]);
    await expect(text.locator('pre').first()).toContainText(
      'print("hello from the agent")'
    );
    await expect(lastTurn(panel).locator('.jp-AgentPanel-copy')).toHaveCount(1);
    await expect(text.locator('mjx-container')).toHaveCount(1);
    await expect(text).not.toContainText('$e^');
    await expect(text.locator('a[href="https://example.org"]')).toHaveText(
      'the example site'
    );
    await screenshot(panel, 'markdown-light', testInfo);
    await page.theme.setDarkTheme();
    await screenshot(panel, 'markdown-dark', testInfo);
    await page.theme.setLightTheme();
  });
});
