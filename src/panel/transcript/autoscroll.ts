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
 * animation frame); once the reader scrolls up, the view stays put until
 * they come back to the bottom or `jumpToLatest()` is called.
 */
export class AutoScroller implements IDisposable {
  constructor(private readonly _node: HTMLElement) {
    _node.addEventListener('scroll', this, { passive: true });
    this._observer = new MutationObserver(() => this.contentChanged());
    this._observer.observe(_node, {
      childList: true,
      subtree: true,
      characterData: true
    });
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

  /** Content was added or grew. */
  contentChanged(): void {
    if (this._following) {
      this._scheduleScroll();
    }
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
    this._observer.disconnect();
    if (this._frame !== null) {
      cancelAnimationFrame(this._frame);
      this._frame = null;
    }
    Signal.clearData(this);
  }

  private _scheduleScroll(): void {
    if (this._frame !== null || this._isDisposed) {
      return;
    }
    this._frame = requestAnimationFrame(() => {
      this._frame = null;
      if (this._following) {
        this._scrollToEnd();
      }
    });
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

  private readonly _observer: MutationObserver;
  private _following = true;
  private _lastTop = 0;
  private _frame: number | null = null;
  private _isDisposed = false;
  private readonly _followingChanged = new Signal<this, boolean>(this);
}
