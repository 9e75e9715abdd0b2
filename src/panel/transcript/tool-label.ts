/**
 * A tool call in words, for its one-line card: what it does (or did), with
 * an icon of its kind and the cell it names, numbered as JupyterLab shows
 * cells (from 1, in the notebook's name). The notebook tools
 * (docs/protocol.md §12), the plan, the file tools of a deep agent
 * (docs/protocol.md §16.1) and a tool the server titled (an MCP tool's
 * description) get their own words; any other is `name(args)`.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import {
  addBelowIcon,
  buildIcon,
  checkIcon,
  deleteIcon,
  editIcon,
  fileIcon,
  folderIcon,
  inspectorIcon,
  type LabIcon,
  notebookIcon,
  runIcon,
  searchIcon,
  usersIcon
} from '@jupyterlab/ui-components';
import { isObject, type JsonObject } from '../../wire/json';
import type { IToolCard } from '../../wire/types';

/** A cell a label names: clicking it reveals the cell. */
export interface ICellRef {
  path: string;
  cellId: string;
}

/** One piece of a label: text, or the cell it names. */
export type LabelPart = string | { cell: ICellRef; text: string };

export interface IToolLabel {
  icon: LabIcon;
  parts: LabelPart[];
}

/** The longest value of an argument a generic label shows. */
const ARG_CHARS = 32;
const OUTPUT_CHARS = 60;
/** Where a cell reference goes in a translated sentence. */
const CELL = '\u0000';

/** The label of `card`: past tense once it succeeded, what it would do before. */
export function toolLabel(
  card: IToolCard,
  trans: TranslationBundle
): IToolLabel {
  const args = isObject(card.args) ? card.args : {};
  const result = resultObject(card.result);
  const done = card.status === 'success' && !isRefusal(result);
  const words = new LabelWords(trans, args, result, done);
  const known = KNOWN[card.name];
  if (known && (known.needs ?? []).every(key => words.text(key) !== '')) {
    return { icon: known.icon, parts: known.say(words) };
  }
  if (card.title) {
    return { icon: buildIcon, parts: [card.title] };
  }
  return { icon: buildIcon, parts: [genericLabel(card)] };
}

/** A result the producer sent as JSON text, read; null when it is not an object. */
export function resultObject(result: unknown): JsonObject | null {
  if (isObject(result)) {
    return result;
  }
  if (typeof result !== 'string' || !result.trimStart().startsWith('{')) {
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(result);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** The notebook tools' result of a call that did not happen (docs/protocol.md §12.5). */
function isRefusal(result: JsonObject | null): boolean {
  return result?.status === 'rejected' || result?.status === 'error';
}

/** `name(key: value, …)`, each value cut short. */
export function genericLabel(card: IToolCard): string {
  if (card.rawArgs !== null) {
    return `${card.name}(${cut(card.rawArgs)})`;
  }
  const args = isObject(card.args) ? Object.entries(card.args) : [];
  const shown = args
    .slice(0, 3)
    .map(([key, value]) => `${key}: ${cut(JSON.stringify(value) ?? '')}`);
  if (args.length > 3) {
    shown.push('…');
  }
  return `${card.name}(${shown.join(', ')})`;
}

function cut(text: string, limit = ARG_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}

/** The pieces the sentences are made of, from the arguments and the result. */
class LabelWords {
  constructor(
    readonly trans: TranslationBundle,
    readonly args: JsonObject,
    readonly result: JsonObject | null,
    readonly done: boolean
  ) {}

  /** The notebook's name, as its tab shows it. */
  get notebook(): string {
    const path = this.path;
    return path === null
      ? this.trans.__('the active notebook')
      : (path.split('/').pop() ?? path);
  }

  get path(): string | null {
    const path = this.result?.path ?? this.args.path;
    return typeof path === 'string' && path ? path : null;
  }

  /** "cell 3" (from 1) when the index is known, linked when its id is too. */
  cell(): LabelPart | null {
    const index = this.result?.index ?? this.args.index;
    if (typeof index !== 'number') {
      return null;
    }
    const text = this.trans.__('cell %1', index + 1);
    const cellId = this.result?.cell_id ?? this.args.cell_id;
    const path = this.path;
    return typeof cellId === 'string' && path !== null
      ? { cell: { path, cellId }, text }
      : text;
  }

  /** A translated sentence, with the cell reference where it says `CELL`. */
  say(text: string): LabelPart[] {
    const cell = this.cell();
    const pieces = text.split(CELL);
    const parts: LabelPart[] = [];
    pieces.forEach((piece, i) => {
      if (piece) {
        parts.push(piece);
      }
      if (i < pieces.length - 1 && cell) {
        parts.push(cell);
      }
    });
    return parts;
  }

  text(key: string): string {
    const value = this.args[key];
    return typeof value === 'string' ? value : '';
  }

  /** A deep agent's path, from the server's root, as the file browser shows it. */
  file(key = 'file_path'): string {
    return this.text(key).replace(/^\/+/, '') || '/';
  }
}

interface IKnownTool {
  icon: LabIcon;
  /**
   * The string arguments its words need: another agent's tool of the same
   * name and other arguments is shown as `name(args)`.
   */
  needs?: readonly string[];
  say(words: LabelWords): LabelPart[];
}

/** What a finished `run_cell` shows: what it printed, raised, or that it ran on. */
function runOutcome(words: LabelWords): string {
  const result = words.result!;
  const trans = words.trans;
  const outputs = Array.isArray(result.outputs)
    ? result.outputs.filter(isObject)
    : [];
  const error = outputs.find(output => output.output_type === 'error');
  if (result.execution_status === 'timeout') {
    return trans.__('still running when the agent stopped waiting');
  }
  if (error) {
    return trans.__(
      'raised %1: %2',
      String(error.ename),
      cut(String(error.evalue), OUTPUT_CHARS)
    );
  }
  const printed = outputs
    .map(output =>
      output.output_type === 'stream' ? String(output.text ?? '') : ''
    )
    .join('')
    .trim();
  if (printed) {
    return trans.__('printed %1', cut(printed, OUTPUT_CHARS));
  }
  return outputs.length > 0
    ? trans.__('%1 outputs', outputs.length)
    : trans.__('no output');
}

function cellsRead(words: LabelWords): number {
  const cells = words.result?.cells;
  return Array.isArray(cells) ? cells.length : 0;
}

/** The plan's steps, and how many are done. */
function planSteps(args: JsonObject): { steps: number; done: number } {
  const todos = Array.isArray(args.todos) ? args.todos.filter(isObject) : [];
  return {
    steps: todos.length,
    done: todos.filter(todo => todo.status === 'completed').length
  };
}

const KNOWN: Record<string, IKnownTool> = {
  list_notebooks: {
    icon: notebookIcon,
    say: w => {
      const notebooks = w.result?.notebooks;
      return w.done && Array.isArray(notebooks)
        ? w.say(w.trans.__('Listed the open notebooks (%1)', notebooks.length))
        : w.say(w.trans.__('List the open notebooks'));
    }
  },
  read_notebook: {
    icon: inspectorIcon,
    say: w =>
      w.done
        ? w.say(w.trans.__('Read %1 (%2 cells)', w.notebook, cellsRead(w)))
        : w.say(w.trans.__('Read %1', w.notebook))
  },
  read_cell: {
    icon: inspectorIcon,
    say: w =>
      w.cell()
        ? w.say(w.trans.__('Read %1 of %2', CELL, w.notebook))
        : w.say(w.trans.__('Read a cell of %1', w.notebook))
  },
  get_active_cell: {
    icon: inspectorIcon,
    say: w =>
      w.done && w.cell()
        ? w.say(w.trans.__('Found the active cell: %1 of %2', CELL, w.notebook))
        : w.say(w.trans.__('Find the active cell'))
  },
  insert_cell: {
    icon: addBelowIcon,
    say: w => {
      const type = w.text('cell_type') || 'code';
      if (!w.done) {
        return w.say(w.trans.__('Insert a %1 cell in %2', type, w.notebook));
      }
      return w.cell()
        ? w.say(
            w.trans.__('Inserted a %1 cell in %2 (%3)', type, w.notebook, CELL)
          )
        : w.say(w.trans.__('Inserted a %1 cell in %2', type, w.notebook));
    }
  },
  edit_cell: {
    icon: editIcon,
    say: w =>
      w.done
        ? w.say(
            w.cell()
              ? w.trans.__('Edited %1 of %2', CELL, w.notebook)
              : w.trans.__('Edited a cell of %1', w.notebook)
          )
        : w.say(w.trans.__('Edit a cell of %1', w.notebook))
  },
  delete_cell: {
    icon: deleteIcon,
    say: w =>
      w.done
        ? w.say(
            w.cell()
              ? w.trans.__('Deleted %1 of %2', CELL, w.notebook)
              : w.trans.__('Deleted a cell of %1', w.notebook)
          )
        : w.say(w.trans.__('Delete a cell of %1', w.notebook))
  },
  run_cell: {
    icon: runIcon,
    say: w =>
      w.done
        ? w.say(
            w.cell()
              ? w.trans.__('Ran %1 of %2 — %3', CELL, w.notebook, runOutcome(w))
              : w.trans.__('Ran a cell of %1 — %2', w.notebook, runOutcome(w))
          )
        : w.say(w.trans.__('Run a cell of %1', w.notebook))
  },
  write_todos: {
    icon: checkIcon,
    say: w => {
      const { steps, done } = planSteps(w.args);
      return w.done
        ? w.say(w.trans.__('Updated the plan: %1 steps, %2 done', steps, done))
        : w.say(w.trans.__('Update the plan'));
    }
  },
  ls: {
    icon: folderIcon,
    say: w =>
      w.done
        ? w.say(w.trans.__('Listed %1', w.file('path')))
        : w.say(w.trans.__('List %1', w.file('path')))
  },
  read_file: {
    icon: fileIcon,
    needs: ['file_path'],
    say: w => w.say(w.trans.__('Read %1', w.file()))
  },
  write_file: {
    icon: editIcon,
    needs: ['file_path'],
    say: w =>
      w.done
        ? w.say(w.trans.__('Wrote %1', w.file()))
        : w.say(w.trans.__('Write %1', w.file()))
  },
  edit_file: {
    icon: editIcon,
    needs: ['file_path'],
    say: w =>
      w.done
        ? w.say(w.trans.__('Edited %1', w.file()))
        : w.say(w.trans.__('Edit %1', w.file()))
  },
  delete: {
    icon: deleteIcon,
    needs: ['file_path'],
    say: w =>
      w.done
        ? w.say(w.trans.__('Deleted %1', w.file()))
        : w.say(w.trans.__('Delete %1', w.file()))
  },
  glob: {
    icon: searchIcon,
    needs: ['pattern'],
    say: w =>
      w.done
        ? w.say(w.trans.__('Found the files matching %1', w.text('pattern')))
        : w.say(w.trans.__('Find the files matching %1', w.text('pattern')))
  },
  grep: {
    icon: searchIcon,
    needs: ['pattern'],
    say: w =>
      w.done
        ? w.say(w.trans.__('Searched the files for “%1”', w.text('pattern')))
        : w.say(w.trans.__('Search the files for “%1”', w.text('pattern')))
  },
  task: {
    icon: usersIcon,
    needs: ['description'],
    say: w =>
      w.done
        ? w.say(
            w.trans.__(
              'Asked a subagent: %1',
              cut(w.text('description'), OUTPUT_CHARS)
            )
          )
        : w.say(
            w.trans.__(
              'Ask a subagent: %1',
              cut(w.text('description'), OUTPUT_CHARS)
            )
          )
  }
};

/** What the LangChain human-in-the-loop middleware tells the model of a rejection. */
const HITL_REJECTION =
  /^User rejected the tool call for `[^`]*`(?: with reason: ([\s\S]*))?/;

/**
 * How the call ended, when a person decided it or it failed: "You applied
 * this change", "You rejected it: not now", the error. Null for a plain
 * success or while it runs.
 */
export function toolOutcome(
  card: IToolCard,
  trans: TranslationBundle
): { text: string; kind: 'decided' | 'rejected' | 'failed' } | null {
  const result = resultObject(card.result);
  if (result?.status === 'applied') {
    return {
      kind: 'decided',
      text:
        result.edited_by_user === true
          ? trans.__('You edited this change, then applied it.')
          : trans.__('You applied this change.')
    };
  }
  const rejection = rejectionOf(card, result);
  if (rejection !== null) {
    return {
      kind: 'rejected',
      text: rejection
        ? trans.__('You rejected it: %1', rejection)
        : trans.__('You rejected it.')
    };
  }
  if (card.status === 'error') {
    const error =
      result && typeof result.error === 'string'
        ? result.error
        : typeof card.result === 'string'
          ? card.result
          : '';
    return { kind: 'failed', text: cut(error, 300) };
  }
  return null;
}

/** The reason of a rejected call ('' when none was given), or null when it was not rejected. */
function rejectionOf(
  card: IToolCard,
  result: JsonObject | null
): string | null {
  if (result?.status === 'rejected') {
    return typeof result.reason === 'string' ? result.reason.trim() : '';
  }
  const match =
    typeof card.result === 'string' ? HITL_REJECTION.exec(card.result) : null;
  return match ? (match[1] ?? '').trim() : null;
}
