/**
 * The review diffs' highlighting: each side highlighted whole, cut into
 * its lines, each row given the spans of its own side's line.
 */
import {
  ChangeReviews,
  type IChangeProposal
} from '../../../model/conversation/change-reviews';
import { ChangeReviewsView } from '../../../panel/review/change-review-view';
import {
  aroundChanges,
  type CodeHighlighter,
  highlightDiff,
  type IDiffLanguage,
  lineDiff,
  renderDiff
} from '../../../panel/review/line-diff';
import { panelStrings } from '../../../contracts/translation';

const trans = panelStrings();

/**
 * A stand-in for JupyterLab's highlighter: a triple-quoted string (over
 * lines, as a parser reads it) and the word `print` become spans.
 */
const asked: { code: string; language: IDiffLanguage }[] = [];
const highlight: CodeHighlighter = async (code, language, into) => {
  asked.push({ code, language });
  for (const part of code.split(/("""[\s\S]*?"""|print)/)) {
    if (!part) {
      continue;
    }
    if (part === 'print' || part.startsWith('"""')) {
      const span = document.createElement('span');
      span.className = part === 'print' ? 'kw' : 'str';
      span.textContent = part;
      into.appendChild(span);
    } else {
      into.appendChild(document.createTextNode(part));
    }
  }
};

/** Each row as its mark and its text, spans written as <class>text</>. */
function rows(diff: HTMLElement): string[] {
  return [...diff.children].map(row => {
    const text = row.querySelector('.jp-AgentPanel-diffText');
    if (!text) {
      return `gap ${(row as HTMLElement).dataset.count}`;
    }
    const parts = [...text.childNodes].map(node =>
      node instanceof HTMLElement
        ? `<${node.className}>${node.textContent}</>`
        : node.textContent
    );
    return `${(row as HTMLElement).dataset.kind}: ${parts.join('')}`;
  });
}

beforeEach(() => {
  asked.length = 0;
});

describe('highlightDiff', () => {
  it('gives each row the spans of its side, a string over lines read as one', async () => {
    const before = 'x = """a\nb"""\nprint(x)';
    const after = 'x = """a\nc"""\nprint(x)\nprint(1)';
    const diff = renderDiff(lineDiff(before, after));
    await highlightDiff(diff, before, after, { mimeType: 'm' }, highlight);
    expect(rows(diff)).toEqual([
      'same: x = <str>"""a</>',
      'removed: <str>b"""</>',
      'added: <str>c"""</>',
      'same: <kw>print</>(x)',
      'added: <kw>print</>(1)'
    ]);
    expect(asked.map(call => call.language)).toEqual([
      { mimeType: 'm' },
      { mimeType: 'm' }
    ]);
  });

  it('counts the lines a gap leaves out on both sides', async () => {
    const kept = Array.from({ length: 10 }, (_, i) => `k${i}`).join('\n');
    const before = `print(0)\n${kept}\nold`;
    const after = `print(0)\n${kept}\nprint(2)`;
    const diff = renderDiff(aroundChanges(lineDiff(before, after), 1));
    await highlightDiff(diff, before, after, { fileName: 'a.py' }, highlight);
    expect(rows(diff)).toEqual([
      'gap 10',
      'same: k9',
      'removed: old',
      'added: <kw>print</>(2)'
    ]);
  });

  it('leaves a row as it is when its text is not the line expected', async () => {
    const diff = renderDiff(lineDiff('', 'print(1)'));
    await highlightDiff(diff, '', 'print(2)', {}, highlight);
    expect(rows(diff)).toEqual(['added: print(1)']);
  });
});

describe('A change review with a highlighter', () => {
  it('highlights the cell by its MIME type; a run shows the source that runs', async () => {
    const run: IChangeProposal = {
      tool: 'run_cell',
      kind: 'run',
      path: 'a.ipynb',
      cellId: 'c',
      index: 0,
      cellType: 'code',
      mimeType: 'text/x-ipython',
      current: 'print(1)',
      proposed: 'print(1)',
      description: 'Run cell 0 of a.ipynb'
    };
    const reviews = new ChangeReviews(() => 'thread');
    const view = new ChangeReviewsView(reviews, trans, highlight);
    void reviews.ask(run, new AbortController().signal);
    await new Promise(resolve => setTimeout(resolve, 0));
    const diff = view.node.querySelector<HTMLElement>(
      '.jp-AgentPanel-lineDiff'
    )!;
    expect(rows(diff)).toEqual(['same: <kw>print</>(1)']);
    expect(view.node.querySelector('.jp-AgentPanel-diffStats')).toBeNull();
    expect(asked[0].language).toEqual({ mimeType: 'text/x-ipython' });
    view.dispose();
    reviews.dispose();
  });
});
