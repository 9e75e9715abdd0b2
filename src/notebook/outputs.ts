/**
 * What an inserted extraction shows: a `display_data` output with the data
 * and a one-line summary. The cell's source displays the same output again
 * when it runs (`displayStatement` in `codegen.ts`), so it never changes.
 *
 * Pure: no JupyterLab imports (types only).
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { PartialJSONObject } from '@lumino/coreutils';
import { isObject, type JsonObject } from '../wire/json';

const CELL_MAX_CHARS = 200;
const SUMMARY_MAX_KEYS = 5;
/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export interface IExtractionOutputOptions {
  /** The variable the cell binds, shown as the JSON viewer's root. */
  name: string;
  data: unknown;
  toolName: string;
  extractedType: string;
}

/**
 * The output bundle of an inserted extraction:
 * - `application/json`: the data, for objects and arrays (JupyterLab shows a
 *   collapsible tree). The viewer renders a falsy top-level value as `{}`, so
 *   a scalar is left to the text;
 * - `text/plain`: the summary, with a scalar's value.
 *
 * Every text in it is well-formed: a kernel sends its outputs as UTF-8,
 * which has no lone surrogate, so the output shows U+FFFD for one (the
 * variable still holds the exact data).
 */
export function extractionOutput({
  name,
  data,
  toolName,
  extractedType
}: IExtractionOutputOptions): nbformat.IDisplayData {
  const bundle: nbformat.IMimeBundle = {
    'text/plain': wellFormed(
      `${name}: ${describe(data)} (${truncate(extractedType, 80)} from the tool ${truncate(toolName, 80)})`
    ) as string
  };
  const metadata: nbformat.OutputMetadata = {};
  if (isContainer(data)) {
    bundle['application/json'] = wellFormed(data) as PartialJSONObject;
    metadata['application/json'] = { root: name };
  }
  return { output_type: 'display_data', data: bundle, metadata };
}

/**
 * `value` with every lone surrogate in its strings (keys included) replaced
 * by U+FFFD; `value` itself, not a copy, when it has none.
 */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.replace(LONE_SURROGATE, '\ufffd');
  }
  if (Array.isArray(value)) {
    const items = value.map(wellFormed);
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(
      ([key, item]) => [wellFormed(key), wellFormed(item)] as const
    );
    const same = entries.every(
      ([key, item]) =>
        Object.prototype.hasOwnProperty.call(value, key as string) &&
        value[key as string] === item
    );
    return same ? value : Object.fromEntries(entries);
  }
  return value;
}

/** A short description of a value in Python's terms, e.g. `list of 3 records with keys a, b`. */
export function describe(data: unknown): string {
  if (Array.isArray(data)) {
    if (isRecordList(data)) {
      return `list of ${count(data.length, 'record')} with keys ${keyList(columnsOf(data))}`;
    }
    return `list of ${count(data.length, 'item')}`;
  }
  if (isObject(data)) {
    const keys = Object.keys(data);
    return keys.length === 0
      ? 'empty dict'
      : `dict with ${count(keys.length, 'key')}: ${keyList(keys)}`;
  }
  if (typeof data === 'string') {
    return `str of ${count(data.length, 'character')}: ${truncate(JSON.stringify(data), CELL_MAX_CHARS)}`;
  }
  if (typeof data === 'number') {
    return `${Number.isInteger(data) ? 'int' : 'float'} ${JSON.stringify(data)}`;
  }
  if (typeof data === 'boolean') {
    return `bool ${data ? 'True' : 'False'}`;
  }
  return 'None';
}

/** `text` cut to `max` UTF-16 units, never inside a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  let cut = max - 1;
  if (/[\ud800-\udbff]/.test(text[cut - 1] ?? '')) {
    cut--;
  }
  return `${text.slice(0, cut)}…`;
}

function columnsOf(records: readonly JsonObject[]): string[] {
  const columns = new Set<string>();
  for (const record of records) {
    Object.keys(record).forEach(key => columns.add(key));
  }
  return [...columns];
}

function keyList(keys: readonly string[]): string {
  const shown = keys
    .slice(0, SUMMARY_MAX_KEYS)
    .map(key => truncate(key, 40))
    .join(', ');
  return keys.length > SUMMARY_MAX_KEYS ? `${shown}, …` : shown;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function isContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function isRecordList(values: readonly unknown[]): values is JsonObject[] {
  return values.length > 0 && values.every(isObject);
}
