import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import {
  LAST_RENDER_BUDGETS,
  MarkdownView,
  MIN_SETTLED_CHARS,
  SETTLED_CHARS_PER_FRAME
} from '../../panel/transcript/markdown-view';
import { TextView } from '../../panel/transcript/text-view';
import type { ITextBlock } from '../../wire/types';
import {
  afterFrame,
  makeContext,
  makeRendermime,
  renderedMarkdown
} from '../support/panel-fakes';

/** By default every settled block gets its own renderer, however short. */
function attachedView(minSettledChars = 0): MarkdownView {
  const view = new MarkdownView(
    makeRendermime(),
    'jp-AgentPanel-text',
    {},
    { minSettledChars }
  );
  Widget.attach(view, document.body);
  return view;
}

/** Stream `text` into `view` one character per frame-sized step. */
async function stream(
  view: MarkdownView,
  text: string,
  step: number
): Promise<void> {
  for (let end = step; end < text.length + step; end += step) {
    view.setSource(text.slice(0, end));
    await afterFrame();
  }
}

beforeEach(() => {
  renderedMarkdown.length = 0;
});

afterEach(() => {
  document.body.replaceChildren();
});

describe('MarkdownView', () => {
  it('renders a short answer in exactly one renderer', async () => {
    const view = attachedView(MIN_SETTLED_CHARS);
    const text = 'First paragraph.\n\n- a list\n\nLast paragraph.';
    await stream(view, text, 5);
    view.finish();
    await afterFrame();
    expect(view.node.querySelectorAll('.jp-RenderedMarkdown')).toHaveLength(1);
    expect(renderedMarkdown[renderedMarkdown.length - 1]).toBe(text);
    expect(
      [...view.node.querySelectorAll('p')].map(p => p.textContent)
    ).toEqual(['First paragraph.', 'Last paragraph.']);
  });

  it('settles text once at least the minimum is settled', async () => {
    const long = `Long ${'word '.repeat(MIN_SETTLED_CHARS / 5)}`.trim();
    const view = attachedView(MIN_SETTLED_CHARS);
    view.setSource('Short.\n\nNext');
    await afterFrame();
    view.setSource(`Short.\n\n${long}\n\nTail`);
    await afterFrame();
    expect(renderedMarkdown).toEqual([
      'Short.\n\nNext',
      `Short.\n\n${long}\n\n`,
      'Tail'
    ]);
    expect(view.node.querySelectorAll('.jp-RenderedMarkdown')).toHaveLength(2);
  });

  it('renders each settled block once and only the tail per frame', async () => {
    const view = attachedView();
    view.setSource('First paragraph');
    await afterFrame();
    view.setSource('First paragraph.\n\nSecond');
    await afterFrame();
    view.setSource('First paragraph.\n\nSecond paragraph\n\nThird');
    await afterFrame();
    // Markdown in the delta: the tail is rendered (plain words are appended, below).
    view.setSource('First paragraph.\n\nSecond paragraph\n\nThird *one*');
    await afterFrame();
    expect(renderedMarkdown).toEqual([
      'First paragraph',
      'First paragraph.\n\n',
      'Second',
      'Second paragraph\n\n',
      'Third',
      'Third *one*'
    ]);
    expect(view.node.querySelectorAll('.jp-RenderedMarkdown')).toHaveLength(3);
    expect(
      [...view.node.querySelectorAll('p')].map(p => p.textContent)
    ).toEqual(['First paragraph.', 'Second paragraph', 'Third one']);
  });

  it('keeps the tail as a settled block when it already shows it', async () => {
    const view = attachedView();
    view.setSource('Done.\n\n');
    await afterFrame();
    const tail = view.node.querySelector('.jp-RenderedMarkdown');
    view.setSource('Done.\n\nNext');
    await afterFrame();
    expect(renderedMarkdown).toEqual(['Done.\n\n', 'Next']);
    expect(view.node.querySelector('.jp-RenderedMarkdown')).toBe(tail);
  });

  it('renders a long stream in work proportional to its blocks, not its frames', async () => {
    const paragraphs = Array.from(
      { length: 20 },
      (_, i) => `Paragraph ${i} has a few words.`
    );
    const view = attachedView();
    await stream(view, paragraphs.join('\n\n'), 7);
    const renderedChars = renderedMarkdown.join('').length;
    // Re-rendering the whole text per frame would be ~ frames × length / 2.
    expect(renderedChars).toBeLessThan(paragraphs.join('\n\n').length * 6);
    expect(
      [...view.node.querySelectorAll('p')].map(p => p.textContent)
    ).toEqual(paragraphs);
  });

  it('shows the end of a burst first and the text above it a budget a frame', async () => {
    const paragraphs = Array.from({ length: 400 }, (_, i) =>
      `Paragraph ${i} ${'word '.repeat(20)}`.trim()
    );
    const text = paragraphs.join('\n\n');
    const view = attachedView();
    const shownParagraphs = () =>
      [...view.node.querySelectorAll('p')].map(p => p.textContent);
    view.setSource(text);
    await afterFrame();
    expect(renderedMarkdown.join('').length).toBeLessThanOrEqual(
      SETTLED_CHARS_PER_FRAME
    );
    expect(shownParagraphs().slice(-1)).toEqual([paragraphs[399]]);
    expect(shownParagraphs()).not.toContain(paragraphs[0]);
    for (let frame = 0; frame < 20; frame++) {
      await afterFrame();
    }
    expect(Math.max(...renderedMarkdown.map(s => s.length))).toBeLessThan(
      SETTLED_CHARS_PER_FRAME
    );
    // Each character rendered once, and the blocks in the text's order.
    expect(renderedMarkdown.join('').length).toBe(text.length);
    expect(shownParagraphs()).toEqual(paragraphs);
  });

  it('keeps the end of a burst shown while more text streams in', async () => {
    const paragraphs = Array.from({ length: 600 }, (_, i) =>
      `Paragraph ${i} ${'word '.repeat(20)}`.trim()
    );
    const view = attachedView();
    const shownParagraphs = () =>
      [...view.node.querySelectorAll('p')].map(p => p.textContent);
    for (const count of [200, 400, 600]) {
      view.setSource(paragraphs.slice(0, count).join('\n\n'));
      await afterFrame();
      expect(shownParagraphs().slice(-1)).toEqual([paragraphs[count - 1]]);
    }
    view.finish();
    for (let frame = 0; frame < 40; frame++) {
      await afterFrame();
    }
    expect(shownParagraphs()).toEqual(paragraphs);
    expect(view.node.querySelectorAll('.jp-AgentPanel-blockJoin')).toHaveLength(
      2 * (view.node.querySelectorAll('.jp-RenderedMarkdown').length - 1)
    );
  });

  it('renders the rest of a finished text at once when it is a little over a frame', async () => {
    const paragraph = `Paragraph ${'word '.repeat(20)}`.trim();
    const count = Math.ceil(
      (SETTLED_CHARS_PER_FRAME * (1 + LAST_RENDER_BUDGETS)) /
        2 /
        (paragraph.length + 2)
    );
    const text = Array(count).fill(paragraph).join('\n\n');
    expect(text.length).toBeGreaterThan(SETTLED_CHARS_PER_FRAME);
    expect(text.length).toBeLessThan(
      SETTLED_CHARS_PER_FRAME * LAST_RENDER_BUDGETS
    );
    const streaming = attachedView();
    streaming.setSource(text);
    await afterFrame();
    expect(renderedMarkdown.join('').length).toBeLessThanOrEqual(
      SETTLED_CHARS_PER_FRAME
    );
    streaming.dispose();
    renderedMarkdown.length = 0;
    const finished = attachedView();
    finished.setSource(text);
    finished.finish();
    for (let i = 0; i < 20; i++) {
      await Promise.resolve();
    }
    expect(renderedMarkdown.join('')).toBe(text);
    expect(finished.node.querySelectorAll('p')).toHaveLength(count);
  });

  it('lays out its blocks as one text: join marks between them', async () => {
    const view = attachedView();
    view.setSource('# Title\n\nText\n\nMore');
    await afterFrame();
    const blocks = view.node.querySelectorAll('.jp-RenderedMarkdown');
    expect(blocks).toHaveLength(2);
    expect(blocks[0].firstElementChild!.tagName).toBe('H1');
    expect(blocks[0].lastElementChild!.className).toBe(
      'jp-AgentPanel-blockJoin'
    );
    expect(blocks[1].firstElementChild!.className).toBe(
      'jp-AgentPanel-blockJoin'
    );
    expect(blocks[1].lastElementChild!.tagName).toBe('P');
    expect(
      [...view.node.querySelectorAll('p')].map(p => p.textContent)
    ).toEqual(['Text', 'More']);
  });

  it('renders the whole text at the end when link definitions join blocks', async () => {
    const view = attachedView();
    const text = 'See [the docs][1].\n\nMore.\n\n[1]: https://example.org/';
    view.setSource(text);
    await afterFrame();
    expect(view.node.querySelector('a')).toBeNull();
    renderedMarkdown.length = 0;
    view.finish();
    await afterFrame();
    expect(renderedMarkdown).toEqual([text]);
    expect(view.node.querySelectorAll('.jp-RenderedMarkdown')).toHaveLength(1);
    expect(view.node.querySelector('a')!.getAttribute('href')).toBe(
      'https://example.org/'
    );
  });

  it('finishing text without link definitions renders nothing again', async () => {
    const view = attachedView();
    view.setSource('One\n\nTwo');
    await afterFrame();
    renderedMarkdown.length = 0;
    view.finish();
    await afterFrame();
    expect(renderedMarkdown).toEqual([]);
  });

  it('starts over when the text is replaced rather than extended', async () => {
    const view = attachedView();
    view.setSource('Old one\n\nOld two');
    await afterFrame();
    view.setSource('New');
    await afterFrame();
    expect(view.node.querySelectorAll('.jp-RenderedMarkdown')).toHaveLength(1);
    expect(view.node.textContent!.trim()).toBe('New');
  });
});

describe('TextView code blocks', () => {
  it('decorates each code block once, as its block settles', async () => {
    const view = new TextView(makeContext(), { turn: 't', item: 0 });
    Widget.attach(view.widget, document.body);
    const block = (text: string): ITextBlock =>
      ({ kind: 'text', key: 0, text }) as ITextBlock;
    // Long enough to be settled into a block of its own.
    const code = 'print(1)\n'.repeat(MIN_SETTLED_CHARS / 9 + 1);
    const fenced = `\`\`\`python\n${code}\`\`\`\n\n`;
    view.update(block(`${fenced}After`));
    await afterFrame();
    const copy = view.widget.node.querySelector('.jp-AgentPanel-copy');
    expect(copy).not.toBeNull();
    view.update(block(`${fenced}After that\n\n\`\`\`\nx\n\`\`\``));
    await afterFrame();
    const copies = view.widget.node.querySelectorAll('.jp-AgentPanel-copy');
    expect(copies).toHaveLength(2);
    // The settled block's bar is the same element: it was not rebuilt.
    expect(copies[0]).toBe(copy);
    expect((copies[0] as HTMLElement).dataset.code).toBe(code);
    expect((copies[1] as HTMLElement).dataset.code).toBe('x\n');
    view.dispose();
  });
});
