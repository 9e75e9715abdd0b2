import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { IToolCard, Outcome, TranscriptItem } from '../../wire/types';
import { CappedBlock } from '../common/capped-block';
import {
  capLongStrings,
  formatDuration,
  prettyJson,
  previewOf
} from '../common/format';
import type { IItemView, IItemViewContext } from '../common/item-view';

/** Argument strings longer than this are cut until "Show more". */
export const ARG_VALUE_PREVIEW_CHARS = 200;

/**
 * One tool call: name, status in words (never colour alone), duration,
 * arguments and result, each capped with "Show more". Raw (unparsed)
 * arguments show as text; a result with no call is labelled as such.
 */
export interface IToolViewOptions {
  /** The turn resumes after a review: results may answer earlier calls. */
  afterReview: boolean;
}

export class ToolView implements IItemView {
  constructor(
    private readonly _context: IItemViewContext,
    private readonly _options: IToolViewOptions = { afterReview: false }
  ) {
    const trans = _context.trans;
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-tool');
    const header = document.createElement('div');
    header.className = 'jp-AgentPanel-toolHeader';
    this._name = span('jp-AgentPanel-toolName');
    this._status = span('jp-AgentPanel-toolStatus');
    this._duration = span('jp-AgentPanel-toolDuration');
    header.append(this._name, this._status, this._duration);
    this._note = document.createElement('div');
    this._note.className = 'jp-AgentPanel-toolNote';
    this._argsLabel = label(trans.__('Arguments'));
    this._args = new CappedBlock(trans, 'jp-AgentPanel-toolArgs');
    this._resultLabel = label(trans.__('Result'));
    this._result = new CappedBlock(trans, 'jp-AgentPanel-toolResult');
    this._truncated = document.createElement('div');
    this._truncated.className = 'jp-AgentPanel-toolTruncated';
    this._truncated.textContent = trans.__(
      'Truncated by the server: the full result is not available.'
    );
    this.widget.node.append(
      header,
      this._note,
      this._argsLabel,
      this._args.node,
      this._resultLabel,
      this._result.node,
      this._truncated
    );
  }

  readonly widget: Widget;

  update(item: TranscriptItem): void {
    const card = item as IToolCard;
    this._card = card;
    const trans = this._context.trans;
    this._name.textContent = card.name;
    this._renderStatus();
    this._duration.textContent =
      card.durationMs === null ? '' : formatDuration(card.durationMs, trans);
    this._duration.hidden = card.durationMs === null;
    this._note.hidden = !card.orphan;
    // After a review the call was shown in the turn that paused.
    this._note.textContent = this._options.afterReview
      ? trans.__('The result of a call reviewed above.')
      : trans.__('A result with no matching tool call.');
    this._renderArgs(card, trans);
    this._renderResult(card, trans);
  }

  settle(outcome: Outcome): void {
    this._settledOutcome = outcome;
    this._renderStatus();
  }

  reviewed(): void {
    this._reviewed = true;
    this._renderStatus();
  }

  dispose(): void {
    this._args.dispose();
    this._result.dispose();
    this.widget.dispose();
  }

  private _renderStatus(): void {
    const card = this._card;
    if (!card) {
      return;
    }
    const trans = this._context.trans;
    let status: string = card.status;
    let text: string;
    const here = card.clientTool !== undefined;
    switch (card.status) {
      case 'success':
        text = here
          ? trans.__('Succeeded in JupyterLab')
          : trans.__('Succeeded');
        break;
      case 'error':
        text = here ? trans.__('Failed in JupyterLab') : trans.__('Failed');
        break;
      case 'unknown':
        text =
          typeof card.result === 'string' && card.result.startsWith('Error:')
            ? trans.__(
                'Finished (status unknown; the result reads as an error)'
              )
            : trans.__('Finished (status unknown)');
        break;
      default:
        if (here) {
          // A client tool: the panel runs it after the agent's run ended.
          status = 'running';
          text = trans.__('Running in JupyterLab…');
        } else if (this._settledOutcome === null) {
          status = 'running';
          text = trans.__('Running…');
        } else if (this._settledOutcome === 'interrupted') {
          status = this._reviewed ? 'reviewed' : 'waiting';
          text = this._reviewed
            ? trans.__('Reviewed: the result follows below')
            : trans.__('Waiting for your review');
        } else {
          status = 'unfinished';
          text = trans.__('Did not finish');
        }
    }
    this.widget.node.dataset.status = status;
    this._status.textContent = text;
  }

  private _renderArgs(card: IToolCard, trans: TranslationBundle): void {
    const hasArgs = card.rawArgs !== null || card.args !== undefined;
    this._argsLabel.hidden = !hasArgs;
    this._args.node.hidden = !hasArgs;
    if (card.rawArgs !== null) {
      this._argsLabel.textContent = trans.__('Arguments (not valid JSON)');
      this._args.set(
        card.rawArgs,
        previewOf(card.rawArgs, ARG_VALUE_PREVIEW_CHARS)
      );
    } else if (card.args !== undefined) {
      this._argsLabel.textContent = trans.__('Arguments');
      const short = capLongStrings(card.args, ARG_VALUE_PREVIEW_CHARS);
      this._args.set(
        prettyJson(card.args),
        short.capped ? prettyJson(short.value) : null
      );
    }
  }

  private _renderResult(card: IToolCard, trans: TranslationBundle): void {
    const hasResult = card.result !== undefined;
    this._resultLabel.hidden = !hasResult;
    this._result.node.hidden = !hasResult;
    this._truncated.hidden = !card.truncated;
    if (!hasResult) {
      return;
    }
    this._resultLabel.textContent =
      card.status === 'error' ? trans.__('Error') : trans.__('Result');
    const text =
      typeof card.result === 'string' ? card.result : prettyJson(card.result);
    const limit = this._context.settings().maxToolResultChars;
    this._result.set(text, previewOf(text, limit));
  }

  private readonly _name: HTMLSpanElement;
  private readonly _status: HTMLSpanElement;
  private readonly _duration: HTMLSpanElement;
  private readonly _note: HTMLDivElement;
  private readonly _argsLabel: HTMLDivElement;
  private readonly _args: CappedBlock;
  private readonly _resultLabel: HTMLDivElement;
  private readonly _result: CappedBlock;
  private readonly _truncated: HTMLDivElement;
  private _card: IToolCard | null = null;
  private _settledOutcome: Outcome | null = null;
  private _reviewed = false;
}

function span(className: string): HTMLSpanElement {
  const element = document.createElement('span');
  element.className = className;
  return element;
}

function label(text: string): HTMLDivElement {
  const element = document.createElement('div');
  element.className = 'jp-AgentPanel-label';
  element.textContent = text;
  return element;
}
