/**
 * The notebook moving under a call (docs/protocol.md §12.5): its file
 * deleted in JupyterLab while a review waits or `run_cell` runs is told as
 * `deleted`, also when the delete shut its kernel down first; a kernel that
 * went away on its own is still `kernel_restarted`, and a closed notebook
 * `closed`.
 */
import '../support/clipboard-shim';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Contents, Kernel } from '@jupyterlab/services';
import { Signal } from '@lumino/signaling';
import { DeletedNotebooks } from '../../notebook/tools/deleted-notebooks';
import { LiveNotebook } from '../../notebook/tools/live-notebook';
import {
  DELETE_GRACE_MS,
  RunEnd,
  type RunEndReason,
  runEndError
} from '../../notebook/tools/run-end';
import { ToolFailure } from '../../notebook/tools/tool-failure';

/** The parts of a notebook panel the tools listen to. */
function fakePanel(path: string) {
  const panel = {
    isDisposed: false,
    context: { path },
    content: { model: null },
    sessionContext: {} as { kernelChanged: Signal<unknown, unknown> },
    disposed: null as unknown as Signal<unknown, void>,
    /** Closed, as `DocumentManager.deleteFile` closes it after the delete. */
    close(): void {
      panel.isDisposed = true;
      panel.disposed.emit();
    }
  };
  panel.disposed = new Signal(panel);
  panel.sessionContext.kernelChanged = new Signal(panel.sessionContext);
  return panel;
}

type FakePanel = ReturnType<typeof fakePanel>;

function fakeContents() {
  const contents = {
    fileChanged: null as unknown as Signal<unknown, Contents.IChangedArgs>,
    localPath: (path: string) => path.replace(/^\/+/, ''),
    delete(path: string): void {
      contents.fileChanged.emit({
        type: 'delete',
        oldValue: { path },
        newValue: null
      });
    }
  };
  contents.fileChanged = new Signal(contents);
  return contents;
}

function deletionsOf(panels: FakePanel[]) {
  const contents = fakeContents();
  const deletions = new DeletedNotebooks(
    contents as unknown as Contents.IManager,
    {
      forEach: (visit: (panel: NotebookPanel) => void) =>
        panels.forEach(panel => visit(panel as unknown as NotebookPanel))
    }
  );
  return { contents, deletions };
}

const asPanel = (panel: FakePanel) => panel as unknown as NotebookPanel;

describe('DeletedNotebooks', () => {
  it('knows the open notebooks whose file or folder was deleted, and only those', () => {
    const deleted = fakePanel('work/a.ipynb');
    const inFolder = fakePanel('old/b.ipynb');
    const kept = fakePanel('work/a.ipynb.bak');
    const sibling = fakePanel('older/c.ipynb');
    const { contents, deletions } = deletionsOf([
      deleted,
      inFolder,
      kept,
      sibling
    ]);
    const emitted: unknown[] = [];
    deletions.deleted.connect((_, panel) => emitted.push(panel));
    contents.fileChanged.emit({
      type: 'rename',
      oldValue: { path: 'work/a.ipynb.bak' },
      newValue: { path: 'work/z.ipynb' }
    });
    contents.delete('/work/a.ipynb');
    contents.delete('old');
    expect(emitted).toEqual([deleted, inFolder]);
    expect(deletions.has(asPanel(deleted))).toBe(true);
    expect(deletions.has(asPanel(inFolder))).toBe(true);
    expect(deletions.has(asPanel(kept))).toBe(false);
    expect(deletions.has(asPanel(sibling))).toBe(false);
  });

  it('stops listening once disposed', () => {
    const panel = fakePanel('a.ipynb');
    const { contents, deletions } = deletionsOf([panel]);
    deletions.dispose();
    expect(deletions.isDisposed).toBe(true);
    contents.delete('a.ipynb');
    expect(deletions.has(asPanel(panel))).toBe(false);
  });
});

describe('LiveNotebook once its panel is gone', () => {
  const insert = (notebook: LiveNotebook) => {
    try {
      notebook.insert(0, { cell_type: 'code', source: 'x', metadata: {} });
    } catch (error) {
      return (error as ToolFailure).result;
    }
    throw new Error('inserted into a closed notebook');
  };

  it('says the notebook was deleted when its file was, and closed otherwise', () => {
    const deleted = fakePanel('work/a.ipynb');
    const closed = fakePanel('work/b.ipynb');
    const { contents, deletions } = deletionsOf([deleted, closed]);
    contents.delete('work/a.ipynb');
    deleted.close();
    closed.close();
    expect(insert(new LiveNotebook(asPanel(deleted), deletions))).toEqual({
      status: 'error',
      code: 'deleted',
      error:
        'work/a.ipynb was deleted while the call waited for its review: nothing was changed.',
      path: 'work/a.ipynb'
    });
    expect(insert(new LiveNotebook(asPanel(closed), deletions))).toEqual({
      status: 'error',
      code: 'closed',
      error:
        'work/b.ipynb was closed: nothing was changed in it. It must be open for the notebook tools.',
      path: 'work/b.ipynb'
    });
  });
});

describe('RunEnd', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function running(timeoutMs = 60_000) {
    const panel = fakePanel('work/a.ipynb');
    const { contents, deletions } = deletionsOf([panel]);
    const kernel = {
      statusChanged: null as unknown as Signal<unknown, Kernel.Status>
    };
    kernel.statusChanged = new Signal(kernel);
    const stop = new AbortController();
    const end = new RunEnd(
      asPanel(panel),
      kernel as unknown as Kernel.IKernelConnection,
      timeoutMs,
      stop.signal,
      deletions
    );
    let reason: RunEndReason | null = null;
    void end.promise.then(value => (reason = value));
    const settled = async () => {
      await Promise.resolve();
      return reason;
    };
    return { panel, contents, kernel, stop, end, settled };
  }

  it('a kernel shut down by the delete of its notebook ends the run as deleted', async () => {
    const run = running();
    run.kernel.statusChanged.emit('dead');
    run.panel.sessionContext.kernelChanged.emit(null);
    expect(run.end.ending).toBe(true);
    expect(await run.settled()).toBeNull();
    jest.advanceTimersByTime(DELETE_GRACE_MS / 2);
    run.contents.delete('work/a.ipynb');
    run.panel.close();
    expect(await run.settled()).toBe('deleted');
  });

  it('a kernel that went away on its own ends the run as a restart, after the grace', async () => {
    const run = running();
    run.panel.sessionContext.kernelChanged.emit(null);
    jest.advanceTimersByTime(DELETE_GRACE_MS - 1);
    expect(await run.settled()).toBeNull();
    jest.advanceTimersByTime(1);
    expect(await run.settled()).toBe('kernel_restarted');
  });

  it('a restart ends the run at once', async () => {
    const run = running();
    expect(run.end.ending).toBe(false);
    run.kernel.statusChanged.emit('restarting');
    expect(await run.settled()).toBe('kernel_restarted');
  });

  it('a notebook closed after its file was deleted ends the run as deleted; closed alone, as closed', async () => {
    const deleted = running();
    deleted.contents.delete('work');
    deleted.panel.close();
    expect(await deleted.settled()).toBe('deleted');
    const closed = running();
    closed.panel.close();
    expect(await closed.settled()).toBe('closed');
  });

  it('a file deleted while the notebook stays open and its kernel runs does not end the run: JupyterLab keeps it open', async () => {
    const run = running(1000);
    run.contents.delete('work/a.ipynb');
    expect(await run.settled()).toBeNull();
    jest.advanceTimersByTime(1000);
    expect(await run.settled()).toBe('timeout');
  });

  it('Stop ends the run, and a disposed end hears no more', async () => {
    const run = running();
    run.end.dispose();
    run.kernel.statusChanged.emit('restarting');
    run.panel.sessionContext.kernelChanged.emit(null);
    jest.advanceTimersByTime(DELETE_GRACE_MS);
    expect(await run.settled()).toBeNull();
    const stopped = running();
    stopped.stop.abort();
    expect(await stopped.settled()).toBe('cancelled');
  });
});

describe('runEndError', () => {
  it('names the notebook and the cell of a run its deletion ended', () => {
    expect(runEndError('deleted', 'work/a.ipynb', 'c-1')).toEqual({
      status: 'error',
      code: 'deleted',
      error:
        'work/a.ipynb was deleted while cell c-1 ran: the run did not finish, and its outputs are not known.',
      path: 'work/a.ipynb',
      cell_id: 'c-1'
    });
    expect(runEndError('kernel_restarted', 'work/a.ipynb', 'c-1')).toEqual(
      expect.objectContaining({
        code: 'kernel_restarted',
        path: 'work/a.ipynb',
        cell_id: 'c-1'
      })
    );
  });
});
