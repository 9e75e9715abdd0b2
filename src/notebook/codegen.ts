/**
 * Text that carries agent data into a notebook without ever running it as
 * code: a Python binding that decodes a JSON literal, the statement that
 * displays it, and Markdown fences.
 *
 * Pure: no JupyterLab imports (types only).
 */
import type * as nbformat from '@jupyterlab/nbformat';

/** Compact JSON up to this size is pretty-printed over several lines. */
const PRETTY_LIMIT = 2000;

/**
 * `data` as JSON text made only of printable ASCII (and newlines between
 * tokens when indented). Every other character, and the apostrophe, is a
 * `\uXXXX` escape: JSON readers decode it back to the same string, and the
 * text can sit in a raw Python string that no apostrophe can close, with no
 * line separator, bidi control or invisible character in the cell source.
 * `undefined` (not JSON) is written as `null`.
 */
export function asciiJson(data: unknown, indent?: number): string {
  const text = JSON.stringify(data, null, indent) ?? 'null';
  return text.replace(
    /[^\x20-\x26\x28-\x7e\n]/g,
    char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
  );
}

export interface IBindingOptions {
  /** The Python variable to bind. */
  name: string;
  data: unknown;
  toolName: string;
  extractedType: string;
}

/**
 * A code cell source that binds `name` to `data`:
 *
 * ```python
 * # "demo_fact" from the tool "demo_lookup", inserted by the Agent Panel
 * import json
 *
 * demo_fact = json.loads(r'''
 * {
 *   "answer": "42"
 * }
 * ''')
 * ```
 *
 * The JSON sits in a raw triple-quoted string: `asciiJson` leaves no
 * apostrophe in it, so nothing can end the string early, and raw strings
 * keep every backslash for `json.loads`. JSON text never ends with a
 * backslash, which a raw string could not. Small payloads are indented for
 * reading; large ones stay on one line so the cell stays light.
 */
export function bindingSource({
  name,
  data,
  toolName,
  extractedType
}: IBindingOptions): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new Error(`"${name}" is not a Python identifier.`);
  }
  const compact = asciiJson(data);
  const literal =
    compact.length <= PRETTY_LIMIT ? `\n${asciiJson(data, 2)}\n` : compact;
  return [
    `# ${commentText(extractedType)} from the tool ${commentText(toolName)}, inserted by the Agent Panel`,
    'import json',
    '',
    `${name} = json.loads(r'''${literal}''')`
  ].join('\n');
}

/**
 * The statement that ends an extraction cell: it displays `output` (the
 * output the inserted cell shows) exactly as it is, so running the cell
 * shows what it showed before, e.g.
 *
 * ```python
 * display({"text/plain": "demo_fact: dict with 2 keys: query, answer (…)", "application/json": demo_fact}, raw=True, metadata={"application/json": {"root": "demo_fact"}})
 * ```
 *
 * A value that is `data` itself is the variable `name`; any other value is
 * written out: a string as a Python literal, anything else (the copy of the
 * data with lone surrogates replaced, see `wellFormed`) as a JSON literal.
 * One line, printable ASCII. `display` is a built-in of IPython kernels.
 */
export function displayStatement(
  output: nbformat.IDisplayData,
  name: string,
  data: unknown
): string {
  const value = (item: unknown): string =>
    item === data
      ? name
      : typeof item === 'string'
        ? pythonString(item)
        : `json.loads(r'''${asciiJson(item)}''')`;
  const bundle = Object.entries(output.data)
    .map(([mime, item]) => `${pythonString(mime)}: ${value(item)}`)
    .join(', ');
  const metadata = Object.keys(output.metadata ?? {}).length
    ? `, metadata=${pythonLiteral(output.metadata)}`
    : '';
  return `display({${bundle}}, raw=True${metadata})`;
}

/** A small JSON value (output metadata) as a Python literal. */
function pythonLiteral(value: unknown): string {
  if (typeof value === 'string') {
    return pythonString(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(pythonLiteral).join(', ')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const items = Object.entries(value).map(
      ([key, item]) => `${pythonString(key)}: ${pythonLiteral(item)}`
    );
    return `{${items.join(', ')}}`;
  }
  if (typeof value === 'boolean') {
    return value ? 'True' : 'False';
  }
  return value === null || value === undefined ? 'None' : JSON.stringify(value);
}

/**
 * A Python string literal for `text`, made of printable ASCII: `\xXX`,
 * `\uXXXX` or `\UXXXXXXXX` escapes by code point (unlike JSON, Python reads
 * an escaped surrogate pair as two characters, so astral characters need
 * `\U`).
 */
export function pythonString(text: string): string {
  let literal = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') {
      literal += `\\${char}`;
    } else if (code >= 0x20 && code < 0x7f) {
      literal += char;
    } else if (code <= 0xff) {
      literal += `\\x${code.toString(16).padStart(2, '0')}`;
    } else if (code <= 0xffff) {
      literal += `\\u${code.toString(16).padStart(4, '0')}`;
    } else {
      literal += `\\U${code.toString(16).padStart(8, '0')}`;
    }
  }
  return `${literal}"`;
}

/** A short quoted name that cannot leave its comment line. */
function commentText(text: string): string {
  return asciiJson(text.length > 80 ? `${text.slice(0, 79)}…` : text);
}

/**
 * A fenced Markdown code block whose fence is longer than any backtick run
 * in `code`, so the content cannot close it.
 */
export function markdownFence(code: string, language = ''): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(code) + 1));
  const info = language.replace(/[`\s]/g, '');
  const body = code.endsWith('\n') ? code : `${code}\n`;
  return `${fence}${info}\n${body}${fence}`;
}

/** An inline Markdown code span that shows `text` verbatim on one line. */
export function markdownCode(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  if (!flat.trim()) {
    return '` `';
  }
  const ticks = '`'.repeat(longestBacktickRun(flat) + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const [run] of text.matchAll(/`+/g)) {
    longest = Math.max(longest, run.length);
  }
  return longest;
}
