/**
 * Reading the conversation for the notebook commands: the latest extraction,
 * answer and code block, and the whole conversation as notebook cells.
 *
 * Pure: no JupyterLab imports (types only).
 */
import type {
  IExtractionCard,
  IInterruptCard,
  ITextBlock,
  IToolCard,
  ITurnState,
  TranscriptItem
} from '../wire/types';
import {
  extractionCell,
  markdownCell,
  type ICellContext,
  type NotebookCell,
  type Provenance
} from './cells';
import { markdownCode, markdownFence } from './codegen';
import { truncate } from './outputs';

/** The parts of a chat entry an export reads (`ChatEntry` fits). */
export type ConversationEntry =
  | { readonly kind: 'user'; readonly text: string; readonly key?: string }
  | {
      readonly kind: 'turn';
      readonly key: string;
      readonly state: Pick<
        ITurnState,
        'items' | 'outcome' | 'error' | 'cancelMessage'
      >;
    };

/** An item and the key of the turn that holds it. */
export interface IFound<T extends TranscriptItem> {
  turn: string;
  item: T;
}

export interface ICodeBlock {
  code: string;
  language: string;
}

/** The most recent item of one kind, newest turn first. */
export function latestItem<T extends TranscriptItem>(
  entries: readonly ConversationEntry[],
  isWanted: (item: TranscriptItem) => item is T
): IFound<T> | null {
  for (let e = entries.length - 1; e >= 0; e--) {
    const entry = entries[e];
    if (entry.kind !== 'turn') {
      continue;
    }
    const { items } = entry.state;
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (isWanted(item)) {
        return { turn: entry.key, item };
      }
    }
  }
  return null;
}

export const isExtraction = (item: TranscriptItem): item is IExtractionCard =>
  item.kind === 'extraction';

export const isAnswerText = (item: TranscriptItem): item is ITextBlock =>
  item.kind === 'text' && item.text.trim() !== '';

/** The latest answer block that contains a fenced code block, and its last one. */
export function latestCodeBlock(
  entries: readonly ConversationEntry[]
): ICodeBlock | null {
  const found = latestItem(
    entries,
    (item): item is ITextBlock =>
      isAnswerText(item) && fencedCodeBlocks(item.text).length > 0
  );
  return found ? fencedCodeBlocks(found.item.text).pop()! : null;
}

const OPENING_FENCE = /^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;

/**
 * The fenced code blocks of a Markdown text, as CommonMark reads them: an
 * opening fence of three or more backticks or tildes (indented up to three
 * spaces) runs to a closing fence of the same character at least as long, or
 * to the end of the text.
 */
export function fencedCodeBlocks(markdown: string): ICodeBlock[] {
  const blocks: ICodeBlock[] = [];
  const lines = markdown.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const opening = OPENING_FENCE.exec(lines[i]);
    if (!opening) {
      continue;
    }
    const [, indent, fence, language] = opening;
    const closing = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`);
    const body: string[] = [];
    for (i++; i < lines.length && !closing.test(lines[i]); i++) {
      body.push(lines[i].replace(new RegExp(`^ {0,${indent.length}}`), ''));
    }
    blocks.push({ code: body.join('\n'), language });
  }
  return blocks;
}

export interface IExportOptions extends ICellContext {
  /** Tool arguments and results longer than this are cut in the export. */
  maxToolChars: number;
  /** Where message `key` stands among its branches (docs/protocol.md §13.8). */
  branchOf?: (key: string) => { index: number; count: number };
}

/**
 * The conversation as notebook cells: a title, each user message and answer
 * as Markdown, tool calls and reviews summarised in Markdown, extractions as
 * cells with outputs (see `extractionCell`), errors and stops as notes.
 * Reasoning is left out: it is not part of the answer.
 */
export function conversationCells(
  entries: readonly ConversationEntry[],
  options: IExportOptions
): NotebookCell[] {
  const note = (kind: Provenance['kind'], source: string) =>
    markdownCell(source, {
      kind,
      thread_id: options.threadId,
      inserted_at: options.insertedAt
    });
  const taken = new Set<string>();
  const cells: NotebookCell[] = [
    note(
      'note',
      `# Agent conversation\n\nThread ${markdownCode(options.threadId)}, exported ${options.insertedAt}.`
    )
  ];
  for (const entry of entries) {
    if (entry.kind === 'user') {
      const branch =
        entry.key === undefined ? undefined : options.branchOf?.(entry.key);
      const where =
        branch && branch.count > 1
          ? ` (branch ${branch.index + 1} of ${branch.count}; the panel keeps the others)`
          : '';
      cells.push(note('user', `**You**${where}\n\n${entry.text}`));
      continue;
    }
    let answer: string[] = [];
    let labelled = false;
    const flushAnswer = () => {
      if (answer.length > 0) {
        const label = labelled ? '' : '**Agent**\n\n';
        cells.push(note('message', label + answer.join('\n\n')));
        labelled = true;
        answer = [];
      }
    };
    for (const item of entry.state.items) {
      if (item.kind === 'text') {
        if (item.text.trim()) {
          answer.push(item.text);
        }
        continue;
      }
      if (item.kind === 'reasoning') {
        continue;
      }
      flushAnswer();
      if (item.kind === 'tool') {
        cells.push(note('tool', toolSummary(item, options.maxToolChars)));
      } else if (item.kind === 'extraction') {
        cells.push(extractionCell(item, taken, options).cell);
      } else {
        cells.push(note('review', reviewSummary(item)));
      }
    }
    flushAnswer();
    const { outcome, error, cancelMessage } = entry.state;
    if (outcome === 'error') {
      cells.push(note('note', `**Error:** ${error?.message ?? 'unknown'}`));
    } else if (outcome === 'cancelled') {
      cells.push(note('note', `*${cancelMessage ?? 'Stopped.'}*`));
    }
  }
  return cells;
}

const TOOL_STATUS: Record<IToolCard['status'], string> = {
  pending: 'did not finish',
  success: 'succeeded',
  error: 'failed',
  unknown: 'finished'
};

function toolSummary(card: IToolCard, maxChars: number): string {
  const parts = [
    `**Tool** ${markdownCode(card.name)} ${TOOL_STATUS[card.status]}.`
  ];
  const args =
    card.rawArgs ?? (card.args === undefined ? null : json(card.args));
  if (args !== null) {
    parts.push(
      `Arguments:\n\n${markdownFence(truncate(args, maxChars), 'json')}`
    );
  }
  if (card.result !== undefined) {
    const result =
      typeof card.result === 'string' ? card.result : json(card.result);
    parts.push(`Result:\n\n${markdownFence(truncate(result, maxChars))}`);
  }
  return parts.join('\n\n');
}

function reviewSummary(card: IInterruptCard): string {
  const actions = card.actions
    .map(action => markdownCode(action.name ?? 'an action'))
    .join(', ');
  const answer = card.answered
    ? card.answered.map(decision => decision.type).join(', ')
    : 'not answered';
  return `**Review requested** for ${actions || 'the agent to continue'}: ${answer}.`;
}

function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
