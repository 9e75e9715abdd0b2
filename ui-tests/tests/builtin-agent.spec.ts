/**
 * The built-in agent on a model (docs/protocol.md §16), in a real lab: the
 * real `langchain-openai` client of the server talks to the tests' scripted
 * OpenAI-compatible server (jupyterlab_agent_panel/tests/scripted_openai.py,
 * its notebook script), which playwright.config.js starts and
 * jupyter_server_test_config.py names in `OPENAI_BASE_URL`. No model is
 * configured as the default, so the keyless demo stays the default agent;
 * `AgentPanel.models` offers `openai:gpt-4.1-mini` and an Anthropic model
 * whose key is not set.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import { answer, cells, notebookWith, reviewOf } from './notebook-helpers';
import {
  keepScreenshot,
  lastTurn,
  panelAfterReload,
  send,
  startFresh,
  waitIdle
} from './review-panel-helpers';

const MODEL = 'openai:gpt-4.1-mini';
const DOCS =
  'https://github.com/jupyterlab-agent-panel/jupyterlab-agent-panel#connect-your-own-model';

function picker(panel: Locator): Locator {
  return panel.locator('.jp-AgentPanel-modelPicker');
}

/** The picker's options as `label|disabled|title` lines. */
async function options(panel: Locator): Promise<string[]> {
  return picker(panel)
    .locator('option')
    .evaluateAll(nodes =>
      nodes.map(node => {
        const option = node as HTMLOptionElement;
        return `${option.label}|${option.disabled}|${option.title}`;
      })
    );
}

/** The model the store keeps with the conversation whose messages hold `tag`. */
async function storedModel(
  page: IJupyterLabPageFixture,
  baseURL: string | undefined,
  tag: string
): Promise<string | null> {
  const listed = await page.request.get(
    `${baseURL}/agent-panel/conversations?q=${tag}`
  );
  const [conversation] = (await listed.json()).conversations;
  return conversation.model;
}

test.describe('the built-in agent', () => {
  test('with no model configured, a new conversation says how to connect one; the picker offers the models', async ({
    page
  }, testInfo) => {
    const panel = await startFresh(page);

    const hint = panel.locator('.jp-AgentPanel-demoHint');
    await expect(hint).toBeVisible();
    await expect(hint).toContainText('keyless demo agent');
    await expect(hint.locator('a')).toHaveAttribute('href', DOCS);
    // The model goes with the message: the picker is beside Send.
    await expect(
      panel.locator('.jp-AgentPanel-composerActions .jp-AgentPanel-modelPicker')
    ).toBeVisible();
    await keepScreenshot(await panel.screenshot(), 'builtin-empty', testInfo);
    await expect(picker(panel)).toBeVisible();
    await expect
      .poll(() => options(panel))
      .toEqual([
        'Demo agent (no model)|false|The keyless demo agent answers.',
        `${MODEL}|false|`,
        expect.stringMatching(
          /^anthropic:claude-sonnet-4-5 \(unavailable\)\|true\|ANTHROPIC_API_KEY is not set/
        ),
        'openai:local-llama|false|'
      ]);
    // The demo answers while no model is picked.
    await send(panel, 'hello');
    await waitIdle(panel);
    await expect(lastTurn(panel)).toContainText('(demo agent) You said: hello');
  });

  test('pick a model, ask for a cell, review the diff, apply: the answer and its tokens; the choice survives a reload', async ({
    page,
    baseURL
  }) => {
    const tag = `hello${Date.now()}`;
    await notebookWith(page, 'builtin-agent.ipynb', 'x = 1');
    const panel = await startFresh(page);
    await picker(panel).selectOption(MODEL);
    await expect(panel.locator('.jp-AgentPanel-demoHint')).toBeHidden();

    await send(panel, `add a cell that prints ${tag}`);
    const insert = reviewOf(panel, 'insert_cell');
    await expect(insert.locator('.jp-AgentPanel-diffLine')).toHaveText([
      `+print('${tag}')`
    ]);
    expect(await cells(page)).toHaveLength(1); // nothing changed before Apply
    await insert.locator('.jp-AgentPanel-changeApply').click();
    await expect.poll(async () => (await cells(page)).length).toBe(2);
    const run = reviewOf(panel, 'run_cell');
    await expect(run).toBeVisible();
    await run.locator('.jp-AgentPanel-changeApply').click();
    await expect(await answer(panel)).toHaveText(
      `I added a cell and ran it. It printed: ${tag}`
    );
    await expect(lastTurn(panel).locator('.jp-AgentPanel-usage')).toHaveText(
      /^[\d,]+ tokens in · [\d,]+ out$/
    );
    expect(await storedModel(page, baseURL, tag)).toBe(MODEL);

    // Not Galata's own wait: it waits for the Launcher, and the workspace reopens the notebook.
    await page.reload({ waitForIsReady: false } as any);
    const reloaded = await panelAfterReload(page);
    await expect(reloaded.locator('.jp-AgentPanel-user').first()).toHaveText(
      `add a cell that prints ${tag}`
    );
    await expect(picker(reloaded)).toHaveValue(MODEL);
    await expect(reloaded.locator('.jp-AgentPanel-demoHint')).toBeHidden();
    // The next turn runs on the model kept with the conversation.
    await send(reloaded, 'hello again');
    await expect(await answer(reloaded)).toHaveText(
      'Hello from gpt-4.1-mini! You said: hello again'
    );
  });

  test('a file the agent writes is reviewed as a diff; "always allow" approves the next write', async ({
    page,
    baseURL
  }, testInfo) => {
    const tag = `notes${Date.now()}`;
    const fileOf = async (name: string) =>
      page.request.get(`${baseURL}/api/contents/${name}?content=1`);
    const panel = await startFresh(page);
    await picker(panel).selectOption(MODEL);

    await send(panel, `write the file ${tag}-a.txt with hello`);
    const row = lastTurn(panel).locator('.jp-AgentPanel-reviewRow');
    const change = row.locator('.jp-AgentPanel-fileChange');
    await expect(change.locator('.jp-AgentPanel-fileChangePath')).toHaveText(
      `${tag}-a.txt`
    );
    await expect(change.locator('.jp-AgentPanel-fileChangeNote')).toHaveText(
      'A new file.'
    );
    await expect(change.locator('.jp-AgentPanel-diffLine')).toHaveText([
      '+hello'
    ]);
    expect((await fileOf(`${tag}-a.txt`)).status()).toBe(404);
    await keepScreenshot(await row.screenshot(), 'file-review', testInfo);
    await row.locator('.jp-AgentPanel-alwaysAllowReview input').check();
    await row.locator('[data-verb="approve"]').click();
    await expect(await answer(panel)).toContainText(`Done: `);
    expect((await (await fileOf(`${tag}-a.txt`)).json()).content).toBe(
      'hello\n'
    );

    // The next write of this conversation is approved by the panel itself.
    await send(panel, `write the file ${tag}-b.txt with again`);
    await expect(await answer(panel)).toContainText(`Done: `);
    // Its review card is in the turn that paused; the answer in the next one.
    await expect(
      panel.locator('.jp-AgentPanel-reviewHeading').last()
    ).toHaveText('Approved by the panel: always allowed in this conversation.');
    expect((await (await fileOf(`${tag}-b.txt`)).json()).content).toBe(
      'again\n'
    );
  });
});
