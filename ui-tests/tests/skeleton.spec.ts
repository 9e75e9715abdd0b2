import { expect, test } from '@jupyterlab/galata';

test.describe('walking skeleton', () => {
  test('the demo agent answers "hello" and "use a tool" in the side panel', async ({
    page
  }, testInfo) => {
    await page.sidebar.openTab('jp-agent-panel');
    const panel = page.locator('#jp-agent-panel');
    const input = panel.locator('.jp-AgentPanel-input');

    await input.fill('hello');
    await input.press('Enter');
    await expect(panel.locator('.jp-AgentPanel-user').last()).toHaveText(
      'hello'
    );
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      '(demo agent) You said: hello'
    );

    await input.fill('use a tool');
    await input.press('Enter');
    await expect(panel.locator('.jp-AgentPanel-text').last()).toContainText(
      'That completes the tool_start -> tool_end -> extraction flow.'
    );
    await expect(panel.locator('.jp-AgentPanel-tool').last()).toContainText(
      'demo_lookup'
    );

    await testInfo.attach('agent-panel', {
      body: await panel.screenshot(),
      contentType: 'image/png'
    });
  });
});
