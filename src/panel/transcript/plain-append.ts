/**
 * When streamed words can be appended to a rendered paragraph's text and
 * show exactly what rendering the markdown again would: the words carry no
 * markdown syntax, they start a new word, and the text so far ends in a
 * plain paragraph (not a heading, list, quote, table, code or HTML).
 */

/** Letters, digits, spaces and punctuation that mean nothing to markdown mid-line. */
const PLAIN = /^[\p{L}\p{M}\p{N} \t,.;!?'"’‘“”()—–-]*$/u;
/** GFM links a `www.` domain by itself. */
const AUTOLINKED = /www\./i;
/** A line that starts one of these is not (only) paragraph text. */
const BLOCK_START = /^(?: {0,3}[<#>*+\-=|[`~$]| {0,3}\d{1,9}[.)]| {4}|\t)/;

export interface IPlainAppend {
  /** The paragraph's last text node. */
  node: Text;
  /** What to append to it. */
  text: string;
}

/**
 * What to append to the rendered `host` of markdown `source` when `added`
 * is appended to the source, or null when it must be rendered again.
 * Trailing spaces are appended once a word follows them.
 */
export function appendablePlainText(
  host: HTMLElement,
  source: string,
  added: string
): IPlainAppend | null {
  if (
    !PLAIN.test(added) ||
    AUTOLINKED.test(added) ||
    source.endsWith('\n') ||
    !(/[ \t]$/.test(source) || /^[ \t]/.test(added))
  ) {
    return null;
  }
  // The start of the last line is enough to tell a block's start.
  const lineStart = source.lastIndexOf('\n') + 1;
  if (BLOCK_START.test(source.slice(lineStart, lineStart + 14))) {
    return null;
  }
  const paragraph = host.lastElementChild;
  const node = paragraph?.lastChild;
  if (
    paragraph?.tagName !== 'P' ||
    !(node instanceof Text) ||
    !onlyWhitespaceAfter(paragraph)
  ) {
    return null;
  }
  // The source's trailing spaces show once a word follows, unless the
  // render kept them (marked keeps a last paragraph's trailing spaces).
  const pending = trailingSpace(source);
  const text = `${node.data.endsWith(pending) ? '' : pending}${added}`;
  return {
    node,
    text: text.slice(0, text.length - trailingSpace(text).length)
  };
}

/** The spaces and tabs `text` ends with (scanned from the end: O(them)). */
function trailingSpace(text: string): string {
  let start = text.length;
  while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) {
    start -= 1;
  }
  return text.slice(start);
}

/** Nothing but whitespace follows `element` in its parent. */
function onlyWhitespaceAfter(element: Element): boolean {
  for (let next = element.nextSibling; next; next = next.nextSibling) {
    if (!(next instanceof Text) || next.data.trim() !== '') {
      return false;
    }
  }
  return true;
}

/**
 * Whether `text` is `previous` with more appended. Streaming only appends
 * (the reducer never rewrites a block), so the end of `previous` is checked,
 * not all of it: comparing whole texts per delta would cost the text.
 */
export function extendsText(text: string, previous: string): boolean {
  const end = previous.length;
  return (
    text.length > end &&
    text.charCodeAt(end - 1) === previous.charCodeAt(end - 1) &&
    text.slice(Math.max(0, end - 16), end) === previous.slice(-16)
  );
}
