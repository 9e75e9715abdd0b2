import { AutoScroller, isAtBottom } from '../../panel/transcript/autoscroll';

/** A scrolling box whose geometry the test controls (jsdom has no layout). */
function scrollBox(height = 100, content = 1000) {
  const node = document.createElement('div');
  const box = { scrollTop: 0, scrollHeight: content, clientHeight: height };
  Object.defineProperty(node, 'scrollHeight', { get: () => box.scrollHeight });
  Object.defineProperty(node, 'clientHeight', { get: () => box.clientHeight });
  Object.defineProperty(node, 'scrollTop', {
    get: () => box.scrollTop,
    set: (value: number) => {
      box.scrollTop = Math.max(
        0,
        Math.min(value, box.scrollHeight - box.clientHeight)
      );
    }
  });
  document.body.appendChild(node);
  const userScroll = (top: number) => {
    node.scrollTop = top;
    node.dispatchEvent(new Event('scroll'));
  };
  return { node, box, userScroll };
}

/**
 * What the browser's ResizeObserver does, driven by the test (jsdom has no
 * layout): `layout()` reports a new size for every element observed.
 */
class LayoutResizeObserver {
  static all: LayoutResizeObserver[] = [];
  static layout(): void {
    for (const observer of LayoutResizeObserver.all) {
      if (observer.targets.size) {
        observer._callback([], observer as unknown as ResizeObserver);
      }
    }
  }
  constructor(private readonly _callback: ResizeObserverCallback) {
    LayoutResizeObserver.all.push(this);
  }
  readonly targets = new Set<Element>();
  observe(target: Element): void {
    this.targets.add(target);
  }
  unobserve(target: Element): void {
    this.targets.delete(target);
  }
  disconnect(): void {
    this.targets.clear();
  }
}

const layout = () => LayoutResizeObserver.layout();

const shimmed = globalThis.ResizeObserver;

beforeAll(() => {
  globalThis.ResizeObserver =
    LayoutResizeObserver as unknown as typeof ResizeObserver;
});

afterAll(() => {
  globalThis.ResizeObserver = shimmed;
});

afterEach(() => {
  document.body.replaceChildren();
  LayoutResizeObserver.all = [];
});

describe('AutoScroller', () => {
  it('follows new content while at the bottom, once it is laid out', () => {
    const { node, box } = scrollBox();
    const scroller = new AutoScroller(node);
    scroller.jumpToLatest();
    expect(box.scrollTop).toBe(900);
    box.scrollHeight = 1200;
    expect(box.scrollTop).toBe(900);
    layout();
    expect(box.scrollTop).toBe(1100);
    scroller.dispose();
  });

  it('stops following when the reader scrolls up and offers to jump back', async () => {
    const { node, box, userScroll } = scrollBox();
    const scroller = new AutoScroller(node);
    scroller.jumpToLatest();
    const changes: boolean[] = [];
    scroller.followingChanged.connect((_, following) =>
      changes.push(following)
    );
    userScroll(400);
    expect(scroller.following).toBe(false);
    box.scrollHeight = 1500;
    layout();
    expect(box.scrollTop).toBe(400);

    scroller.jumpToLatest();
    expect(box.scrollTop).toBe(1400);
    expect(scroller.following).toBe(true);
    expect(changes).toEqual([false, true]);
    scroller.dispose();
  });

  it('keeps following when content grows below the view (no move up)', () => {
    const { node, box } = scrollBox();
    const scroller = new AutoScroller(node);
    scroller.jumpToLatest();
    box.scrollHeight = 2000;
    // A scroll event while the new content is not yet scrolled to.
    node.dispatchEvent(new Event('scroll'));
    expect(isAtBottom(node)).toBe(false);
    expect(scroller.following).toBe(true);
    scroller.dispose();
  });

  it('follows again when the reader scrolls back to the bottom', () => {
    const { node, userScroll } = scrollBox();
    const scroller = new AutoScroller(node);
    scroller.jumpToLatest();
    userScroll(100);
    expect(scroller.following).toBe(false);
    userScroll(890);
    expect(scroller.following).toBe(true);
    scroller.dispose();
  });

  it('watches the size of the entries added and forgets those removed', async () => {
    const { node } = scrollBox();
    const first = node.appendChild(document.createElement('p'));
    const scroller = new AutoScroller(node);
    const [sizes] = LayoutResizeObserver.all;
    expect(sizes.targets).toEqual(new Set([node, first]));
    const added = node.appendChild(document.createElement('p'));
    first.remove();
    // MutationObserver records arrive in a microtask.
    await Promise.resolve();
    expect(sizes.targets).toEqual(new Set([node, added]));
    scroller.dispose();
  });

  it('dispose removes its listener and observers', async () => {
    const { node, box, userScroll } = scrollBox();
    const scroller = new AutoScroller(node);
    scroller.dispose();
    userScroll(100);
    expect(scroller.following).toBe(true);
    box.scrollHeight = 1300;
    node.appendChild(document.createElement('p'));
    await Promise.resolve();
    layout();
    expect(box.scrollTop).toBe(100);
    expect(LayoutResizeObserver.all[0].targets.size).toBe(0);
  });
});
