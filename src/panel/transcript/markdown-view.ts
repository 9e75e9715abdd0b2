import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { PanelLayout, Widget } from '@lumino/widgets';
import { CollapsedHead } from './collapsed-head';
import { appendablePlainText, extendsText } from './plain-append';
import {
  blocksWithin,
  linksAcrossBlocks,
  settledLength
} from './markdown-blocks';
import { panelStrings } from '../../contracts/translation';

/** Newly settled characters one frame renders (beyond: the next frame). */
export const SETTLED_CHARS_PER_FRAME = 8000;

/**
 * A finished text's rest is rendered at once when it is at most this many
 * frames' budgets: one more frame for a little more text shows the end of an
 * answer a frame later.
 */
export const LAST_RENDER_BUDGETS = 1.5;

/**
 * Settled characters worth a renderer of their own. Each renderer costs its
 * own render and typeset pass, so a very short answer costs less re-rendered
 * whole as one tail than cut into blocks; but every word with markdown in it
 * renders the tail again while it streams, so the tail stays short (trickled
 * CPU at 2,000 deltas, bench/profile.md: about 12% less than with 2,000).
 */
export const MIN_SETTLED_CHARS = 500;

/**
 * A text longer than this shows only its last `SHOWN_CHARS` (in whole
 * blocks) until the reader asks for all of it: every character is kept in
 * the model, but a page holding megabytes of rendered markdown stalls.
 */
export const COLLAPSE_AT_CHARS = 500_000;
export const SHOWN_CHARS = 200_000;

type Renderer = ReturnType<IRenderMimeRegistry['createRenderer']>;

export interface IMarkdownViewOptions {
  /** Settled characters worth a renderer of their own (`MIN_SETTLED_CHARS`). */
  minSettledChars?: number;
  /** When a text shows only its end (`COLLAPSE_AT_CHARS`, `SHOWN_CHARS`). */
  collapseAtChars?: number;
  shownChars?: number;
  trans?: TranslationBundle;
}

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
 *
 * Two shortcuts keep streaming prose cheap: words appended to the last
 * paragraph of the tail are appended to its text (`appendablePlainText`
 * says when that shows what a render would; the tail is rendered again
 * when the text is complete), and a text over `COLLAPSE_AT_CHARS` shows
 * only its end, with "Show all" and "Copy all" for the rest.
 */
export class MarkdownView extends Widget {
  constructor(
    private readonly _rendermime: IRenderMimeRegistry,
    className: string,
    private readonly _hooks: IMarkdownViewHooks = {},
    options: IMarkdownViewOptions = {}
  ) {
    super();
    this.addClass(className);
    this.layout = new PanelLayout();
    this._minSettledChars = options.minSettledChars ?? MIN_SETTLED_CHARS;
    this._collapseAtChars = options.collapseAtChars ?? COLLAPSE_AT_CHARS;
    this._shownChars = options.shownChars ?? SHOWN_CHARS;
    this._trans = options.trans ?? panelStrings();
  }

  /** How many characters at the start are not shown (0: all are). */
  get hiddenLength(): number {
    return this._hiddenLength;
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
    const previous = this._source;
    this._source = text;
    if (this._appendToTail(previous, text)) {
      return;
    }
    this._schedule();
  }

  /**
   * The text is complete. Blocks rendered apart match the whole text except
   * where link reference definitions join them: then it is rendered whole
   * (unless it is too long to show whole). A tail that took appended words
   * is rendered once more, so what stays is exactly what rendermime makes.
   * That render happens at once (`'now'`: the end of an answer shows as
   * soon as it arrives) or in the next animation frame, with the others.
   */
  finish(when: 'now' | 'next frame' = 'now'): void {
    this._finished = true;
    const render = () =>
      when === 'now' ? this._renderNow() : this._schedule();
    if (
      !this._whole &&
      this._source.length < this._collapseAtChars &&
      linksAcrossBlocks(this._source)
    ) {
      this._whole = true;
      render();
    } else if (this._tailAppended || this._frame !== null) {
      render();
    }
  }

  /** Render every block, from the first (after "Show all"). */
  showAll(): void {
    this._expanded = true;
    this._discardAll();
    this._schedule();
  }

  dispose(): void {
    if (this._frame !== null) {
      cancelAnimationFrame(this._frame);
      this._frame = null;
    }
    this._head?.dispose();
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
      this._startRender();
    });
  }

  /**
   * The text is complete: what waits for the next frame is rendered now,
   * so the end of an answer shows as soon as it arrives.
   */
  private _renderNow(): void {
    if (this._frame !== null) {
      cancelAnimationFrame(this._frame);
      this._frame = null;
      this._startRender();
    } else {
      this._schedule();
    }
  }

  private _startRender(): void {
    this._rendering = true;
    void this._render().finally(() => {
      this._rendering = false;
      if (this._stale) {
        this._stale = false;
        this._schedule();
      }
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
      this._tailStart = 0;
      await this._renderTail(source);
      return;
    }
    this._skipToShownEnd(source);
    // A frame renders at most a budget of newly settled text, so a burst
    // of text is spread over frames instead of making one long task.
    const from = this._settledLength;
    const cap =
      SETTLED_CHARS_PER_FRAME * (this._finished ? LAST_RENDER_BUDGETS : 1);
    // The end of a burst shows first (`_renderEndFirst`): its open block
    // starts at the last boundary, found once; the shown end moves on only
    // when it has grown past a frame's budget.
    const ending = this._tailStart > from;
    let end = ending ? this._tailStart : settledLength(source, from);
    if (ending && source.length - end > cap) {
      end = settledLength(source, end);
    }
    if (end > from && (ending || source.length - from > cap)) {
      await this._renderEndFirst(source, from, end);
      return;
    }
    if (end - from < this._minSettledChars) {
      // Too little to be worth a renderer: it stays in the tail.
      end = from;
    }
    if (end > from) {
      await this._settle(source.slice(from, end), end);
      this._settledLength = end;
      this._dropHiddenBlocks();
    }
    if (this.isDisposed) {
      return;
    }
    await this._renderTail(source.slice(end));
  }

  /**
   * A burst: its end is rendered first, so the last words show at once, and
   * the blocks between the settled ones and the end follow, a budget a
   * frame, inserted above it (the reader following the end stays there).
   */
  private async _renderEndFirst(
    source: string,
    from: number,
    endStart: number
  ): Promise<void> {
    if (endStart !== this._tailStart || !this._tail) {
      this._tailStart = endStart;
      this._stale = true;
      await this._renderTail(source.slice(endStart));
      return;
    }
    const end = blocksWithin(source, from, endStart, SETTLED_CHARS_PER_FRAME);
    this._stale = end < endStart;
    await this._settle(source.slice(from, end), end);
    this._settledLength = end;
    this._dropHiddenBlocks();
    // Renders the tail again only if words were appended to the source.
    await this._renderTail(source.slice(endStart));
  }

  /**
   * A collapsed text whose unrendered part is longer than what it shows:
   * start rendering at the last block boundary before the shown end.
   */
  private _skipToShownEnd(source: string): void {
    if (this._expanded || source.length < this._collapseAtChars) {
      return;
    }
    const from = this._settledLength;
    const target = source.length - this._shownChars;
    if (target <= from) {
      return;
    }
    let boundary = settledLength(source.slice(0, target), from);
    if (boundary <= from) {
      // One block longer than what is shown (a huge paragraph or code
      // block): show it from the start of a line.
      boundary = source.lastIndexOf('\n', target - 1) + 1;
    }
    if (boundary <= from) {
      return;
    }
    this._discardAll();
    this._settledLength = boundary;
    this._setHidden(boundary);
  }

  /** A collapsed text keeps at most `SHOWN_CHARS` rendered (plus a block). */
  private _dropHiddenBlocks(): void {
    if (this._expanded || this._source.length < this._collapseAtChars) {
      return;
    }
    let dropped = 0;
    while (
      this._blocks.length - dropped > 1 &&
      this._settledLength - this._blockEnds[dropped] >= this._shownChars
    ) {
      dropped += 1;
    }
    if (dropped === 0) {
      return;
    }
    for (const renderer of this._blocks.splice(0, dropped)) {
      this._hooks.discarded?.(renderer.node);
      renderer.dispose();
    }
    this._setHidden(this._blockEnds.splice(0, dropped)[dropped - 1]);
  }

  private _setHidden(length: number): void {
    this._hiddenLength = length;
    if (!this._head) {
      this._head = new CollapsedHead(this._trans, {
        showAll: () => this.showAll(),
        fullText: () => this._source
      });
      (this.layout as PanelLayout).insertWidget(0, this._head);
    }
    this._head.setHiddenCount(length, this._source.length);
  }

  /**
   * Words appended to the tail's last paragraph, appended to its text
   * instead of rendering the tail again. Returns whether that was done.
   */
  private _appendToTail(previous: string, text: string): boolean {
    const tail = this._tail;
    if (
      !tail ||
      this._whole ||
      this._frame !== null ||
      this._rendering ||
      this._tailSource.length === 0 ||
      previous.length !==
        Math.max(this._settledLength, this._tailStart) +
          this._tailSource.length ||
      !extendsText(text, previous)
    ) {
      return false;
    }
    const added = text.slice(previous.length);
    const shown = appendablePlainText(tail.node, this._tailSource, added);
    if (shown === null) {
      return false;
    }
    shown.node.appendData(shown.text);
    this._tailSource += added;
    this._tailAppended = true;
    return true;
  }

  /** Render newly settled text (ending at `end`) once, as the next block. */
  private async _settle(block: string, end: number): Promise<void> {
    const tail = this._tail;
    if (
      tail &&
      !this._tailAppended &&
      this._tailStart <= this._settledLength &&
      this._tailSource.trimEnd() === block.trimEnd()
    ) {
      // The tail already shows exactly this block: it stays, settled.
      tail.node.append(joinMark());
      this._blocks.push(tail);
      this._blockEnds.push(end);
      this._tail = null;
      this._tailSource = '';
      return;
    }
    const renderer = this._addRenderer();
    this._blocks.push(renderer);
    this._blockEnds.push(end);
    await this._renderInto(renderer, block, this._blocks.length > 1, true);
  }

  private async _renderTail(text: string): Promise<void> {
    const fresh = this._finished && this._tailAppended;
    if (this._tail && text === this._tailSource && !fresh) {
      return;
    }
    if (this._tail) {
      this._hooks.discarded?.(this._tail.node);
    } else {
      this._tail = this._addRenderer();
    }
    this._tailSource = text;
    this._tailAppended = false;
    const joinBefore =
      this._blocks.length > 0 || this._tailStart > this._settledLength;
    await this._renderInto(this._tail, text, joinBefore, false);
  }

  /** A new renderer after the settled blocks, before the tail. */
  private _addRenderer(): Renderer {
    const renderer = this._rendermime.createRenderer('text/markdown');
    (this.layout as PanelLayout).insertWidget(
      (this._head ? 1 : 0) + this._blocks.length,
      renderer
    );
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
    this._blockEnds = [];
    this._tail = null;
    this._tailSource = '';
    this._tailAppended = false;
    this._tailStart = 0;
    this._settledLength = 0;
    this._hiddenLength = 0;
    this._head?.dispose();
    this._head = null;
  }

  private _source = '';
  /**
   * How much of the source is rendered as settled blocks. A length, not the
   * text: a slice would keep an older copy of the whole text alive.
   */
  private _settledLength = 0;
  private _blocks: Renderer[] = [];
  /** Where in the source each settled block ends. */
  private _blockEnds: number[] = [];
  private _tail: Renderer | null = null;
  /**
   * Where the tail starts when a burst's end is shown before the blocks
   * above it (`_renderEndFirst`); at or below `_settledLength` otherwise.
   */
  private _tailStart = 0;
  private _tailSource = '';
  /** The tail's text took appended words since it was rendered. */
  private _tailAppended = false;
  private _hiddenLength = 0;
  private _head: CollapsedHead | null = null;
  private _expanded = false;
  private _finished = false;
  private readonly _minSettledChars: number;
  private readonly _collapseAtChars: number;
  private readonly _shownChars: number;
  private readonly _trans: TranslationBundle;
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
