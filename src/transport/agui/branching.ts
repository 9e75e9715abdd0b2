/**
 * What both AG-UI transports answer about going back in a conversation
 * (docs/protocol.md §8.8): the thread lives in the conversation's memory, so
 * a fork needs runs that carry the history, an edited message starts from
 * the memory cut before it, and an unchanged message is not answered again.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import {
  historyForkProblem,
  memoryBefore,
  REGENERATE_PROBLEM
} from '../../agui/thread';
import { translated } from '../../contracts/problems';
import type { JsonObject } from '../../wire/json';
import type { HistoryMode } from '../../wire/turn';
import { panelStrings } from '../../contracts/translation';

export abstract class AguiBranching {
  constructor(
    history: HistoryMode | undefined,
    trans: TranslationBundle | undefined
  ) {
    this._history = history;
    this._trans = trans ?? panelStrings();
  }

  get forkRefusal(): string | null {
    const found = historyForkProblem(this._history);
    return found && translated(found, this._trans);
  }

  memoryBefore(
    memory: JsonObject | null,
    messageId: string
  ): JsonObject | null {
    return memoryBefore(memory, messageId);
  }

  get regenerateRefusal(): string {
    return translated(REGENERATE_PROBLEM, this._trans);
  }

  /** The transport's words, for these answers and everything else it says. */
  protected readonly _trans: TranslationBundle;
  private readonly _history: HistoryMode | undefined;
}
