/**
 * A table for tabular extraction data: a list of records (one row each) or
 * a flat object (one row per key). Built with DOM text nodes only, so the
 * data can never inject markup.
 */
import { isObject, type JsonObject } from '../../wire/json';

/** Rows shown before the rest is summarised. */
export const MAX_TABLE_ROWS = 100;

type Row = JsonObject;

export interface ITableLabels {
  key: string;
  value: string;
  /** "Showing %1 of %2 rows" with the two numbers filled in. */
  moreRows(shown: number, total: number): string;
}

/** A table for `data`, or null when it is not tabular. */
export function extractionTable(
  data: unknown,
  labels: ITableLabels
): HTMLTableElement | null {
  if (isRecordList(data)) {
    const columns: string[] = [];
    for (const record of data) {
      for (const key of Object.keys(record)) {
        if (!columns.includes(key)) {
          columns.push(key);
        }
      }
    }
    const rows = data
      .slice(0, MAX_TABLE_ROWS)
      .map(record => columns.map(column => record[column]));
    const table = buildTable(columns, rows);
    if (data.length > MAX_TABLE_ROWS) {
      const caption = table.createCaption();
      caption.textContent = labels.moreRows(MAX_TABLE_ROWS, data.length);
    }
    return table;
  }
  if (isFlatObject(data)) {
    return buildTable(
      [labels.key, labels.value],
      Object.entries(data).map(([key, value]) => [key, value])
    );
  }
  return null;
}

function buildTable(columns: string[], rows: unknown[][]): HTMLTableElement {
  const table = document.createElement('table');
  table.className = 'jp-AgentPanel-table';
  const headRow = table.createTHead().insertRow();
  for (const column of columns) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = column;
    headRow.appendChild(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const value of row) {
      tr.insertCell().textContent = cellText(value);
    }
  }
  return table;
}

function cellText(value: unknown): string {
  if (value === undefined) {
    return '';
  }
  if (typeof value === 'string') {
    return value;
  }
  return JSON.stringify(value) ?? String(value);
}

function isScalar(value: unknown): boolean {
  return (
    value === null || ['string', 'number', 'boolean'].includes(typeof value)
  );
}

function isRecordList(value: unknown): value is Row[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(item => isObject(item) && Object.keys(item).length > 0)
  );
}

function isFlatObject(value: unknown): value is Row {
  return (
    isObject(value) &&
    Object.keys(value).length > 0 &&
    Object.values(value).every(isScalar)
  );
}
