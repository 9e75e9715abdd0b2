/**
 * What a notebook command acts on. A command gets it from its arguments (a
 * panel button passes `{turn, item}` or `{code, language}`), from the
 * transcript node under the last right-click (`{fromContextMenu: true}`), or,
 * with no arguments (the command palette), from the latest answer.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import type {
  IExtractionCard,
  ITextBlock,
  TranscriptItem
} from '../wire/types';
import type { IConversation } from '../model/conversation/chat-model';
import {
  isAnswerText,
  isExtraction,
  latestCodeBlock,
  latestItem,
  type ICodeBlock
} from './conversation';

/** What a command acts on, or why it has nothing to act on. */
export type Subject<T> =
  { value: T; problem: null } | { value: null; problem: string };

/** Where a command was invoked from, which decides its label. */
export type Origin = 'item' | 'context-menu' | 'palette';

export function originOf(args: ReadonlyPartialJSONObject): Origin {
  if (args.fromContextMenu === true) {
    return 'context-menu';
  }
  return 'turn' in args || 'code' in args ? 'item' : 'palette';
}

/** Finds the transcript node under the last right-click (`JupyterFrontEnd.contextMenuHitTest`). */
export type HitTest = (
  test: (node: HTMLElement) => boolean
) => HTMLElement | undefined;

export class SubjectResolver {
  constructor(
    private readonly _conversation: () => IConversation,
    private readonly _hitTest: HitTest,
    private readonly _trans: TranslationBundle
  ) {}

  extraction(args: ReadonlyPartialJSONObject): Subject<IExtractionCard> {
    const trans = this._trans;
    return this._item(
      args,
      isExtraction,
      trans.__('The conversation has no extracted data yet.')
    );
  }

  message(args: ReadonlyPartialJSONObject): Subject<ITextBlock> {
    const trans = this._trans;
    return this._item(
      args,
      isAnswerText,
      trans.__('The conversation has no answer yet.')
    );
  }

  code(args: ReadonlyPartialJSONObject): Subject<ICodeBlock> {
    const trans = this._trans;
    const origin = originOf(args);
    if (origin === 'item') {
      return typeof args.code === 'string'
        ? found({
            code: args.code,
            language: typeof args.language === 'string' ? args.language : ''
          })
        : missing(trans.__('No code was given.'));
    }
    if (origin === 'context-menu') {
      const pre = this._hitTest(node => node.tagName === 'PRE');
      if (!pre) {
        return missing(trans.__('Right-click a code block of an answer.'));
      }
      const language =
        /language-(\S+)/.exec(
          pre.querySelector('code')?.className ?? ''
        )?.[1] ?? '';
      return found({ code: pre.textContent ?? '', language });
    }
    const block = latestCodeBlock(this._conversation().entries);
    return block
      ? found(block)
      : missing(trans.__('No answer has a code block yet.'));
  }

  private _item<T extends TranscriptItem>(
    args: ReadonlyPartialJSONObject,
    isWanted: (item: TranscriptItem) => item is T,
    noneYet: string
  ): Subject<T> {
    const conversation = this._conversation();
    const origin = originOf(args);
    if (origin === 'palette') {
      const latest = latestItem(conversation.entries, isWanted);
      return latest ? found(latest.item) : missing(noneYet);
    }
    let turn = args.turn;
    let item = args.item;
    if (origin === 'context-menu') {
      const node = this._hitTest(n => n.dataset.item !== undefined);
      turn = node?.closest<HTMLElement>('[data-turn]')?.dataset.turn;
      item = node ? Number(node.dataset.item) : undefined;
    }
    const value =
      typeof turn === 'string' && typeof item === 'number'
        ? conversation.findItem(turn, item)
        : undefined;
    return value && isWanted(value)
      ? found(value)
      : missing(this._trans.__('This item is no longer in the conversation.'));
  }
}

function found<T>(value: T): Subject<T> {
  return { value, problem: null };
}

function missing<T>(problem: string): Subject<T> {
  return { value: null, problem };
}
