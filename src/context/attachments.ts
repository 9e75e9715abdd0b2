/**
 * Context the user attaches to a message besides the workspace's: a cell's
 * outputs and errors, kernel variables, and files and cells by mention
 * (src/context/mentions.ts) (docs/protocol.md §6.2,
 * the `attachments` field). Pure: no DOM, no JupyterLab imports; outputs are
 * read as nbformat JSON.
 */
import { byteSize } from '../wire/images';
import { isObject } from '../wire/json';
import type { AttachmentKind, IContextAttachment } from '../wire/turn';
import { capSelection } from './capped-text';

/** The longest attachment text sent, as the server caps it (`ATTACHMENT_LIMIT`). */
export const ATTACHMENT_LIMIT = 4000;

/** An attachment with what its chip says about the cap. */
export interface IAttachmentDraft {
  attachment: IContextAttachment;
  /** Characters of the original text kept, and how many it had. */
  kept: number;
  total: number;
  /** What its chip says instead of the source ("df, n" for variables). */
  display?: string;
}

/**
 * ANSI escape sequences: CSI (colours in tracebacks, cursor moves in
 * progress bars), character set choices, and the other two-byte ones.
 */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[()][0-9A-Za-z]|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Image types a notebook output holds as base64. */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** A multiline nbformat string (a string or a list of lines) as one string. */
export function joined(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  return Array.isArray(value)
    ? value.filter(line => typeof line === 'string').join('')
    : '';
}

/** HTML as the text a reader sees: tags dropped, the common entities decoded. */
export function htmlText(html: string): string {
  const entities: Record<string, string> = {
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: ' '
  };
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|tr|li|h[1-6])\s*>/gi, '\n')
    .replace(/<\/t[dh]\s*>/gi, '\t')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, name) => entities[name])
    .replace(/&#(\d+);/g, (_, code) => String.fromCodePoint(Number(code)))
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function sizeWords(bytes: number): string {
  return bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What the agent reads instead of an image it cannot see. */
export function imagePlaceholder(mimeType: string, data: string): string {
  return `[image output: ${mimeType}, ${sizeWords(byteSize(data))}; not sent as an image]`;
}

/** A draft for `text`, capped. */
export function textAttachment(
  kind: AttachmentKind,
  source: string,
  text: string,
  limit: number = ATTACHMENT_LIMIT
): IAttachmentDraft {
  const capped = capSelection(text, limit);
  return {
    attachment: { kind, source, text: capped.text },
    kept: capped.kept,
    total: capped.total
  };
}

/** An error output's text: `Name: value` and the traceback, ANSI stripped. */
export function errorText(output: Record<string, unknown>): string {
  const head = `${joined(output.ename)}: ${joined(output.evalue)}`;
  const traceback = Array.isArray(output.traceback)
    ? output.traceback.filter(line => typeof line === 'string').join('\n')
    : '';
  return stripAnsi(traceback ? `${head}\n${traceback}` : head);
}

/**
 * One nbformat output as an attachment, or null when it shows nothing the
 * agent can read: an error (name, value, traceback), stream text, an image
 * (its bytes, and a placeholder for endpoints that take no image), or a
 * rich output's `text/plain`, else its `text/html` as text.
 */
export function outputAttachment(
  output: unknown,
  source: string
): IAttachmentDraft | null {
  if (!isObject(output)) {
    return null;
  }
  switch (output.output_type) {
    case 'error':
      return textAttachment('error', source, errorText(output));
    case 'stream':
      return textAttachment('output', source, stripAnsi(joined(output.text)));
    case 'execute_result':
    case 'display_data': {
      const data = isObject(output.data) ? output.data : {};
      const mimeType = IMAGE_TYPES.find(type => typeof data[type] === 'string');
      if (mimeType) {
        const bytes = joined(data[mimeType]).replace(/\s/g, '');
        const text = imagePlaceholder(mimeType, bytes);
        return {
          attachment: {
            kind: 'image',
            source,
            text,
            image: { mimeType, data: bytes }
          },
          kept: text.length,
          total: text.length
        };
      }
      const plain = joined(data['text/plain']);
      const html = joined(data['text/html']);
      const text = html && !plain ? htmlText(html) : stripAnsi(plain);
      return text ? textAttachment('output', source, text) : null;
    }
    default:
      return null;
  }
}

/** The last error among a cell's outputs, or null. */
export function lastError(outputs: readonly unknown[]): unknown | null {
  for (let i = outputs.length - 1; i >= 0; i--) {
    const output = outputs[i];
    if (isObject(output) && output.output_type === 'error') {
      return output;
    }
  }
  return null;
}

/** Two attachments say the same (the chips keep one of each). */
export function sameAttachment(
  a: IContextAttachment,
  b: IContextAttachment
): boolean {
  return a.kind === b.kind && a.source === b.source && a.text === b.text;
}

/** A variable as the kernel summarised it (docs/protocol.md §7.6): what a chip needs of it. */
export interface IVariableSummary {
  name: string;
  /** What the agent reads of it, worded by the kernel. */
  text: string;
}

/** The variables the user chose, as one attachment from the kernel of notebook `source`. */
export function variablesAttachment(
  source: string,
  chosen: readonly IVariableSummary[]
): IAttachmentDraft {
  const draft = textAttachment(
    'variables',
    source,
    chosen.map(variable => variable.text).join('\n')
  );
  return {
    ...draft,
    display: chosen.map(variable => variable.name).join(', ')
  };
}
