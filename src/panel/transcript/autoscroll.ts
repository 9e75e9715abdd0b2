import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

/** How close to the end (in pixels) still counts as "at the bottom". */
export const AT_BOTTOM_THRESHOLD_PX = 24;

export function isAtBottom(
  node: HTMLElement,
  threshold = AT_BOTTOM_THRESHOLD_PX
): boolean {
  return node.scrollHeight - node.scrollTop - node.clientHeight <= threshold;
}

/**
 * Smart autoscroll for a scrolling element: while the reader is at the
 * bottom, new content keeps the view at the bottom (at most one scroll per
 * frame, when an entry's laid-out size changed); once the reader scrolls
 * up, the view stays put until they come back to the bottom or
 * `jumpToLatest()` is called.
 */
export class AutoScroller implements IDisposable {
  constructor(private readonly _node: HTMLElement) {
    _node.addEventListener('scroll', this, { passive: true });
    // Sizes are reported after layout, so scrolling then costs no layout of
    // its own (reading `scrollHeight` earlier in the frame forced one).
    this._sizes = new ResizeObserver(() => this._onResize());
    this._children = new MutationObserver(records =>
      this._followChildren(records)
    );
    this._children.observe(_node, { childList: true });
    this._sizes.observe(_node);
    for (const child of Array.from(_node.children)) {
      this._sizes.observe(child);
    }
  }

  /** True while new content scrolls into view. */
  get following(): boolean {
    return this._following;
  }

  get followingChanged(): ISignal<this, boolean> {
    return this._followingChanged;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Scroll to the end and follow again. */
  jumpToLatest(): void {
    this._setFollowing(true);
    this._scrollToEnd();
  }

  handleEvent(event: Event): void {
    if (event.type !== 'scroll') {
      return;
    }
    const top = this._node.scrollTop;
    if (isAtBottom(this._node)) {
      this._setFollowing(true);
    } else if (top < this._lastTop) {
      // Only a move up means the reader left; content growing below the
      // view (scrollTop unchanged) does not.
      this._setFollowing(false);
    }
    this._lastTop = top;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._node.removeEventListener('scroll', this);
    this._children.disconnect();
    this._sizes.disconnect();
    Signal.clearData(this);
  }

  /** An entry (or the view) was laid out at a new size: keep the end in view. */
  private _onResize(): void {
    if (this._following && !this._isDisposed) {
      this._scrollToEnd();
    }
  }

  /** Watch the size of each entry added; forget those removed. */
  private _followChildren(records: MutationRecord[]): void {
    for (const record of records) {
      record.addedNodes.forEach(node => {
        if (node instanceof Element) {
          this._sizes.observe(node);
        }
      });
      record.removedNodes.forEach(node => {
        if (node instanceof Element) {
          this._sizes.unobserve(node);
        }
      });
    }
  }

  private _scrollToEnd(): void {
    this._node.scrollTop = this._node.scrollHeight;
    this._lastTop = this._node.scrollTop;
  }

  private _setFollowing(following: boolean): void {
    if (this._following !== following) {
      this._following = following;
      this._followingChanged.emit(following);
    }
  }

  private readonly _sizes: ResizeObserver;
  private readonly _children: MutationObserver;
  private _following = true;
  private _lastTop = 0;
  private _isDisposed = false;
  private readonly _followingChanged = new Signal<this, boolean>(this);
}
