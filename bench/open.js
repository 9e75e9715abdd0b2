'use strict';
/**
 * Opening a conversation from the panel's list: a 1,000-turn conversation
 * against an empty one, in the same run and the same lab. Both are put in
 * the lab's conversation store first (`PUT agent-panel/conversations/<id>`);
 * each run loads a fresh page, opens the panel and its list, then clicks the
 * conversation. The time runs from the click to the frame in which the last
 * turn's text is in view; the heap is read (after a forced garbage
 * collection) before the click and once the conversation is shown.
 */
const { openMeteredPage, settledHeapBytes } = require('./pages');

const TURNS = 1000;
/** An answer of about 600 characters: a few sentences in two paragraphs. */
const ANSWER =
  'The notebook reads the CSV, drops the rows without a date and groups the rest by week. '.repeat(
    4
  ) +
  '\n\n' +
  'Then it plots the weekly totals with a rolling mean over four weeks, so the trend shows through the noise. '.repeat(
    2
  );

function turnEntries(count) {
  const entries = [];
  for (let i = 0; i < count; i++) {
    const at = 1_700_000_000_000 + i * 60_000;
    entries.push({
      kind: 'user',
      key: `u${i}`,
      text: `question ${i}: what does cell ${i} do?`,
      context: null,
      time: at
    });
    entries.push({
      kind: 'turn',
      key: `t${i}`,
      request: {
        kind: 'chat',
        threadId: 'bench-thread',
        message: `question ${i}`
      },
      state: {
        items: [
          {
            kind: 'text',
            key: 0,
            text: `Answer ${i}. ${ANSWER}`,
            node: 'agent'
          }
        ],
        outcome: 'complete',
        error: null,
        usage: null,
        notes: [],
        diagnostics: []
      },
      startedAt: at + 1000,
      endedAt: at + 5000
    });
  }
  return entries;
}

async function putConversation(lab, id, title, entries) {
  const response = await fetch(
    `${lab.base}agent-panel/conversations/${id}?token=${lab.token}`,
    {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        threadId: `${id}-thread`,
        endpointName: null,
        status: 'idle',
        title,
        entries
      })
    }
  );
  if (!response.ok) {
    throw new Error(
      `the store refused ${id}: ${response.status} ${await response.text()}`
    );
  }
}

/** Open the panel and its list in a fresh page, on a workspace of its own. */
async function pageWithList(browser, lab, workspace) {
  const metered = await openMeteredPage(
    browser,
    `${lab.base}lab/workspaces/${workspace}?token=${lab.token}`,
    {}
  );
  const { page } = metered;
  const tab = page.locator('.lm-TabBar-tab[data-id="jp-agent-panel"]');
  await tab.waitFor({ timeout: 60000 });
  await page
    .locator('#jupyterlab-splash')
    .waitFor({ state: 'detached', timeout: 120000 });
  if (!(await page.locator('#jp-agent-panel').isVisible())) {
    await tab.click();
  }
  await page.locator('#jp-agent-panel .jp-AgentPanel-input').waitFor();
  await page.locator('.jp-AgentPanel-conversationsButton').click();
  await page
    .locator('.jp-AgentPanel-conversationTitle', { hasText: 'bench-long' })
    .waitFor();
  return metered;
}

/** Milliseconds from the click on `title` to the frame showing `lastText`. */
function clickAndWait(page, title, lastText) {
  return page.evaluate(
    ({ title, lastText }) =>
      new Promise((resolve, reject) => {
        const row = [
          ...document.querySelectorAll('.jp-AgentPanel-conversationOpen')
        ].find(node => node.textContent.includes(title));
        if (!row) {
          reject(new Error(`no conversation "${title}" in the list`));
          return;
        }
        const transcript = () =>
          document.querySelector('#jp-agent-panel .jp-AgentPanel-transcript');
        const shown = () => {
          const node = transcript();
          if (!node || node.offsetParent === null) {
            return false;
          }
          if (lastText === null) {
            return node.querySelectorAll('.jp-AgentPanel-user').length === 0;
          }
          const texts = node.querySelectorAll('.jp-AgentPanel-text');
          const answer = texts[texts.length - 1];
          if (!answer || !answer.textContent.includes(lastText)) {
            return false;
          }
          const box = node.getBoundingClientRect();
          const rect = answer.getBoundingClientRect();
          return (
            rect.height > 0 && rect.top < box.bottom && rect.bottom > box.top
          );
        };
        const deadline = performance.now() + 60000;
        const start = performance.now();
        row.click();
        const check = () => {
          if (shown()) {
            resolve(performance.now() - start);
          } else if (performance.now() > deadline) {
            reject(new Error(`"${title}" was not shown within 60 s`));
          } else {
            requestAnimationFrame(check);
          }
        };
        requestAnimationFrame(check);
      }),
    { title, lastText }
  );
}

async function openBenchmark({ browser, labs, runs, log }) {
  const lab = labs.panel;
  await putConversation(lab, 'bench-long', 'bench-long', turnEntries(TURNS));
  await putConversation(lab, 'bench-empty', 'bench-empty', []);
  const figures = { long: [], empty: [] };
  for (let run = 1; run <= runs; run++) {
    for (const [name, title, lastText] of [
      ['empty', 'bench-empty', null],
      ['long', 'bench-long', `Answer ${TURNS - 1}.`]
    ]) {
      log(`open: ${name}, run ${run}/${runs}`);
      const metered = await pageWithList(browser, lab, `open-${name}-${run}`);
      const before = await settledHeapBytes(metered);
      const ms = await clickAndWait(metered.page, title, lastText);
      const after = await settledHeapBytes(metered);
      figures[name].push({
        ms,
        heapMb: after / 2 ** 20,
        growthMb: (after - before) / 2 ** 20
      });
      await metered.page.context().close();
    }
  }
  return { turns: TURNS, answerChars: ANSWER.length, figures };
}

module.exports = { openBenchmark };
