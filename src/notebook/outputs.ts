/**
 * What an inserted extraction shows before anyone runs it: a `display_data`
 * output with the data, a one-line summary and, for tabular data, an HTML
 * table.
 *
 * Pure: no JupyterLab imports (types only).
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { PartialJSONObject } from '@lumino/coreutils';
import { isObject, type JsonObject } from '../wire/json';

/** Rows and columns shown in the HTML preview; the JSON holds everything. */
export const TABLE_MAX_ROWS = 50;
export const TABLE_MAX_COLUMNS = 20;
const CELL_MAX_CHARS = 200;
const SUMMARY_MAX_KEYS = 5;

export interface IExtractionOutputOptions {
  /** The variable the cell binds, shown as the JSON viewer's root. */
  name: string;
  data: unknown;
  toolName: string;
  extractedType: string;
}

/**
 * The output bundle of an inserted extraction:
 * - `application/json`: the data, for objects and arrays. JupyterLab's JSON
 *   viewer ranks above HTML, so JupyterLab shows this collapsible tree. It
 *   renders a falsy top-level value as `{}`, so a scalar is left to the text;
 * - `text/html`: a table for a list of records or a flat object (shown by
 *   HTML-first viewers: nbconvert, nbviewer, GitHub);
 * - `text/plain`: the summary, with a scalar's value.
 */
export function extractionOutput({
  name,
  data,
  toolName,
  extractedType
}: IExtractionOutputOptions): nbformat.IDisplayData {
  const bundle: nbformat.IMimeBundle = {
    'text/plain': `${name}: ${describe(data)} (${truncate(extractedType, 80)} from the tool ${truncate(toolName, 80)})`
  };
  const metadata: nbformat.OutputMetadata = {};
  if (isContainer(data)) {
    bundle['application/json'] = data as PartialJSONObject;
    metadata['application/json'] = { root: name };
  }
  const table = htmlTable(data);
  if (table !== null) {
    bundle['text/html'] = table;
  }
  return { output_type: 'display_data', data: bundle, metadata };
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

/**
 * An HTML table for a non-empty list of records (one row per record) or a
 * non-empty flat object (one row per key), else null. Every key and value is
 * HTML-escaped; nothing from the data lands in a tag or an attribute.
 */
export function htmlTable(data: unknown): string | null {
  if (Array.isArray(data) && data.length > 0 && isRecordList(data)) {
    const columns = columnsOf(data);
    const shown = columns.slice(0, TABLE_MAX_COLUMNS);
    const head = shown.map(key => `<th>${escapeHtml(key)}</th>`).join('');
    const rows = data
      .slice(0, TABLE_MAX_ROWS)
      .map(
        record =>
          `<tr>${shown
            .map(
              key => `<td>${key in record ? cellText(record[key]) : ''}</td>`
            )
            .join('')}</tr>`
      );
    return table(`<thead><tr>${head}</tr></thead>`, rows, [
      shownOf(data.length, TABLE_MAX_ROWS, 'row'),
      shownOf(columns.length, TABLE_MAX_COLUMNS, 'column')
    ]);
  }
  if (isObject(data) && isFlat(data)) {
    const entries = Object.entries(data);
    const rows = entries
      .slice(0, TABLE_MAX_ROWS)
      .map(
        ([key, value]) =>
          `<tr><th>${escapeHtml(key)}</th><td>${cellText(value)}</td></tr>`
      );
    return table('', rows, [shownOf(entries.length, TABLE_MAX_ROWS, 'key')]);
  }
  return null;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
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

function table(head: string, rows: string[], notes: string[]): string {
  const note = notes.filter(Boolean).join(' ');
  return (
    `<table>${head}<tbody>${rows.join('')}</tbody></table>` +
    (note ? `<p>${note}</p>` : '')
  );
}

/** `Showing 50 of 1000 rows.` when some are left out, else nothing. */
function shownOf(total: number, max: number, noun: string): string {
  return total > max ? `Showing ${max} of ${count(total, noun)}.` : '';
}

function cellText(value: unknown): string {
  const text =
    typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  return escapeHtml(truncate(text, CELL_MAX_CHARS));
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

/** Every value is a scalar: a key/value table shows it all. */
function isFlat(value: JsonObject): boolean {
  const values = Object.values(value);
  return values.length > 0 && values.every(v => !isContainer(v));
}
