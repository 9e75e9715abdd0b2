import { AutoScroller, isAtBottom } from '../panel/transcript/autoscroll';

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

const nextFrame = () =>
  new Promise<void>(resolve => requestAnimationFrame(() => resolve()));

afterEach(() => document.body.replaceChildren());

describe('AutoScroller', () => {
  it('follows new content while at the bottom, one scroll per frame', async () => {
    const { node, box } = scrollBox();
    const scroller = new AutoScroller(node);
    scroller.jumpToLatest();
    expect(box.scrollTop).toBe(900);
    box.scrollHeight = 1200;
    scroller.contentChanged();
    scroller.contentChanged();
    expect(box.scrollTop).toBe(900);
    await nextFrame();
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
    scroller.contentChanged();
    await nextFrame();
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

  it('notices DOM changes by itself', async () => {
    const { node, box } = scrollBox();
    const scroller = new AutoScroller(node);
    box.scrollHeight = 1300;
    node.appendChild(document.createElement('p'));
    await Promise.resolve();
    await nextFrame();
    expect(box.scrollTop).toBe(1200);
    scroller.dispose();
  });

  it('dispose removes its listener and observer', async () => {
    const { node, box, userScroll } = scrollBox();
    const scroller = new AutoScroller(node);
    scroller.dispose();
    userScroll(100);
    expect(scroller.following).toBe(true);
    box.scrollHeight = 1300;
    node.appendChild(document.createElement('p'));
    await Promise.resolve();
    await nextFrame();
    expect(box.scrollTop).toBe(100);
  });
});
