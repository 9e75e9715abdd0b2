import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { IChangeUndo } from '../../contracts/extension-points';
import type { IToolCard, Outcome, TranscriptItem } from '../../wire/types';
import { ARG_VALUE_PREVIEW_CHARS, formatDuration } from '../common/format';
import type { IItemView, IItemViewContext } from '../common/item-view';
import { ValueView } from '../common/value-view';
import type { IToolCallHome, ToolCalls } from './tool-calls';
import {
  type ICellRef,
  type LabelPart,
  toolLabel,
  toolOutcome
} from './tool-label';

/** What a tool card needs besides the transcript's context. */
export interface IToolViewContext extends IItemViewContext {
  /** The transcript's calls: results that come in a later turn (docs/protocol.md §12.3). */
  calls?: ToolCalls;
  /** Show the notebook cell a label names. */
  revealCell?(cell: ICellRef): void;
  /** Bring the pending change review (below the conversation) into view. */
  showReview?(): void;
  /** Take back a change the call applied, when the notebook tools can. */
  undo?(): IChangeUndo | null;
}

export interface IToolViewOptions {
  /** The turn resumes after a review: results may answer earlier calls. */
  afterReview: boolean;
  /** The card's status changed, or it hid (its group counts them). */
  onStatusChange?(): void;
}

/** Notebook tools, whose change is reviewed as a diff below the conversation. */
const CHANGE_TOOLS = ['insert_cell', 'edit_cell', 'delete_cell', 'run_cell'];

/**
 * One tool call as one line in words (docs/protocol.md §12.9): an icon of
 * its kind, what it does or did, its status and duration, and Details (its
 * arguments and result, read as keys and values). A decision on it is a
 * sentence ("You rejected it: not now"), a failure its error; a change it
 * applied can be undone from here. The result of a call reviewed before it
 * ran comes in the next turn, and is shown here (`ToolCalls`).
 */
export class ToolView implements IItemView, IToolCallHome {
  constructor(
    private readonly _context: IToolViewContext,
    private readonly _options: IToolViewOptions = { afterReview: false }
  ) {
    const trans = _context.trans;
    this.widget = new Widget();
    this.widget.addClass('jp-AgentPanel-tool');
    const line = element('div', 'jp-AgentPanel-toolLine');
    this._icon = element('span', 'jp-AgentPanel-toolIcon');
    this._label = element('span', 'jp-AgentPanel-toolLabel');
    this._status = element('span', 'jp-AgentPanel-toolStatus');
    this._duration = element('span', 'jp-AgentPanel-toolDuration');
    this._toggle = button(trans.__('Details'), 'jp-AgentPanel-toolToggle');
    this._toggle.dataset.action = 'details';
    this._toggle.setAttribute('aria-expanded', 'false');
    line.append(this._icon, this._label);
    // Under what it does: how it went, and its details.
    const meta = element('div', 'jp-AgentPanel-toolMeta');
    meta.append(this._status, this._duration, this._toggle);
    this._outcome = element('div', 'jp-AgentPanel-toolOutcome');
    this._details = element('div', 'jp-AgentPanel-toolDetails');
    this._details.hidden = true;
    this._values = new ValueView(trans);
    this.widget.node.append(line, meta, this._outcome, this._details);
    this.widget.node.addEventListener('click', this);
  }

  readonly widget: Widget;

  update(item: TranscriptItem): void {
    const card = item as IToolCard;
    const calls = this._context.calls;
    const home =
      card.callId !== null && calls ? calls.homeOf(card.callId, this) : this;
    if (home !== this) {
      // The call is shown where it was made: its result goes there.
      if (!this.widget.isHidden) {
        this.widget.hide();
        this._options.onStatusChange?.();
      }
      if (card.result !== undefined) {
        calls!.deliver(card.callId!, card);
      }
      return;
    }
    this._card = card;
    // Built again (its turn had left the transcript) after its result came.
    this._result ??=
      (card.callId !== null && calls?.resultOf(card.callId)) || null;
    this._render();
  }

  /** The result of this call, from the turn that resumed after its review. */
  resultArrived(result: IToolCard): void {
    this._result = result;
    this._render();
  }

  settle(outcome: Outcome): void {
    this._settledOutcome = outcome;
    this._renderState();
  }

  reviewed(): void {
    this._reviewed = true;
    this._renderState();
  }

  handleEvent(event: Event): void {
    const target = (event.target as Element).closest<HTMLElement>(
      '[data-action]'
    );
    if (!target) {
      return;
    }
    switch (target.dataset.action) {
      case 'details':
        this._showDetails(this._details.hidden);
        break;
      case 'cell':
        this._context.revealCell?.(JSON.parse(target.dataset.cell!));
        break;
      case 'review':
        this._context.showReview?.();
        break;
      case 'undo':
        void this._undo();
        break;
    }
  }

  dispose(): void {
    const callId = this._card?.callId;
    if (callId) {
      this._context.calls?.release(callId, this);
    }
    this.widget.node.removeEventListener('click', this);
    this._values.dispose();
    this.widget.dispose();
  }

  /** The call as it stands: its own card, with the result a later turn brought. */
  private get _shown(): IToolCard | null {
    const card = this._card;
    const result = this._result;
    if (!card || !result) {
      return card;
    }
    return {
      ...card,
      status: result.status,
      result: result.result,
      truncated: result.truncated,
      // Timed from the review, not from the call: not the call's duration.
      durationMs: null
    };
  }

  private _render(): void {
    const card = this._shown;
    if (!card) {
      return;
    }
    const trans = this._context.trans;
    const label = toolLabel(card, trans);
    this._icon.replaceChildren(label.icon.element({ tag: 'span' }));
    this._label.replaceChildren(
      ...label.parts.map(part => labelPart(part, trans))
    );
    this._label.title = trans.__('Tool: %1', card.name);
    this._renderStatus(card);
    const duration =
      card.durationMs !== null && !(this._options.afterReview && card.orphan);
    this._duration.textContent = duration
      ? formatDuration(card.durationMs!, trans)
      : '';
    this._duration.hidden = !duration;
    this._renderOutcome(card);
    if (!this._details.hidden) {
      this._renderDetails(card);
    }
  }

  /**
   * What the turn's end or its review changes: the status and the outcome
   * (the label and the details do not depend on either).
   */
  private _renderState(): void {
    const card = this._shown;
    if (card) {
      this._renderStatus(card);
      this._renderOutcome(card);
    }
  }

  private _renderStatus(card: IToolCard): void {
    const trans = this._context.trans;
    const outcome = toolOutcome(card, trans);
    const here = card.clientTool !== undefined;
    let status: string;
    let text: string;
    if (card.status === 'success') {
      status = 'success';
      text = here ? trans.__('Done in JupyterLab') : trans.__('Done');
    } else if (card.status === 'error') {
      status = outcome?.kind === 'rejected' ? 'rejected' : 'error';
      text =
        status === 'rejected'
          ? trans.__('Rejected')
          : here
            ? trans.__('Failed in JupyterLab')
            : trans.__('Failed');
    } else if (card.status === 'unknown') {
      status = 'unknown';
      text = trans.__('Finished');
    } else if (here) {
      status = 'running';
      text = trans.__('Running in JupyterLab…');
    } else if (this._settledOutcome === null) {
      status = 'running';
      text = trans.__('Running…');
    } else if (this._settledOutcome === 'interrupted') {
      status = this._reviewed ? 'reviewed' : 'waiting';
      text = this._reviewed
        ? trans.__('Reviewed')
        : trans.__('Waiting for your review');
    } else {
      status = 'unfinished';
      text = trans.__('Did not finish');
    }
    if (this._status.textContent !== text) {
      this._status.textContent = text;
    }
    if (this.widget.node.dataset.status !== status) {
      this.widget.node.dataset.status = status;
      this._options.onStatusChange?.();
    }
  }

  /** The decision or failure in a sentence, what to do next, Undo. */
  private _renderOutcome(card: IToolCard): void {
    const trans = this._context.trans;
    const parts: (Node | string)[] = [];
    const outcome = toolOutcome(card, trans);
    if (outcome) {
      parts.push(
        element(
          'span',
          `jp-AgentPanel-toolOutcome-${outcome.kind}`,
          outcome.text
        )
      );
    }
    if (card.orphan) {
      parts.push(
        element(
          'span',
          'jp-AgentPanel-toolNote',
          this._options.afterReview
            ? trans.__('The result of a call reviewed above.')
            : trans.__('A result with no matching tool call.')
        )
      );
    }
    const waiting = this.widget.node.dataset.status === 'waiting';
    if (
      waiting &&
      CHANGE_TOOLS.includes(card.name) &&
      this._context.showReview
    ) {
      parts.push(actionButton(trans.__('Review the change below'), 'review'));
    }
    const undo = card.callId ? this._context.undo?.() : null;
    const state = undo && card.callId ? undo.state(card.callId) : null;
    if (state === 'applied') {
      parts.push(actionButton(trans.__('Undo'), 'undo'));
    } else if (state === 'undone') {
      parts.push(
        element('span', 'jp-AgentPanel-toolUndone', trans.__('Undone.'))
      );
    }
    if (this._undoProblem) {
      parts.push(
        element('span', 'jp-AgentPanel-toolUndoProblem', this._undoProblem)
      );
    }
    this._outcome.replaceChildren(...parts);
    this._outcome.hidden = parts.length === 0;
  }

  private _renderDetails(card: IToolCard): void {
    const trans = this._context.trans;
    this._values.dispose();
    this._values = new ValueView(trans);
    const resultChars = this._context.settings().maxToolResultChars;
    const parts: HTMLElement[] = [];
    if (card.rawArgs !== null) {
      parts.push(
        element(
          'div',
          'jp-AgentPanel-label',
          trans.__('Arguments (not valid JSON)')
        )
      );
      parts.push(this._values.render(card.rawArgs, ARG_VALUE_PREVIEW_CHARS));
    } else if (card.args !== undefined) {
      parts.push(element('div', 'jp-AgentPanel-label', trans.__('Arguments')));
      parts.push(this._values.render(card.args, ARG_VALUE_PREVIEW_CHARS));
    }
    if (card.result !== undefined) {
      parts.push(
        element(
          'div',
          'jp-AgentPanel-label',
          card.status === 'error' ? trans.__('Error') : trans.__('Result')
        )
      );
      parts.push(this._values.render(card.result, resultChars));
    }
    if (card.truncated) {
      parts.push(
        element(
          'div',
          'jp-AgentPanel-toolTruncated',
          trans.__(
            'The agent got the whole result; the server sent the panel its beginning only.'
          )
        )
      );
    }
    parts.push(
      element(
        'div',
        'jp-AgentPanel-toolCallId',
        card.callId
          ? trans.__('Tool %1, call %2', card.name, card.callId)
          : trans.__('Tool %1', card.name)
      )
    );
    this._details.replaceChildren(...parts);
  }

  private _showDetails(show: boolean): void {
    this._details.hidden = !show;
    this._toggle.setAttribute('aria-expanded', String(show));
    if (show && this._shown) {
      this._renderDetails(this._shown);
    }
  }

  private async _undo(): Promise<void> {
    const callId = this._card?.callId;
    const undo = this._context.undo?.();
    if (!callId || !undo) {
      return;
    }
    this._undoProblem = await undo.undo(callId);
    this._render();
  }

  private readonly _icon: HTMLElement;
  private readonly _label: HTMLElement;
  private readonly _status: HTMLElement;
  private readonly _duration: HTMLElement;
  private readonly _toggle: HTMLButtonElement;
  private readonly _outcome: HTMLElement;
  private readonly _details: HTMLElement;
  private _values: ValueView;
  private _card: IToolCard | null = null;
  private _result: IToolCard | null = null;
  private _settledOutcome: Outcome | null = null;
  private _reviewed = false;
  private _undoProblem: string | null = null;
}

function labelPart(part: LabelPart, trans: TranslationBundle): Node {
  if (typeof part === 'string') {
    return document.createTextNode(part);
  }
  // A link in the sentence, not a toolbar button: no padding around it.
  const link = document.createElement('button');
  link.type = 'button';
  link.className = 'jp-AgentPanel-cellLink';
  link.textContent = part.text;
  link.dataset.action = 'cell';
  link.dataset.cell = JSON.stringify(part.cell);
  link.title = trans.__('Show %1 in %2', part.text, part.cell.path);
  return link;
}

function actionButton(text: string, action: string): HTMLButtonElement {
  const node = button(
    text,
    `jp-AgentPanel-toolAction jp-AgentPanel-tool-${action}`
  );
  node.dataset.action = action;
  return node;
}

function element(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function button(text: string, className: string): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = `jp-Button jp-mod-minimal jp-mod-small ${className}`;
  node.textContent = text;
  return node;
}
