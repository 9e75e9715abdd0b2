/**
 * Text cut to a limit the way the server cuts it, the cut said at the end so
 * the agent knows (selections and attachments alike).
 */

/** The longest selection sent, as the server caps it (`SELECTION_LIMIT`). */
export const SELECTION_LIMIT = 2000;

export interface ICappedText {
  /** What is sent: at most `limit` characters, ending with a note if cut. */
  text: string;
  /** Characters of the original kept. */
  kept: number;
  /** Characters of the original. */
  total: number;
}

/**
 * `text` cut to `limit` characters, the cut said at the end the way the
 * server says it (`… (truncated, N more characters)`), so the agent knows.
 * The note fits inside the limit: the server never cuts again.
 */
export function capSelection(
  text: string,
  limit: number = SELECTION_LIMIT
): ICappedText {
  const total = text.length;
  if (total <= limit) {
    return { text, kept: total, total };
  }
  const note = (hidden: number) => `\n… (truncated, ${hidden} more characters)`;
  let kept = limit;
  // The note's length depends on the number it holds: settle it twice.
  for (let i = 0; i < 2; i++) {
    kept = limit - note(total - kept).length;
  }
  // Never split a surrogate pair.
  if (isHighSurrogate(text.charCodeAt(kept - 1))) {
    kept -= 1;
  }
  return { text: text.slice(0, kept) + note(total - kept), kept, total };
}

/** Whether `code` (a UTF-16 code unit) opens a surrogate pair. */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
