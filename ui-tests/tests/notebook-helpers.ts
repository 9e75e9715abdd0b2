/**
 * Notebooks for the UI tests of the notebook tools: a notebook written and
 * opened with its kernel ready, its cells as the live model holds them, the
 * change review cards and the agent's answer.
 */
import { expect, IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator, Page } from '@playwright/test';
import { lastTurn, waitIdle } from './review-panel-helpers';

/** The review card of `tool`'s proposal. */
export function reviewOf(panel: Locator, tool: string): Locator {
  return panel.locator(`.jp-AgentPanel-changeReview[data-tool="${tool}"]`);
}

/** The latest answer's text once the agent finished. */
export async function answer(panel: Locator): Promise<Locator> {
  await waitIdle(panel);
  return lastTurn(panel).locator('.jp-AgentPanel-text').last();
}

/** The cells of the notebook at `file` (the current one when absent), read from its live model. */
export async function cells(
  page: Pick<Page, 'evaluate'>,
  file?: string
): Promise<{ source: string; metadata: Record<string, any> }[]> {
  return page.evaluate(wanted => {
    const app = (window as any).galata.app;
    const panels = [...app.shell.widgets('main')].filter(
      (widget: any) => widget.content?.model?.sharedModel?.cells
    );
    // Each test's files are in a folder of its own: `wanted` is the file name.
    const panel = wanted
      ? panels.find((widget: any) => widget.context.path.endsWith(`/${wanted}`))
      : app.shell.currentWidget;
    return panel.content.model.sharedModel.cells.map((cell: any) => ({
      source: cell.getSource(),
      metadata: cell.getMetadata()
    }));
  }, file);
}

/**
 * A new notebook `name` in the test's folder whose one cell holds `source`
 * (run when `run`), open, active and with its kernel ready. Written through
 * the contents API rather than File > New: that path goes through a kernel
 * dialog and a rename, and its dialog was seen to time out in CI.
 */
export async function notebookWith(
  page: IJupyterLabPageFixture,
  name: string,
  source: string,
  run = false
): Promise<void> {
  const path = `${await page.filebrowser.getCurrentDirectory()}/${name}`;
  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: {
        name: 'python3',
        display_name: 'Python 3 (ipykernel)',
        language: 'python'
      }
    },
    cells: [
      {
        id: 'first',
        cell_type: 'code',
        source,
        metadata: {},
        outputs: [],
        execution_count: null
      }
    ]
  };
  expect(
    await page.contents.uploadContent(JSON.stringify(notebook), 'text', path)
  ).toBe(true);
  await page.evaluate(async wanted => {
    const app = (window as any).jupyterapp;
    const widget = await app.commands.execute('docmanager:open', {
      path: wanted,
      factory: 'Notebook'
    });
    await widget.context.ready;
    await widget.sessionContext.ready;
  }, path);
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          (window as any).jupyterapp.shell.currentWidget.sessionContext
            .kernelDisplayStatus
      )
    )
    .toBe('idle');
  if (run) {
    // Run without advancing: the cell stays the only one, and active.
    await page.notebook.selectCells(0);
    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute('notebook:run-cell')
    );
    await expect
      .poll(() =>
        page.evaluate(
          () =>
            (window as any).jupyterapp.shell.currentWidget.content.model
              .sharedModel.cells[0].execution_count
        )
      )
      .toBe(1);
  }
  await page.notebook.save();
}

/** The path (relative to the Jupyter root) of the open notebook `name`. */
export async function pathOf(
  page: IJupyterLabPageFixture,
  name: string
): Promise<string> {
  return page.evaluate(
    wanted =>
      [...(window as any).galata.app.shell.widgets('main')]
        .map((widget: any) => widget.context?.path ?? '')
        .find((path: string) => path.endsWith(`/${wanted}`)),
    name
  );
}
