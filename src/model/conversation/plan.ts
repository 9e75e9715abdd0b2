/**
 * The agent's plan: the latest `todos` extraction of the conversation
 * (a `write_todos` result, docs/protocol.md §2.2), each later one replacing it.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import { isObject } from '../../wire/json';
import type { IExtractionCard, TurnChange } from '../../wire/types';
import type { ChatModel } from './chat-model';
import type { ChatEntry, ITurnUpdate } from './chat/chat-entries';
import { panelStrings } from '../../contracts/translation';

export const TODOS_TYPE = 'todos';

/** `pending`, `in_progress` and `completed` are known; others are shown as sent. */
export type TodoStatus = 'pending' | 'in_progress' | 'completed' | string;

export interface ITodo {
  content: string;
  status: TodoStatus;
}

/** A to-do as the plan shows it: what changed since the previous list. */
export interface IPlanItem extends ITodo {
  /** `new`: not in the previous list; `status`: its status changed. */
  change: 'new' | 'status' | null;
}

export interface IPlan {
  items: IPlanItem[];
  /** Items with status `completed`. */
  done: number;
  /** Entries that could not be read as to-dos, with why. */
  problems: string[];
  /** The extraction it comes from. */
  source: { turn: string; item: number; toolName: string };
}

/**
 * The to-dos of a `todos` extraction. Items are `{content, status}`
 * objects (a string is a pending to-do); what cannot be read is reported
 * (the plan shows it), never thrown. Null when `data` is not a list at all.
 */
export function readTodos(
  data: unknown,
  trans: TranslationBundle = panelStrings()
): { todos: ITodo[]; problems: string[] } | null {
  if (!Array.isArray(data)) {
    return null;
  }
  const todos: ITodo[] = [];
  const problems: string[] = [];
  data.forEach((raw, index) => {
    if (typeof raw === 'string' && raw.trim()) {
      todos.push({ content: raw, status: 'pending' });
      return;
    }
    const item = isObject(raw) ? raw : null;
    const content = item?.content;
    if (typeof content !== 'string' || !content.trim()) {
      problems.push(trans.__('item %1 has no text ("content")', index + 1));
      return;
    }
    const status = item?.status;
    todos.push({
      content,
      status: typeof status === 'string' && status ? status : 'pending'
    });
  });
  return { todos, problems };
}

/**
 * The new list, each item marked with what changed since `previous`
 * (matched by text): the list replaces the previous one as a whole.
 */
export function mergeTodos(
  previous: readonly ITodo[] | null,
  next: readonly ITodo[]
): IPlanItem[] {
  const before = new Map<string, string>();
  for (const item of previous ?? []) {
    before.set(item.content, item.status);
  }
  return next.map(item => {
    const status = before.get(item.content);
    const change =
      previous === null
        ? null
        : status === undefined
          ? 'new'
          : status !== item.status
            ? 'status'
            : null;
    return { content: item.content, status: item.status, change };
  });
}

/** The plan as a Markdown task list: `- [x] done`, `- [ ] to do`. */
export function planMarkdown(
  items: readonly ITodo[],
  inProgressLabel = 'in progress'
): string {
  return items
    .map(item => {
      const text = item.content.replace(/\s*\n\s*/g, ' ').trim();
      const box = item.status === 'completed' ? '[x]' : '[ ]';
      const note =
        item.status === 'in_progress' ? ` *(${inProgressLabel})*` : '';
      return `- ${box} ${text}${note}`;
    })
    .join('\n');
}

/** The agent's plan as other plugins follow it (`IAgentPanel.plan`). */
export interface IPlanTracker {
  /** The latest plan of the conversation; null when it has none. */
  readonly plan: IPlan | null;
  readonly changed: ISignal<IPlanTracker, IPlan | null>;
}

/**
 * Follows the conversation's latest `todos` extraction. A frame costs O(1)
 * unless it carries one; a new or restored conversation is scanned once.
 */
export class PlanTracker implements IPlanTracker, IDisposable {
  constructor(model: ChatModel, trans: TranslationBundle = panelStrings()) {
    this._trans = trans;
    this._model = model;
    model.turnChanged.connect(this._onTurn, this);
    model.cleared.connect(this._scan, this);
    this._scan();
  }

  /** Follow another conversation (the panel shows another one). */
  follow(model: ChatModel): void {
    this._model.turnChanged.disconnect(this._onTurn, this);
    this._model.cleared.disconnect(this._scan, this);
    this._model = model;
    model.turnChanged.connect(this._onTurn, this);
    model.cleared.connect(this._scan, this);
    this._scan();
  }

  get plan(): IPlan | null {
    return this._plan;
  }

  get changed(): ISignal<this, IPlan | null> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._model.turnChanged.disconnect(this._onTurn, this);
    this._model.cleared.disconnect(this._scan, this);
    Signal.clearData(this);
  }

  private _onTurn(_: ChatModel, { entry, changes }: ITurnUpdate): void {
    for (const change of changes) {
      const card = todosCard(change);
      if (card) {
        this._take(entry.key, card);
      }
    }
  }

  /** The plan of the conversation as it is now (after it was replaced). */
  private _scan(): void {
    this._plan = null;
    let latest: { turn: string; card: IExtractionCard } | null = null;
    for (const entry of this._model.entries as ChatEntry[]) {
      if (entry.kind !== 'turn') {
        continue;
      }
      for (const item of entry.state.items) {
        if (item.kind === 'extraction' && item.extractedType === TODOS_TYPE) {
          latest = { turn: entry.key, card: item };
        }
      }
    }
    if (latest) {
      this._take(latest.turn, latest.card, false);
    } else {
      this._changed.emit(null);
    }
  }

  private _take(turn: string, card: IExtractionCard, compare = true): void {
    const read = readTodos(card.data, this._trans);
    if (!read) {
      console.warn(
        `Agent Panel: a "todos" extraction from ${card.toolName} is not a list; the plan is unchanged.`
      );
      return;
    }
    const previous = compare ? (this._plan?.items ?? null) : null;
    const items = mergeTodos(previous, read.todos);
    this._plan = {
      items,
      done: items.filter(item => item.status === 'completed').length,
      problems: read.problems,
      source: { turn, item: card.key, toolName: card.toolName }
    };
    this._changed.emit(this._plan);
  }

  private readonly _trans: TranslationBundle;
  private _model: ChatModel;
  private _plan: IPlan | null = null;
  private _isDisposed = false;
  private readonly _changed = new Signal<this, IPlan | null>(this);
}

function todosCard(change: TurnChange): IExtractionCard | null {
  if (change.type !== 'added' && change.type !== 'updated') {
    return null;
  }
  const item = change.item;
  return item.kind === 'extraction' && item.extractedType === TODOS_TYPE
    ? item
    : null;
}
