import type { TranslationBundle } from '@jupyterlab/translation';
import type { ITokenUsage } from '../../wire/types';
import { isObject } from '../../wire/json';

/** JSON with two-space indentation; anything unserialisable as text. */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Argument strings longer than this are cut in a tool card, and in a review
 * row until "Show more".
 */
export const ARG_VALUE_PREVIEW_CHARS = 200;

/**
 * A copy of `value` in which every string longer than `limit` characters is
 * cut (with `…`), and whether anything was cut. Keys and structure stay.
 */
export function capLongStrings(
  value: unknown,
  limit: number
): { value: unknown; capped: boolean } {
  let capped = false;
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') {
      if (node.length > limit) {
        capped = true;
        return `${node.slice(0, limit)}…`;
      }
      return node;
    }
    if (Array.isArray(node)) {
      return node.map(visit);
    }
    if (isObject(node)) {
      const copy: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) {
        copy[key] = visit(child);
      }
      return copy;
    }
    return node;
  };
  return { value: visit(value), capped };
}

/** The first `limit` characters of `text`, or null when it is short enough. */
export function previewOf(text: string, limit: number): string | null {
  return text.length > limit ? `${text.slice(0, limit)}…` : null;
}

/** "850 ms", "1.3 s", "2 min 5 s". */
export function formatDuration(ms: number, trans: TranslationBundle): string {
  if (ms < 1000) {
    return trans.__('%1 ms', Math.round(ms));
  }
  if (ms < 60000) {
    return trans.__('%1 s', (ms / 1000).toFixed(1));
  }
  const seconds = Math.round(ms / 1000);
  return trans.__('%1 min %2 s', Math.floor(seconds / 60), seconds % 60);
}

/** Whole elapsed seconds as "0:07" or "12:34". */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)}:${rest < 10 ? '0' : ''}${rest}`;
}

/** "1,204 tokens in · 56 out": what a turn or a conversation used. */
export function formatTokens(
  usage: ITokenUsage,
  trans: TranslationBundle
): string {
  const count = (value: number | null) =>
    value === null ? '?' : value.toLocaleString();
  return trans.__(
    '%1 tokens in · %2 out',
    count(usage.inputTokens),
    count(usage.outputTokens)
  );
}
