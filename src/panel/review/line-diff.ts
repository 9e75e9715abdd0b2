/**
 * A line diff of a cell's source, as the review of a notebook change shows
 * it: lines removed, added or kept, in order (jsdiff's `diffLines`).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { diffLines } from 'diff';

export interface IDiffLine {
  readonly kind: 'added' | 'removed' | 'same';
  readonly text: string;
}

/** The lines of `before` and `after`, each marked; '' has no lines. */
export function lineDiff(before: string, after: string): IDiffLine[] {
  const lines: IDiffLine[] = [];
  // A cell's last line has no newline: it must not read as changed when a
  // line is added after it.
  for (const part of diffLines(before, after, { ignoreNewlineAtEof: true })) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    for (const text of splitLines(part.value)) {
      lines.push({ kind, text });
    }
  }
  return lines;
}

/** How many lines were added and removed. */
export function diffStats(lines: readonly IDiffLine[]): {
  added: number;
  removed: number;
} {
  return {
    added: lines.filter(line => line.kind === 'added').length,
    removed: lines.filter(line => line.kind === 'removed').length
  };
}

/** "2 lines added, 1 line removed", above a diff. */
export function renderStats(
  lines: readonly IDiffLine[],
  trans: TranslationBundle
): HTMLElement {
  const { added, removed } = diffStats(lines);
  const stats = document.createElement('div');
  stats.className = 'jp-AgentPanel-diffStats';
  stats.textContent = trans.__(
    '%1, %2',
    trans._n('%1 line added', '%1 lines added', added),
    trans._n('%1 line removed', '%1 lines removed', removed)
  );
  return stats;
}

/** Unchanged lines left out of a diff. */
export interface IDiffGap {
  readonly kind: 'gap';
  readonly count: number;
}

/**
 * The changed lines with `context` unchanged lines around each change; the
 * unchanged lines further away become gaps (a whole file's diff, where a
 * cell's shows every line).
 */
export function aroundChanges(
  lines: readonly IDiffLine[],
  context = 3
): (IDiffLine | IDiffGap)[] {
  const near = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind !== 'same') {
      for (let i = index - context; i <= index + context; i++) {
        if (i >= 0 && i < lines.length) {
          near[i] = true;
        }
      }
    }
  });
  const shown: (IDiffLine | IDiffGap)[] = [];
  let skipped = 0;
  lines.forEach((line, index) => {
    if (near[index]) {
      if (skipped > 0) {
        shown.push({ kind: 'gap', count: skipped });
        skipped = 0;
      }
      shown.push(line);
    } else {
      skipped += 1;
    }
  });
  if (skipped > 0) {
    shown.push({ kind: 'gap', count: skipped });
  }
  return shown;
}

/**
 * The diff as DOM: one row per line, its mark (+, −) and its text; a gap
 * says how many unchanged lines it leaves out (`gapText`).
 */
export function renderDiff(
  lines: readonly (IDiffLine | IDiffGap)[],
  gapText: (count: number) => string = () => '…'
): HTMLElement {
  const node = document.createElement('div');
  node.className = 'jp-AgentPanel-lineDiff';
  for (const line of lines) {
    if (line.kind === 'gap') {
      const gap = document.createElement('div');
      gap.className = 'jp-AgentPanel-diffGap';
      gap.dataset.count = String(line.count);
      gap.textContent = gapText(line.count);
      node.appendChild(gap);
      continue;
    }
    const row = document.createElement('div');
    row.className = 'jp-AgentPanel-diffLine';
    row.dataset.kind = line.kind;
    const mark = document.createElement('span');
    mark.className = 'jp-AgentPanel-diffMark';
    mark.setAttribute('aria-hidden', 'true');
    mark.textContent =
      line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' ';
    const text = document.createElement('span');
    text.className = 'jp-AgentPanel-diffText';
    text.textContent = line.text;
    row.append(mark, text);
    node.appendChild(row);
  }
  return node;
}

/** The language a diff's text is in: a cell's MIME type or a file's name. */
export interface IDiffLanguage {
  readonly mimeType?: string;
  readonly fileName?: string;
}

/**
 * Writes `code` into `into` as highlighted spans (JupyterLab's editor
 * languages and theme); plain text when the language is not known.
 */
export type CodeHighlighter = (
  code: string,
  language: IDiffLanguage,
  into: HTMLElement
) => Promise<void>;

/**
 * Colour the text of a diff `renderDiff` drew from `before` and `after`.
 * Each side is highlighted whole, so a string or a docstring over several
 * lines is read as one, then cut into its lines; a row whose text is not the
 * line expected (the diff was drawn again meanwhile) is left as it is.
 */
export async function highlightDiff(
  diff: HTMLElement,
  before: string,
  after: string,
  language: IDiffLanguage,
  highlight: CodeHighlighter
): Promise<void> {
  const [old, now] = await Promise.all(
    [before, after].map(async text => {
      const into = document.createElement('div');
      await highlight(text, language, into);
      return highlightedLines(into);
    })
  );
  let oldAt = 0;
  let nowAt = 0;
  for (const row of diff.children) {
    const element = row as HTMLElement;
    if (element.classList.contains('jp-AgentPanel-diffGap')) {
      const count = Number(element.dataset.count);
      oldAt += count;
      nowAt += count;
      continue;
    }
    const kind = element.dataset.kind;
    const parts = kind === 'removed' ? old[oldAt] : now[nowAt];
    oldAt += kind === 'added' ? 0 : 1;
    nowAt += kind === 'removed' ? 0 : 1;
    const text = element.querySelector('.jp-AgentPanel-diffText');
    if (parts && text && textOf(parts) === text.textContent) {
      text.replaceChildren(...parts);
    }
  }
}

/** Highlighted text (text nodes and spans) cut into its lines. */
function highlightedLines(root: HTMLElement): Node[][] {
  const lines: Node[][] = [[]];
  for (const node of root.childNodes) {
    const className = node instanceof HTMLElement ? node.className : '';
    (node.textContent ?? '').split('\n').forEach((piece, index) => {
      if (index > 0) {
        lines.push([]);
      }
      if (piece) {
        lines[lines.length - 1].push(
          className ? span(className, piece) : document.createTextNode(piece)
        );
      }
    });
  }
  return lines;
}

function span(className: string, text: string): HTMLElement {
  const node = document.createElement('span');
  node.className = className;
  node.textContent = text;
  return node;
}

function textOf(parts: readonly Node[]): string {
  return parts.map(part => part.textContent).join('');
}

/** A part's lines; its final newline ends the last line, it adds none. */
function splitLines(value: string): string[] {
  if (value === '') {
    return [];
  }
  const lines = value.split('\n');
  if (lines[lines.length - 1] === '') {
    lines.pop();
  }
  return lines;
}
