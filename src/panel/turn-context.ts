/**
 * What the transcript's views may do, as the panel gives it to them: answer
 * reviews and requests, retry, branch, rewind, show cells and reviews.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import { REVEAL_CELL_COMMAND } from '../contracts/extension-points';
import type { AgentPanelService } from '../model/agent-panel-service';
import { agentOutputRendermime } from './common/agent-rendermime';
import type { ReadFile } from './review/file-change-view';
import type { CodeHighlighter } from './review/line-diff';
import type { ITurnViewContext } from './transcript/turn-view';

export interface ITurnContextOptions {
  service: AgentPanelService;
  rendermime: IRenderMimeRegistry;
  trans: TranslationBundle;
  commands: CommandRegistry;
  readFile?: ReadFile;
  highlight?: CodeHighlighter;
  /** Run a model action; false when the model refused (the user is told). */
  run(action: () => void): boolean;
  /** Show the rewind card of a turn and the later ones. */
  rewindFrom(turnKey: string): void;
  /** Bring the first pending change review into view. */
  showReview(): void;
}

/** The context every turn view of the panel is built with. */
export function turnViewContext({
  service,
  rendermime,
  trans,
  commands,
  readFile,
  highlight,
  run,
  rewindFrom,
  showReview
}: ITurnContextOptions): ITurnViewContext {
  return {
    // Agent output is untrusted: nothing in it may load or submit elsewhere.
    rendermime: agentOutputRendermime(rendermime, trans),
    trans,
    commands,
    itemActions: () => service.itemActions,
    settings: () => service.settings,
    onDecisions: decisions => run(() => service.model.answer(decisions)),
    onResponse: (card, response) =>
      run(() => service.model.respond(card, response)),
    onRetry: () => run(() => service.model.retry()),
    branches: {
      refusal: key => service.model.forkRefusal(key),
      siblings: key => service.model.siblings(key),
      edit: (key, text) => run(() => service.model.edit(key, text)),
      show: key => run(() => service.model.showBranch(key)),
      regenerateRefusal: key => service.model.regenerateRefusal(key),
      regenerate: key => run(() => service.model.regenerate(key))
    },
    onRewind: rewindFrom,
    revealCell: cell => void commands.execute(REVEAL_CELL_COMMAND, { ...cell }),
    showReview,
    undo: () => service.changeUndo,
    review: {
      answeredByPlugin: action => service.answersInterrupt(action),
      isAlwaysAllowed: action => service.isAlwaysAllowed(action),
      alwaysAllow: tool => service.changeReviews.setAlwaysAllowed(tool, true),
      readFile,
      highlight
    }
  };
}
