/**
 * Where streaming markdown can be cut into blocks that render on their own
 * exactly as they do inside the whole text, so that a block, once settled, is
 * rendered once and never again.
 *
 * A block is settled once a blank line follows it outside a fenced code block
 * or display math, and the next non-blank line starts something new: it is
 * not indented (indented code, a list item's continuation) and does not
 * continue a list the block holds.
 */

/** An opening or closing code fence (any indent: erring towards "inside"). */
const FENCE = /^\s*(`{3,}|~{3,})(.*)$/;
/** A list item marker (CommonMark: `-`, `*`, `+`, or 1–9 digits and `.`/`)`). */
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
/** A line that starts with either continues whatever came before it. */
const INDENTED = /^[ \t]/;
/** An unfinished line that may yet turn out to be a list item. */
const MAYBE_LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)]?)$/;
const DISPLAY_MATH = /\$\$/g;
const BEGIN_ENVIRONMENT = /\\begin\{/g;
const END_ENVIRONMENT = /\\end\{/g;

/**
 * The length of the settled start of `text`: `text.slice(0, result)` is a
 * run of whole blocks. Scanning starts at `from`, which must be a block
 * boundary (0 or an earlier result), so a stream costs only its unsettled
 * tail per call.
 */
export function settledLength(text: string, from = 0): number {
  let settled = from;
  let fence: { marker: string; length: number } | null = null;
  let displayMath = false;
  let environments = 0;
  let hasContent = false;
  let hasList = false;
  let afterBlankLine = false;
  let lineStart = from;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    const complete = newline !== -1;
    const line = text.slice(lineStart, complete ? newline : text.length);
    const blank = line.trim() === '';
    if (afterBlankLine && !blank) {
      if (!complete && hasList && MAYBE_LIST_ITEM.test(line)) {
        // Wait for the rest of the line to know.
        return settled;
      }
      afterBlankLine = false;
      const continues =
        INDENTED.test(line) || (hasList && LIST_ITEM.test(line));
      if (!continues) {
        settled = lineStart;
        hasList = false;
      }
    }
    if (!complete) {
      break;
    }
    if (fence) {
      const close = FENCE.exec(line);
      if (
        close &&
        close[1][0] === fence.marker &&
        close[1].length >= fence.length &&
        close[2].trim() === ''
      ) {
        fence = null;
      }
    } else if (blank) {
      afterBlankLine = hasContent && !displayMath && environments <= 0;
    } else {
      hasContent = true;
      const open = FENCE.exec(line);
      if (open) {
        fence = { marker: open[1][0], length: open[1].length };
      } else {
        hasList ||= LIST_ITEM.test(line);
        if (countOf(DISPLAY_MATH, line) % 2 === 1) {
          displayMath = !displayMath;
        }
        environments +=
          countOf(BEGIN_ENVIRONMENT, line) - countOf(END_ENVIRONMENT, line);
      }
    }
    lineStart = newline + 1;
  }
  return settled;
}

/**
 * Where the blocks from `from` (a boundary) to `end` (the next boundary
 * kept, or the text's end) that one frame renders stop: whole blocks of at
 * most `budget` characters, or the first block whole when it is longer.
 */
export function blocksWithin(
  text: string,
  from: number,
  end: number,
  budget: number
): number {
  for (let window = budget; from + window < end; window *= 2) {
    const within = settledLength(text.slice(0, from + window), from);
    if (within > from) {
      return within;
    }
  }
  return end;
}

function countOf(pattern: RegExp, line: string): number {
  return line.match(pattern)?.length ?? 0;
}

/** A link reference definition (`[label]: url`), which links other blocks. */
const LINK_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;

/**
 * Whether blocks of `text` rendered apart can differ from the whole: a link
 * reference definition resolves `[text][label]` anywhere in the document.
 */
export function linksAcrossBlocks(text: string): boolean {
  return LINK_DEFINITION.test(text);
}
