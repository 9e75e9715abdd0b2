/**
 * What ends a `run_cell` before the cell's reply (docs/protocol.md §12.5):
 * its time limit, the user's Stop, the notebook closed or deleted, or its
 * kernel restarted, shut down or changed.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel } from '@jupyterlab/services';
import { toolError } from '../../contracts/notebook-tools';
import type { JsonObject } from '../../wire/json';
import type { DeletedNotebooks } from './deleted-notebooks';

export type RunEndReason =
  'timeout' | 'cancelled' | 'closed' | 'deleted' | 'kernel_restarted';

/**
 * How long a kernel that went away waits to be told its notebook was
 * deleted: the file browser's Delete shuts the kernel down first, and
 * deletes the file one request later.
 */
export const DELETE_GRACE_MS = 2000;

export class RunEnd {
  constructor(
    private readonly _panel: NotebookPanel,
    private readonly _kernel: Kernel.IKernelConnection,
    timeoutMs: number,
    private readonly _signal: AbortSignal,
    private readonly _deletions: DeletedNotebooks
  ) {
    this.promise = new Promise(resolve => (this._resolve = resolve));
    this._timer = setTimeout(() => this._end('timeout'), timeoutMs);
    _signal.addEventListener('abort', this._onAbort, { once: true });
    _panel.disposed.connect(this._onClosed, this);
    _kernel.statusChanged.connect(this._onStatus, this);
    _panel.sessionContext.kernelChanged.connect(this._onKernelGone, this);
  }

  /** Resolves with the first reason the run ended for. */
  readonly promise: Promise<RunEndReason>;

  /**
   * Whether the run is ending (or waiting to learn why its kernel went):
   * the cell's execution cancelled then is this end, not a failure.
   */
  get ending(): boolean {
    return this._ending;
  }

  dispose(): void {
    clearTimeout(this._timer);
    clearTimeout(this._grace);
    this._signal.removeEventListener('abort', this._onAbort);
    this._panel.disposed.disconnect(this._onClosed, this);
    this._kernel.statusChanged.disconnect(this._onStatus, this);
    this._panel.sessionContext.kernelChanged.disconnect(
      this._onKernelGone,
      this
    );
    this._deletions.deleted.disconnect(this._onDeleted, this);
  }

  private _onAbort = (): void => this._end('cancelled');

  private _onClosed(): void {
    this._end(this._wasDeleted() ? 'deleted' : 'closed');
  }

  private _onStatus(_: unknown, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      this._end('kernel_restarted');
    } else if (status === 'dead') {
      this._onKernelGone();
    }
  }

  /** Shut down or changed: reported once it is known whether the notebook went with it. */
  private _onKernelGone(): void {
    if (this._wasDeleted()) {
      this._end('deleted');
    } else if (this._grace === undefined) {
      this._ending = true;
      this._deletions.deleted.connect(this._onDeleted, this);
      this._grace = setTimeout(
        () => this._end('kernel_restarted'),
        DELETE_GRACE_MS
      );
    }
  }

  private _onDeleted(_: unknown, panel: NotebookPanel): void {
    if (panel === this._panel) {
      this._end('deleted');
    }
  }

  private _wasDeleted(): boolean {
    return this._deletions.has(this._panel);
  }

  private _end(reason: RunEndReason): void {
    this._ending = true;
    this._resolve(reason);
  }

  private _resolve: (reason: RunEndReason) => void = () => undefined;
  private _ending = false;
  private _grace: ReturnType<typeof setTimeout> | undefined;
  private readonly _timer: ReturnType<typeof setTimeout>;
}

/** What the agent is told when a run ended before its reply (not by its time limit). */
export function runEndError(
  reason: Exclude<RunEndReason, 'timeout'>,
  path: string,
  cellId: string
): JsonObject {
  switch (reason) {
    case 'cancelled':
      return toolError(
        'cancelled',
        'The user stopped the run before the cell finished.'
      );
    case 'closed':
      return {
        ...toolError(
          'closed',
          `${path} was closed while cell ${cellId} ran: its outputs are not known.`
        ),
        path,
        cell_id: cellId
      };
    case 'deleted':
      return {
        ...toolError(
          'deleted',
          `${path} was deleted while cell ${cellId} ran: the run did not finish, and its outputs are not known.`
        ),
        path,
        cell_id: cellId
      };
    case 'kernel_restarted':
      return {
        ...toolError(
          'kernel_restarted',
          `The kernel of ${path} restarted, shut down or changed while cell ${cellId} ran: the run did not finish, and the kernel's variables are gone.`
        ),
        path,
        cell_id: cellId
      };
  }
}
