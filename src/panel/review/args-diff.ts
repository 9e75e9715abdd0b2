import { isObject } from '../../wire/json';

/** What an edit changed in a tool call's arguments (shown before sending). */
export interface IArgChange {
  /** The top-level key; empty when the whole value was replaced. */
  key: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/**
 * Top-level changes from `original` to `edited` when both are objects (in
 * the original's key order, then new keys); else one whole-value change.
 */
export function diffArgs(original: unknown, edited: unknown): IArgChange[] {
  if (!isObject(original) || !isObject(edited)) {
    return sameJson(original, edited)
      ? []
      : [{ key: '', kind: 'changed', before: original, after: edited }];
  }
  const changes: IArgChange[] = [];
  for (const [key, before] of Object.entries(original)) {
    if (!(key in edited)) {
      changes.push({ key, kind: 'removed', before });
    } else if (!sameJson(before, edited[key])) {
      changes.push({ key, kind: 'changed', before, after: edited[key] });
    }
  }
  for (const [key, after] of Object.entries(edited)) {
    if (!(key in original)) {
      changes.push({ key, kind: 'added', after });
    }
  }
  return changes;
}

/** Structural equality of JSON values (object key order does not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => sameJson(item, b[index]))
    );
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every(key => key in b && sameJson(a[key], b[key]))
    );
  }
  return false;
}
