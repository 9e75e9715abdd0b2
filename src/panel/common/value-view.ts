/**
 * A tool's arguments or result for people: an object as a list of keys and
 * values, a nested value as indented JSON whose keys, strings and numbers
 * take the editor theme's colours, text as text. Never an escaped JSON
 * string: a result that is JSON text is read first.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { isObject } from '../../wire/json';
import { CappedBlock } from './capped-block';
import { prettyJson, previewOf } from './format';

/** A string longer than this, or with a line break, is shown as a block. */
const INLINE_CHARS = 80;
/** JSON's tokens, in order: a string (a key when a colon follows), a literal, a number. */
const JSON_TOKEN =
  /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Renders values into a node; `dispose` releases the blocks it made. */
export class ValueView implements IDisposable {
  constructor(private readonly _trans: TranslationBundle) {}

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * `value` as people read it (a string of JSON is read as JSON); a text
   * longer than `limit` characters shows its beginning until "Show more".
   */
  render(value: unknown, limit: number): HTMLElement {
    const parsed = typeof value === 'string' ? parseJson(value) : value;
    if (isObject(parsed) && Object.keys(parsed).length > 0) {
      return this._keyValues(parsed, limit);
    }
    return this._value(parsed, limit);
  }

  dispose(): void {
    this._isDisposed = true;
    this._blocks.forEach(block => block.dispose());
    this._blocks = [];
  }

  private _keyValues(
    value: Record<string, unknown>,
    limit: number
  ): HTMLElement {
    const list = document.createElement('dl');
    list.className = 'jp-AgentPanel-keyValues';
    for (const [key, child] of Object.entries(value)) {
      const term = document.createElement('dt');
      term.textContent = key;
      const detail = document.createElement('dd');
      detail.appendChild(this._value(child, limit));
      list.append(term, detail);
    }
    return list;
  }

  private _value(value: unknown, limit: number): HTMLElement {
    if (typeof value === 'string') {
      if (value.length <= INLINE_CHARS && !value.includes('\n')) {
        return textSpan(value, 'jp-AgentPanel-valueText');
      }
      const block = new CappedBlock(this._trans, 'jp-AgentPanel-valueBlock');
      block.set(value, previewOf(value, limit));
      this._blocks.push(block);
      return block.node;
    }
    if (value === undefined) {
      return textSpan('', 'jp-AgentPanel-valueText');
    }
    if (Array.isArray(value) || isObject(value)) {
      return highlightedJson(prettyJson(value));
    }
    return highlightedJson(String(JSON.stringify(value) ?? value));
  }

  private _blocks: CappedBlock[] = [];
  private _isDisposed = false;
}

/** JSON text with its keys, strings, numbers and literals marked for the theme's colours. */
export function highlightedJson(text: string): HTMLElement {
  const code = document.createElement('pre');
  code.className = 'jp-AgentPanel-json';
  let at = 0;
  for (const match of text.matchAll(JSON_TOKEN)) {
    const index = match.index ?? 0;
    code.append(text.slice(at, index));
    const [token, string, colon, literal] = match;
    const kind = string
      ? colon
        ? 'key'
        : 'string'
      : literal
        ? 'literal'
        : 'number';
    code.append(textSpan(string ?? token, `jp-AgentPanel-json-${kind}`));
    if (colon) {
      code.append(colon);
    }
    at = index + token.length;
  }
  code.append(text.slice(at));
  return code;
}

function parseJson(text: string): unknown {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') {
    return text;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function textSpan(text: string, className: string): HTMLSpanElement {
  const span = document.createElement('span');
  span.className = className;
  span.textContent = text;
  return span;
}
