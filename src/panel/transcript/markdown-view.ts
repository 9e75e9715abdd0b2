import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import { PanelLayout, Widget } from '@lumino/widgets';
import { linksAcrossBlocks, settledLength } from './markdown-blocks';

/** Newly settled characters one frame renders (beyond: the next frame). */
export const SETTLED_CHARS_PER_FRAME = 8000;

/**
 * Settled characters worth a renderer of their own. Each renderer costs its
 * own render and typeset pass, so a short answer costs less re-rendered
 * whole as one tail than cut into blocks.
 */
export const MIN_SETTLED_CHARS = 2000;

type Renderer = ReturnType<IRenderMimeRegistry['createRenderer']>;

/** What a text view adds to rendered blocks, and takes away again. */
export interface IMarkdownViewHooks {
  /** A block's node was rendered (again): decorate it. */
  rendered?(node: HTMLElement): void;
  /** A block's node is about to be rendered again or removed. */
  discarded?(node: HTMLElement): void;
}

/**
 * Markdown rendered through rendermime (sanitized, GFM, LaTeX, highlighting).
 * `setSource(text)` may be called per delta with the text so far. The text is
 * cut into blocks (see `settledLength`): once at least `minSettledChars` are
 * settled, they are rendered once into their own renderer, and only the
 * unsettled tail is rendered again, at most once per animation frame, so a
 * frame costs the tail, not the text.
 * Renderers are child widgets, so they know when they are attached
 * (rendermime typesets LaTeX only then).
 */
export class MarkdownView extends Widget {
  constructor(
    private readonly _rendermime: IRenderMimeRegistry,
    className: string,
    private readonly _hooks: IMarkdownViewHooks = {},
    private readonly _minSettledChars = MIN_SETTLED_CHARS
  ) {
    super();
    this.addClass(className);
    this.layout = new PanelLayout();
  }

  /** The markdown source last given. */
  get source(): string {
    return this._source;
  }

  /**
   * The text so far. Streaming only appends to it; a shorter text than the
   * settled blocks hold is a new text, rendered from scratch.
   */
  setSource(text: string): void {
    this._source = text;
    this._schedule();
  }

  /**
   * The text is complete. Blocks rendered apart match the whole text except
   * where link reference definitions join them: then it is rendered whole.
   */
  finish(): void {
    if (!this._whole && linksAcrossBlocks(this._source)) {
      this._whole = true;
      this._schedule();
    }
  }

  dispose(): void {
    if (this._frame !== null) {
      cancelAnimationFrame(this._frame);
      this._frame = null;
    }
    // The layout disposes the renderers.
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
    const source = this._source;
    if (
      source.length < this._settledLength ||
      (this._whole && this._blocks.length > 0)
    ) {
      this._discardAll();
    }
    if (this._whole) {
      await this._renderTail(source);
      return;
    }
    // A frame renders at most a budget of newly settled text, so a burst
    // of text is spread over frames instead of making one long task.
    const from = this._settledLength;
    const budget = from + SETTLED_CHARS_PER_FRAME;
    const capped = source.length > budget;
    let end = settledLength(capped ? source.slice(0, budget) : source, from);
    if (end === from && capped) {
      // A block longer than the budget has to be rendered whole.
      end = settledLength(source, from);
    } else if (!capped && end - from < this._minSettledChars) {
      // Too little to be worth a renderer: it stays in the tail.
      end = from;
    }
    if (end > from) {
      await this._settle(source.slice(from, end));
      this._settledLength = end;
    }
    if (this.isDisposed) {
      return;
    }
    if (capped && end > from) {
      // More settled text may follow in the next frame; until then the
      // tail shows nothing rather than text a block now shows.
      this._stale = true;
      await this._renderTail('');
      return;
    }
    await this._renderTail(source.slice(end));
  }

  /** Render newly settled text once, as the next block. */
  private async _settle(block: string): Promise<void> {
    const tail = this._tail;
    if (tail && this._tailSource.trimEnd() === block.trimEnd()) {
      // The tail already shows exactly this block: it stays, settled.
      tail.node.append(joinMark());
      this._blocks.push(tail);
      this._tail = null;
      this._tailSource = '';
      return;
    }
    const renderer = this._addRenderer();
    this._blocks.push(renderer);
    await this._renderInto(renderer, block, this._blocks.length > 1, true);
  }

  private async _renderTail(text: string): Promise<void> {
    if (this._tail && text === this._tailSource) {
      return;
    }
    if (this._tail) {
      this._hooks.discarded?.(this._tail.node);
    } else {
      this._tail = this._addRenderer();
    }
    this._tailSource = text;
    await this._renderInto(this._tail, text, this._blocks.length > 0, false);
  }

  /** A new renderer after the settled blocks, before the tail. */
  private _addRenderer(): Renderer {
    const renderer = this._rendermime.createRenderer('text/markdown');
    (this.layout as PanelLayout).insertWidget(this._blocks.length, renderer);
    return renderer;
  }

  /**
   * Render `text` into `renderer`. Join marks keep a block's first and last
   * elements from taking the spacing rendermime gives the first and last
   * elements of a whole text (`:first-child`, `:last-child` rules), so the
   * blocks lay out as the whole text would.
   */
  private async _renderInto(
    renderer: Renderer,
    text: string,
    joinBefore: boolean,
    joinAfter: boolean
  ): Promise<void> {
    await renderer.renderModel(
      new MimeModel({ data: { 'text/markdown': text }, trusted: false })
    );
    if (this.isDisposed || renderer.isDisposed) {
      return;
    }
    if (joinBefore) {
      renderer.node.prepend(joinMark());
    }
    if (joinAfter) {
      renderer.node.append(joinMark());
    }
    this._hooks.rendered?.(renderer.node);
  }

  private _discardAll(): void {
    const renderers = this._tail ? [...this._blocks, this._tail] : this._blocks;
    for (const renderer of renderers) {
      this._hooks.discarded?.(renderer.node);
      renderer.dispose();
    }
    this._blocks = [];
    this._tail = null;
    this._tailSource = '';
    this._settledLength = 0;
  }

  private _source = '';
  /**
   * How much of the source is rendered as settled blocks. A length, not the
   * text: a slice would keep an older copy of the whole text alive.
   */
  private _settledLength = 0;
  private _blocks: Renderer[] = [];
  private _tail: Renderer | null = null;
  private _tailSource = '';
  /** Render the source as one block (it links across blocks). */
  private _whole = false;
  private _frame: number | null = null;
  private _rendering = false;
  private _stale = false;
}

function joinMark(): HTMLElement {
  const mark = document.createElement('span');
  mark.className = 'jp-AgentPanel-blockJoin';
  mark.hidden = true;
  return mark;
}
