import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import { PanelLayout, Widget } from '@lumino/widgets';

/**
 * Markdown rendered through rendermime (sanitized, GFM, LaTeX, highlighting).
 * `update(text)` may be called per delta: rendering happens at most once per
 * animation frame, and only for this block. The renderer is a child widget,
 * so it knows when it is attached (rendermime typesets LaTeX only then).
 */
export class MarkdownView extends Widget {
  constructor(
    private readonly _rendermime: IRenderMimeRegistry,
    className: string,
    private readonly _onRendered?: (node: HTMLElement) => void
  ) {
    super();
    this.addClass(className);
    this.layout = new PanelLayout();
  }

  /** The markdown source last given. */
  get source(): string {
    return this._source;
  }

  setSource(text: string): void {
    this._source = text;
    this._schedule();
  }

  dispose(): void {
    if (this._frame !== null) {
      cancelAnimationFrame(this._frame);
      this._frame = null;
    }
    // The layout disposes the renderer.
    super.dispose();
  }

  private _schedule(): void {
    if (this._rendering) {
      // Renders are sequential; the one in flight re-schedules when done.
      this._stale = true;
      return;
    }
    if (this._frame !== null || this.isDisposed) {
      return;
    }
    this._frame = requestAnimationFrame(() => {
      this._frame = null;
      this._rendering = true;
      void this._render().finally(() => {
        this._rendering = false;
        if (this._stale) {
          this._stale = false;
          this._schedule();
        }
      });
    });
  }

  private async _render(): Promise<void> {
    if (this.isDisposed) {
      return;
    }
    if (!this._renderer) {
      this._renderer = this._rendermime.createRenderer('text/markdown');
      (this.layout as PanelLayout).addWidget(this._renderer);
    }
    await this._renderer.renderModel(
      new MimeModel({ data: { 'text/markdown': this._source }, trusted: false })
    );
    this._onRendered?.(this._renderer.node);
  }

  private _source = '';
  private _frame: number | null = null;
  private _rendering = false;
  private _stale = false;
  private _renderer: ReturnType<IRenderMimeRegistry['createRenderer']> | null =
    null;
}
