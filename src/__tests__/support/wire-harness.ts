/**
 * Shared test harness for the chunk-wire corpus: loading fixtures, running
 * them through the reducer and the SSE reader, and comparing the result with
 * `expected.json` by the rules of `fixtures/chunk-wire/README.md`.
 */
import * as fs from 'fs';
import * as path from 'path';

import { buildResume } from '../../wire/decisions';
import { TurnReducer } from '../../wire/reduce';
import type { Decision, IInterruptCard, ITurnState } from '../../wire/types';
import { readSse, type IByteStream } from '../../transport/http/sse';
import { reduceFrames } from '../../wire/replay';

export { reduceFrames };

export interface IExpectedTurn {
  outcome: string;
  text_blocks: string[];
  reasoning: string[];
  tools: Record<string, unknown>[];
  extractions: Record<string, unknown>[];
  interrupt: {
    actions: Record<string, unknown>[];
    allowed_decisions: string[];
  } | null;
  error: string | null;
  items?: string[];
  traceback?: string;
  cancel_message?: string;
  resume_example?: { thread_id: string; decisions: Decision[] };
}

export interface ICorpusFile {
  name: string;
  /** The frame lines exactly as stored (no trailing newline). */
  lines: string[];
  expected: IExpectedTurn;
}

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Every `.jsonl` of a fixture folder with its `expected.json` entry. */
export function loadCorpus(folder: string): ICorpusFile[] {
  const dir = path.join(ROOT, folder);
  const expected: Record<string, IExpectedTurn> = JSON.parse(
    fs.readFileSync(path.join(dir, 'expected.json'), 'utf-8')
  );
  const names = fs.readdirSync(dir).filter(name => name.endsWith('.jsonl'));
  const files = names.sort().map(name => {
    if (!expected[name]) {
      throw new Error(`${folder}/expected.json has no entry for ${name}`);
    }
    const text = fs.readFileSync(path.join(dir, name), 'utf-8');
    return {
      name,
      lines: text.split('\n').filter(Boolean),
      expected: expected[name]
    };
  });
  const missing = Object.keys(expected).filter(name => !names.includes(name));
  if (missing.length > 0) {
    throw new Error(`${folder}/expected.json names missing files: ${missing}`);
  }
  return files;
}

/** A body that hands out the given byte arrays, one per read. */
export function fakeBody(reads: Uint8Array[]): IByteStream {
  let index = 0;
  return {
    getReader: () => ({
      read: async () =>
        index < reads.length
          ? { done: false, value: reads[index++] }
          : { done: true, value: undefined }
    })
  };
}

/** Run an SSE body through the reader into a fresh reducer. */
export async function reduceSse(reads: Uint8Array[]): Promise<TurnReducer> {
  const data: string[] = [];
  await readSse(fakeBody(reads), item => data.push(item));
  return reduceFrames(data);
}

export interface ISseEncoding {
  name: string;
  asciiOnly: boolean;
  lineEnd: '\n' | '\r\n';
}

export const SSE_ENCODINGS: ISseEncoding[] = [
  { name: 'UTF-8, LF', asciiOnly: false, lineEnd: '\n' },
  { name: 'UTF-8, CRLF', asciiOnly: false, lineEnd: '\r\n' },
  { name: 'ASCII-only, LF', asciiOnly: true, lineEnd: '\n' },
  { name: 'ASCII-only, CRLF', asciiOnly: true, lineEnd: '\r\n' }
];

/** Python's default `json.dumps`: every non-ASCII code unit as `\uXXXX`. */
export function asciiOnly(line: string): string {
  return JSON.stringify(JSON.parse(line)).replace(
    /[\u0080-\uffff]/g,
    char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
  );
}

/** One SSE event per frame line, as the server writes them. */
export function sseEvents(lines: string[], encoding: ISseEncoding): string[] {
  const { lineEnd } = encoding;
  return lines.map(
    line =>
      `data: ${encoding.asciiOnly ? asciiOnly(line) : line}${lineEnd}${lineEnd}`
  );
}

const encoder = new TextEncoder();

export function toBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The read patterns of the corpus README, each as a list of reads. */
export function readPatterns(
  events: string[]
): { name: string; reads: Uint8Array[] }[] {
  const whole = toBytes(events.join(''));
  const groupsOfThree: Uint8Array[] = [];
  for (let i = 0; i < events.length; i += 3) {
    groupsOfThree.push(toBytes(events.slice(i, i + 3).join('')));
  }
  const lineEnd = events[0]?.endsWith('\r\n\r\n') ? '\r\n' : '\n';
  const allButLast = events.slice(0, -1).join('');
  const lastDataLine = (events[events.length - 1] ?? '').slice(
    0,
    -2 * lineEnd.length
  );
  return [
    { name: 'one read', reads: [whole] },
    { name: 'three frames per read', reads: groupsOfThree },
    {
      name: '1-byte reads',
      reads: Array.from(whole, byte => Uint8Array.of(byte))
    },
    {
      name: 'final blank line missing (ends after the data line)',
      reads: [toBytes(allButLast + lastDataLine)]
    },
    {
      name: 'final blank line missing (ends after its first line end)',
      reads: [toBytes(allButLast + lastDataLine + lineEnd)]
    }
  ];
}

/** The unanswered interrupt cards of a turn, in order. */
export function interruptCards(state: ITurnState): IInterruptCard[] {
  return state.items.filter(
    (item): item is IInterruptCard => item.kind === 'interrupt'
  );
}

const sortedCopy = (values: unknown): unknown =>
  Array.isArray(values) ? [...values].sort() : values;

/**
 * The turn in `expected.json` form, limited to the optional keys the
 * expected entry uses. Allowed-decision lists are sorted (compared as sets).
 */
export function summarize(
  state: ITurnState,
  expected: IExpectedTurn
): Record<string, unknown> {
  const summary: Record<string, unknown> = {
    outcome: state.outcome,
    text_blocks: [] as string[],
    reasoning: [] as string[],
    tools: [] as Record<string, unknown>[],
    extractions: [] as Record<string, unknown>[],
    interrupt: null,
    error: state.error?.message ?? null
  };
  const actions: Record<string, unknown>[] = [];
  let allowedDecisions: unknown = null;
  for (const item of state.items) {
    switch (item.kind) {
      case 'text':
        (summary.text_blocks as string[]).push(item.text);
        break;
      case 'reasoning':
        (summary.reasoning as string[]).push(item.text);
        break;
      case 'tool':
        (summary.tools as Record<string, unknown>[]).push({
          name: item.name,
          ...(item.callId === null ? {} : { id: item.callId }),
          status: item.status,
          ...(item.orphan ? {} : { args: item.args }),
          ...(item.status === 'pending' ? {} : { result: item.result })
        });
        break;
      case 'extraction':
        (summary.extractions as Record<string, unknown>[]).push({
          tool_name: item.toolName,
          extracted_type: item.extractedType,
          data: item.data
        });
        break;
      case 'interrupt':
        allowedDecisions ??= sortedCopy(item.allowedDecisions);
        for (const action of item.actions) {
          const wanted = expected.interrupt?.actions[actions.length] ?? {};
          const row: Record<string, unknown> = {
            name: action.name,
            allowed: sortedCopy(action.allowed)
          };
          for (const key of ['args', 'description', 'synthetic'] as const) {
            if (key in wanted) {
              row[key] = action[key];
            }
          }
          actions.push(row);
        }
        break;
    }
  }
  if (actions.length > 0) {
    summary.interrupt = { actions, allowed_decisions: allowedDecisions };
  }
  if (expected.items) {
    summary.items = state.items.map(item => item.kind);
  }
  if (expected.traceback !== undefined) {
    summary.traceback = state.error?.traceback ?? null;
  }
  if (expected.cancel_message !== undefined) {
    summary.cancel_message = state.cancelMessage;
  }
  return summary;
}

/** The expected entry in comparable form (notes and resume example dropped). */
export function comparableExpected(
  expected: IExpectedTurn
): Record<string, unknown> {
  const comparable: Record<string, unknown> = { ...expected };
  delete comparable.notes;
  delete comparable.resume_example;
  if (expected.interrupt) {
    comparable.interrupt = {
      actions: expected.interrupt.actions.map(action => ({
        ...action,
        allowed: sortedCopy(action.allowed)
      })),
      allowed_decisions: sortedCopy(expected.interrupt.allowed_decisions)
    };
  }
  return comparable;
}

/** Check a turn against its expected entry, resume example included. */
export function expectTurn(state: ITurnState, expected: IExpectedTurn): void {
  expect(summarize(state, expected)).toStrictEqual(
    comparableExpected(expected)
  );
  if (expected.resume_example) {
    const built = buildResume(
      interruptCards(state),
      expected.resume_example.decisions
    );
    expect(JSON.stringify(built.decisions)).toBe(
      JSON.stringify(expected.resume_example.decisions)
    );
  }
}
