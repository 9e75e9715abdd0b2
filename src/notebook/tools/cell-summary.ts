/**
 * Cells and outputs as the notebook tools report them
 * (docs/protocol.md §12.5): sources and output texts capped with the cut said, binary data
 * left out with its size, and each cell's fingerprint, which `edit_cell` and
 * `delete_cell` quote back so a cell changed since it was read is refused.
 *
 * Pure: no JupyterLab imports (types only).
 */
import type * as nbformat from '@jupyterlab/nbformat';
import { joined as joinedText } from '../../context/attachments';
import { sendableImages } from '../../wire/images';
import { capSelection } from '../../context/capped-text';
import { isObject, type JsonObject } from '../../wire/json';

/** What a tool reads of a cell: nbformat JSON plus its id. */
export interface ICellData {
  readonly id: string;
  readonly cell_type: string;
  readonly source: string;
  readonly execution_count?: number | null;
  readonly outputs?: readonly nbformat.IOutput[];
}

/** How much of a cell a result shows. */
export interface ISummaryLimits {
  /** Characters of the source; null: all of it. */
  readonly source: number | null;
  /** Characters of each output text. */
  readonly output: number;
  readonly includeOutputs: boolean;
}

/** `read_notebook`'s caps. */
export const NOTEBOOK_LIMITS: ISummaryLimits = {
  source: 2000,
  output: 1000,
  includeOutputs: true
};

/** `read_cell`'s and `run_cell`'s caps: the whole source. */
export const CELL_LIMITS: ISummaryLimits = {
  source: null,
  output: 10000,
  includeOutputs: true
};

/**
 * Derived from the source alone (cyrb53, a fast 53-bit hash): equal sources,
 * equal fingerprints; an edit gives another one. Not a security measure:
 * it only tells that the cell changed since the agent read it.
 */
export function fingerprint(source: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hash = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return `c53:${hash.toString(16).padStart(14, '0')}:${source.length}`;
}

/** A cell of a result: index, id, type, source (capped), fingerprint, outputs. */
export function summariseCell(
  cell: ICellData,
  index: number,
  limits: ISummaryLimits
): JsonObject {
  const summary: JsonObject = {
    index,
    cell_id: cell.id,
    cell_type: cell.cell_type,
    source:
      limits.source === null
        ? cell.source
        : capSelection(cell.source, limits.source).text,
    source_length: cell.source.length,
    fingerprint: fingerprint(cell.source)
  };
  if (cell.cell_type === 'code') {
    summary.execution_count = cell.execution_count ?? null;
    if (limits.includeOutputs) {
      summary.outputs = (cell.outputs ?? []).map(output =>
        summariseOutput(output, limits.output)
      );
    }
  }
  return summary;
}

/** An output as the agent reads it: text kept (capped), binary data left out. */
export function summariseOutput(
  output: nbformat.IOutput,
  cap: number
): JsonObject {
  const text = (value: unknown) => capSelection(joined(value), cap).text;
  switch (output.output_type) {
    case 'stream':
      return {
        output_type: 'stream',
        name: output.name,
        text: text(output.text)
      };
    case 'error':
      return {
        output_type: 'error',
        ename: output.ename,
        evalue: output.evalue,
        traceback: text(
          (Array.isArray(output.traceback) ? output.traceback : [])
            .map(line => stripAnsi(String(line)))
            .join('\n')
        )
      };
    case 'execute_result':
    case 'display_data': {
      const data: JsonObject = {};
      const bundle = isObject(output.data) ? output.data : {};
      for (const [mime, value] of Object.entries(bundle)) {
        data[mime] = isText(mime)
          ? text(
              isJsonMime(mime) && typeof value !== 'string'
                ? JSON.stringify(value)
                : value
            )
          : `omitted (${joined(value).length} characters)`;
      }
      return output.output_type === 'execute_result'
        ? {
            output_type: 'execute_result',
            data,
            execution_count: output.execution_count ?? null
          }
        : { output_type: 'display_data', data };
    }
    default:
      return { output_type: String(output.output_type) };
  }
}

/** Image types a model may read (docs/protocol.md §16.7). */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * A cell's image outputs for a model that reads images (`read_cell` and
 * `run_cell`, docs/protocol.md §16.7): `{mime_type, data, output_index}`,
 * within the caps of `sendableImages`. The result's `images` key; the
 * server moves them out of the result's text.
 */
export function cellImages(cell: ICellData): JsonObject[] {
  const found: { mime_type: string; data: string; output_index: number }[] = [];
  (cell.outputs ?? []).forEach((output, index) => {
    const bundle = isObject(output.data) ? output.data : {};
    const mime = IMAGE_TYPES.find(type => typeof bundle[type] !== 'undefined');
    if (mime) {
      const data = joinedText(bundle[mime]).replace(/\s/g, '');
      found.push({ mime_type: mime, data, output_index: index });
    }
  });
  return sendableImages(found);
}

/** `result` with the cell's images, when it has any. */
export function withImages(result: JsonObject, cell: ICellData): JsonObject {
  const images = cellImages(cell);
  return images.length > 0 ? { ...result, images } : result;
}

/** nbformat's multiline strings: a string or a list of lines. */
function joined(value: unknown): string {
  if (Array.isArray(value)) {
    return value.map(String).join('');
  }
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

function isJsonMime(mime: string): boolean {
  return mime === 'application/json' || mime.endsWith('+json');
}

/** MIME types whose data the agent can read as text. */
function isText(mime: string): boolean {
  return (
    mime.startsWith('text/') || isJsonMime(mime) || mime === 'image/svg+xml'
  );
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}
