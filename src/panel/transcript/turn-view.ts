import { Panel, Widget } from '@lumino/widgets';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import type { InterruptResponse } from '../../wire/types';
import type {
  Decision,
  IInterruptCard,
  TranscriptItem,
  TurnChange
} from '../../wire/types';
import { createExtractionView } from '../extraction/extraction-renderers';
import type { IItemAddress, IItemView } from '../common/item-view';
import { ReasoningView } from './reasoning-view';
import { RequestCardView } from '../review/request-card';
import { type IReviewCardOptions, ReviewCardView } from '../review/review-card';
import { TextView } from './text-view';
import { TurnActivityView } from './turn-activity';
import { ToolGroup } from './tool-group';
import { type IToolViewContext, ToolView } from './tool-view';
import { TurnFooter } from './turn-footer';
import type { IBranchActions } from './user-message';

export interface ITurnViewContext extends IToolViewContext {
  /** The reviewer answered an interrupt; false when the model refused. */
  onDecisions(decisions: Decision[]): boolean;
  /** The user answered an AG-UI request; false when the model refused. */
  onResponse(card: IInterruptCard, response: InterruptResponse): boolean;
  /** The user asked to send the last message again. */
  onRetry(): void;
  /** Going back to an earlier message (edit, regenerate, branches); absent: not offered. */
  branches?: IBranchActions;
  /** "Restore notebook to before this turn" on turn `turnKey` (docs/protocol.md §12.11). */
  onRewind?(turnKey: string): void;
  /**
   * How review cards answer: whether a plugin answers a row in the panel's
   * place (a notebook tool call, reviewed as a diff instead:
   * docs/protocol.md §12.3), "always allow" and the files a file tool would
   * change (docs/protocol.md §16.6).
   */
  review?: IReviewCardOptions;
}

/**
 * One assistant turn. Each change touches only the item it names: a delta
 * updates its own block, never the turn or the transcript.
 */
export class TurnView extends Panel {
  constructor(entry: ITurnEntry, context: ITurnViewContext) {
    super();
    this._entry = entry;
    this._context = context;
    this.addClass('jp-AgentPanel-turn');
    this.node.dataset.turn = entry.key;
    this._activity = new TurnActivityView(context.trans);
    this.addWidget(new Widget({ node: this._activity.node }));
    this._activity.render(entry.state);
    const branches = context.branches;
    this._footer = new TurnFooter(
      context.trans,
      context.onRetry,
      context.onRewind?.bind(context),
      branches && {
        refusal: () => branches.regenerateRefusal(entry.key),
        run: () => branches.regenerate(entry.key)
      }
    );
    this.addWidget(new Widget({ node: this._footer.node }));
    for (const item of entry.state.items) {
      this._add(item);
    }
    if (entry.state.outcome !== null) {
      this._settle();
    }
    this._noticeReview();
    this._renderFooter();
  }

  /** The view of item `key`, if it has one. */
  itemView(key: number): IItemView | undefined {
    return this._views.get(key);
  }

  apply(entry: ITurnEntry, changes: readonly TurnChange[]): void {
    this._entry = entry;
    let footerChanged = false;
    for (const change of changes) {
      switch (change.type) {
        case 'added':
          this._add(change.item);
          break;
        case 'updated':
          this._views.get(change.item.key)?.update(change.item);
          if (change.item.kind === 'interrupt') {
            this._noticeReview();
          }
          break;
        case 'ended':
          this._settle();
          footerChanged = true;
          break;
        case 'diagnostic':
        case 'usage':
          footerChanged = true;
          break;
        case 'state':
        case 'activity':
        case 'subagent':
          this._activity.render(entry.state);
          break;
      }
    }
    // A notebook change logged on the turn: it offers the rewind now.
    if (footerChanged || changeCount(entry) !== this._logged) {
      this._renderFooter();
    }
  }

  /** Only the latest turn offers Retry. */
  setLatest(latest: boolean): void {
    if (this._latest !== latest) {
      this._latest = latest;
      this._renderFooter();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._views.forEach(view => view.dispose());
    this._views.clear();
    this._groups.clear();
    this._footer.dispose();
    super.dispose();
  }

  private _add(item: TranscriptItem): void {
    const view = this._createView(item, {
      turn: this._entry.key,
      item: item.key
    });
    if (!view) {
      return;
    }
    this._lastView?.superseded?.();
    this._lastView = view;
    view.widget.node.dataset.item = String(item.key);
    if ('subagent' in item && item.subagent) {
      // Shown by CSS before the item: which subagent produced it.
      view.widget.node.dataset.via = this._context.trans.__(
        'via %1',
        item.subagent.name ?? item.subagent.id
      );
    }
    this._views.set(item.key, view);
    this._place(item, view.widget);
    view.update(item);
  }

  /**
   * A new item's view goes at the end, a tool call in the group of calls
   * made one after the other, and a request about a tool call right under
   * that call's card.
   */
  private _place(item: TranscriptItem, widget: Widget): void {
    const callId = item.kind === 'interrupt' ? item.request?.toolCallId : null;
    const call = callId
      ? this._entry.state.items.find(
          other => other.kind === 'tool' && other.callId === callId
        )
      : undefined;
    const callView = call ? this._views.get(call.key) : undefined;
    const end = this.widgets.length - 1;
    if (callView) {
      callView.widget.addClass('jp-AgentPanel-toolWithRequest');
      const parent = callView.widget.parent as Panel;
      parent.insertWidget(parent.widgets.indexOf(callView.widget) + 1, widget);
      this._group = null;
    } else if (item.kind === 'tool') {
      if (!this._group) {
        this._group = new ToolGroup(this._context.trans);
        this.insertWidget(end, this._group);
      }
      this._group.calls.addWidget(widget);
      this._groups.set(item.key, this._group);
      this._group.refresh();
    } else {
      this._group = null;
      this.insertWidget(end, widget);
    }
  }

  private _createView(
    item: TranscriptItem,
    address: IItemAddress
  ): IItemView | null {
    const context = this._context;
    switch (item.kind) {
      case 'text':
        return new TextView(context, address);
      case 'reasoning':
        return new ReasoningView(context);
      case 'tool':
        return new ToolView(context, {
          afterReview: this._entry.request?.kind === 'resume',
          onStatusChange: () => this._groups.get(item.key)?.refresh()
        });
      case 'extraction':
        return createExtractionView(context, address, item);
      case 'interrupt':
        return item.request
          ? new RequestCardView(context.trans, context.onResponse)
          : new ReviewCardView(
              context.trans,
              context.onDecisions,
              context.review
            );
      default:
        return null;
    }
  }

  private _settle(): void {
    const outcome = this._entry.state.outcome;
    if (outcome !== null) {
      this._views.forEach(view => view.settle?.(outcome));
    }
  }

  /** Once a review of this turn is answered, its waiting calls say so. */
  private _noticeReview(): void {
    const answered = this._entry.state.items.some(
      item => item.kind === 'interrupt' && item.answered !== null
    );
    if (answered) {
      this._views.forEach(view => view.reviewed?.());
    }
  }

  private _renderFooter(): void {
    this._logged = changeCount(this._entry);
    this._footer.render(this._entry, this._latest);
  }

  private _entry: ITurnEntry;
  private readonly _context: ITurnViewContext;
  private readonly _activity: TurnActivityView;
  private readonly _footer: TurnFooter;
  private readonly _views = new Map<number, IItemView>();
  /** The group each tool call's card is in, by item key. */
  private readonly _groups = new Map<number, ToolGroup>();
  /** The group a tool call made next joins, until something else is said. */
  private _group: ToolGroup | null = null;
  private _lastView: IItemView | null = null;
  private _latest = true;
  /** The notebook changes logged on the turn when the footer was drawn. */
  private _logged = 0;
}

function changeCount(entry: ITurnEntry): number {
  return entry.notebookChanges?.length ?? 0;
}
