/**
 * Streaming text at the browser's limit (issue 21): plain words appended
 * without rendering again, very long texts shown by their end with every
 * character kept, math typeset only where there may be math, reasoning
 * appended, not replaced.
 */
import '../support/clipboard-shim';
import { Clipboard } from '@jupyterlab/apputils';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { MathOnlyTypesetter } from '../../panel/common/agent-rendermime';
import { MarkdownView } from '../../panel/transcript/markdown-view';
import { appendablePlainText } from '../../panel/transcript/plain-append';
import { ReasoningView } from '../../panel/transcript/reasoning-view';
import type { IReasoningBlock } from '../../wire/types';
import {
  afterFrame,
  click,
  makeContext,
  makeRendermime,
  renderedMarkdown
} from '../support/panel-fakes';

function attachedView(
  options: ConstructorParameters<typeof MarkdownView>[3] = {}
): MarkdownView {
  const view = new MarkdownView(
    makeRendermime(),
    'jp-AgentPanel-text',
    {},
    { minSettledChars: 0, ...options }
  );
  Widget.attach(view, document.body);
  return view;
}

/** What rendermime makes of `text` rendered at once. */
async function renderedWhole(text: string): Promise<string> {
  const view = attachedView();
  view.setSource(text);
  await afterFrame();
  const html = view.node.innerHTML;
  view.dispose();
  return html;
}

beforeEach(() => {
  renderedMarkdown.length = 0;
});

afterEach(() => {
  document.body.replaceChildren();
});

describe('plain words appended to the tail', () => {
  it('show what a render would, without rendering', async () => {
    const view = attachedView();
    view.setSource('Intro *here*.\n\nThe agent');
    await afterFrame();
    renderedMarkdown.length = 0;
    let text = 'Intro *here*.\n\nThe agent';
    for (const word of [
      ' streams',
      ' a long',
      ' answer, ',
      'token by ',
      'token.'
    ]) {
      text += word;
      view.setSource(text);
    }
    // Appended at once, without waiting for a frame or rendering.
    expect(renderedMarkdown).toEqual([]);
    expect(view.node.innerHTML).toBe(await renderedWhole(text));
    view.dispose();
  });

  it('renders again when the words carry markdown', async () => {
    const view = attachedView();
    view.setSource('The agent');
    await afterFrame();
    renderedMarkdown.length = 0;
    view.setSource('The agent **streams**');
    await afterFrame();
    expect(renderedMarkdown).toEqual(['The agent **streams**']);
    expect(view.node.querySelector('strong')!.textContent).toBe('streams');
  });

  it('renders the tail once more when the text is complete', async () => {
    const view = attachedView();
    view.setSource('The agent');
    await afterFrame();
    view.setSource('The agent streams');
    renderedMarkdown.length = 0;
    view.finish();
    await afterFrame();
    expect(renderedMarkdown).toEqual(['The agent streams']);
    expect(view.node.querySelector('p')!.textContent).toBe('The agent streams');
  });

  it.each([
    ['a word that continues the last one', 'The age', 'nt'],
    ['a www. link GFM would make', 'See', ' www.example.org'],
    ['a line break', 'The agent', '\nstreams'],
    ['after a line break', 'The agent\n', 'streams'],
    ['a heading', '# The agent', ' streams'],
    ['a list item', '- The agent', ' streams'],
    ['an e-mail address', 'Mail', ' me@example.org'],
    ['math', 'Costs', ' $5'],
    ['an HTML tag', 'The', ' <b>agent']
  ])('are rendered for %s', async (_, before, added) => {
    const host = document.createElement('div');
    host.innerHTML = `<p>${before}</p>`;
    expect(appendablePlainText(host, before, added)).toBeNull();
  });

  it('are appended only to a paragraph that ends the text', () => {
    const host = document.createElement('div');
    host.innerHTML = '<p>The agent</p><ul><li>x</li></ul>';
    expect(appendablePlainText(host, 'The agent', ' streams')).toBeNull();
    host.innerHTML = '<p>The agent</p>\n';
    expect(appendablePlainText(host, 'The agent', ' streams')).toEqual({
      node: host.querySelector('p')!.firstChild,
      text: ' streams'
    });
  });

  it('show the spaces between words once, whether the render kept a trailing space or not', async () => {
    const host = document.createElement('div');
    host.innerHTML = '<p>tick-1 </p>';
    expect(appendablePlainText(host, 'tick-1 ', 'tick-2 ')!.text).toBe(
      'tick-2'
    );
    const view = attachedView();
    let text = 'tick-1 ';
    view.setSource(text);
    await afterFrame();
    for (let tick = 2; tick <= 6; tick++) {
      text += `tick-${tick} `;
      view.setSource(text);
    }
    expect(view.node.textContent!.trim()).toBe(
      'tick-1 tick-2 tick-3 tick-4 tick-5 tick-6'
    );
  });

  it('show trailing spaces only once a word follows them', () => {
    const host = document.createElement('div');
    host.innerHTML = '<p>The agent</p>';
    expect(appendablePlainText(host, 'The agent ', 'streams  ')!.text).toBe(
      ' streams'
    );
  });
});

describe('a very long text', () => {
  const paragraph = (i: number) =>
    `Paragraph ${i} ${'word '.repeat(18)}`.trim();
  const longText = (count: number) =>
    Array.from({ length: count }, (_, i) => paragraph(i)).join('\n\n');
  const options = { collapseAtChars: 20_000, shownChars: 5_000 };

  async function settle(view: MarkdownView, frames = 10): Promise<void> {
    for (let frame = 0; frame < frames; frame++) {
      await afterFrame();
    }
  }

  it('shows its end, says how much is not shown, and keeps every character', async () => {
    const text = `${longText(400)}\n\nTHE-END`;
    const view = attachedView(options);
    view.setSource(text);
    await settle(view);
    const shown = view.node.textContent!;
    expect(shown).toContain('THE-END');
    expect(shown).not.toContain('Paragraph 0 ');
    expect(view.hiddenLength).toBeGreaterThan(text.length - 6_000);
    expect(view.hiddenLength).toBeLessThan(text.length - 5_000);
    expect(text.slice(0, view.hiddenLength).endsWith('\n\n')).toBe(true);
    const rendered = renderedMarkdown.join('');
    // What is not shown is not rendered either.
    expect(rendered.length).toBeLessThan(8_000);
    expect(
      view.node.querySelector('.jp-AgentPanel-collapsedNote')!.textContent
    ).toBe(
      `The first ${view.hiddenLength.toLocaleString()} of ${text.length.toLocaleString()} characters are not shown.`
    );
    expect(view.source).toBe(text);
  });

  it('copies every character with "Copy all"', async () => {
    const text = `${longText(400)}\n\nTHE-END`;
    const view = attachedView(options);
    view.setSource(text);
    await settle(view);
    const copy = jest
      .spyOn(Clipboard, 'copyToSystem')
      .mockImplementation(() => undefined);
    click(view.node.querySelector('.jp-AgentPanel-copyAll'));
    expect(copy).toHaveBeenCalledWith(text);
    copy.mockRestore();
  });

  it('renders all of it after "Show all", a budget per frame', async () => {
    const text = `${longText(400)}\n\nTHE-END`;
    const view = attachedView(options);
    view.setSource(text);
    await settle(view);
    click(view.node.querySelector('.jp-AgentPanel-showAll'));
    await settle(view, 30);
    expect(view.hiddenLength).toBe(0);
    expect(view.node.querySelector('.jp-AgentPanel-collapsedHead')).toBeNull();
    expect(view.node.querySelectorAll('p')).toHaveLength(401);
    expect(view.node.textContent).toContain('Paragraph 0 ');
  });

  it('keeps only the end rendered while it streams', async () => {
    const view = attachedView(options);
    let text = '';
    for (let i = 0; i < 400; i++) {
      text += `${paragraph(i)}\n\n`;
      view.setSource(text);
      if (i % 20 === 0) {
        await afterFrame();
      }
    }
    view.setSource(`${text}THE-END`);
    await settle(view);
    // The shown end, and at most one block more (20 paragraphs a frame here).
    const paragraphs = view.node.querySelectorAll('p').length;
    const perParagraph = paragraph(0).length + 2;
    expect(paragraphs * perParagraph).toBeLessThan(
      options.shownChars + 21 * perParagraph
    );
    expect(view.node.textContent).toContain('THE-END');
    expect(view.hiddenLength).toBeGreaterThan(0);
    expect(view.source).toBe(`${text}THE-END`);
  });

  it('shows one huge paragraph from the start of a line', async () => {
    const line = `${'0123456789'.repeat(9)}ABCDEFGHI\n`;
    const text = `BIG-START\n${line.repeat(300)}BIG-END`;
    const view = attachedView(options);
    view.setSource(text);
    await settle(view);
    expect(view.node.textContent).toContain('BIG-END');
    expect(view.node.textContent).not.toContain('BIG-START');
    expect(text[view.hiddenLength - 1]).toBe('\n');
  });

  it('stays whole below the threshold', async () => {
    const text = longText(100);
    const view = attachedView(options);
    view.setSource(text);
    await settle(view);
    expect(view.hiddenLength).toBe(0);
    expect(view.node.querySelectorAll('p')).toHaveLength(100);
  });
});

describe('MathOnlyTypesetter', () => {
  function typesetter(): [MathOnlyTypesetter, HTMLElement[]] {
    const typeset: HTMLElement[] = [];
    const lab: IRenderMime.ILatexTypesetter = {
      typeset: element => void typeset.push(element)
    };
    return [new MathOnlyTypesetter(lab), typeset];
  }

  it.each([
    ['no math at all', '<p>The agent streams.</p>', false],
    ['dollars only in code', '<p>Run <code>echo $HOME</code></p>', false],
    ['inline math', '<p>So $x^2$ grows.</p>', true],
    ['display math', '<p>\\[x\\]</p>', true],
    ['an environment', '<p>\\begin{align}x\\end{align}</p>', true]
  ])('with %s typesets: %s', (_, html, expected) => {
    const [math, typeset] = typesetter();
    const host = document.createElement('div');
    host.innerHTML = html;
    void math.typeset(host);
    expect(typeset).toEqual(expected ? [host] : []);
  });
});

describe('ReasoningView', () => {
  it('appends what is new to the text it shows', () => {
    const view = new ReasoningView(makeContext());
    const block = (text: string) =>
      ({ kind: 'reasoning', key: 0, text }) as IReasoningBlock;
    view.update(block('Think'));
    const node = view.widget.node.querySelector('.jp-AgentPanel-reasoningText')!
      .firstChild as Text;
    view.update(block('Thinking hard'));
    expect(node.data).toBe('Thinking hard');
    expect(
      view.widget.node.querySelector('.jp-AgentPanel-reasoningText')!.firstChild
    ).toBe(node);
    view.dispose();
  });
});
