import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import type { IPlan, PlanTracker } from '../../model/conversation/plan';
import type { IItemAction } from '../../contracts/extension-points';
import { ActionBar } from '../common/action-bar';
import { doneCount, renderChecklist } from './checklist';

export interface IPlanViewOptions {
  commands: CommandRegistry;
  /** The item actions contributed by plugins (those for `plan` are shown). */
  itemActions(): readonly IItemAction[];
  trans: TranslationBundle;
}

/**
 * The agent's plan, pinned at the top of the panel: the latest to-do list
 * of the conversation, replaced in place by each new one, with the count
 * done. It can be collapsed; plugins add actions (insert into a notebook).
 */
export class PlanView extends Widget {
  constructor(
    private readonly _tracker: PlanTracker,
    private readonly _options: IPlanViewOptions
  ) {
    super();
    const trans = _options.trans;
    this.addClass('jp-AgentPanel-plan');
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', trans.__('Plan'));
    const header = document.createElement('div');
    header.className = 'jp-AgentPanel-planHeader';
    this._toggle = document.createElement('button');
    this._toggle.type = 'button';
    this._toggle.className = 'jp-AgentPanel-planToggle';
    this._toggle.setAttribute('aria-expanded', 'true');
    this._toggle.title = trans.__('Show or hide the plan');
    const title = document.createElement('span');
    title.className = 'jp-AgentPanel-planTitle';
    title.textContent = trans.__('Plan');
    this._count = document.createElement('span');
    this._count.className = 'jp-AgentPanel-planCount';
    this._toggle.append(title, this._count);
    this._actions = document.createElement('span');
    this._actions.className = 'jp-AgentPanel-planActions';
    header.append(this._toggle, this._actions);
    this._body = document.createElement('div');
    this._body.className = 'jp-AgentPanel-planBody';
    this.node.append(header, this._body);
    _tracker.changed.connect(this._render, this);
    this._render();
  }

  get collapsed(): boolean {
    return this._collapsed;
  }

  set collapsed(collapsed: boolean) {
    this._collapsed = collapsed;
    this._toggle.setAttribute('aria-expanded', String(!collapsed));
    this._body.hidden = collapsed;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._tracker.changed.disconnect(this._render, this);
    this._actionBar?.dispose();
    super.dispose();
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      this.collapsed = !this._collapsed;
    }
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    this._toggle.addEventListener('click', this);
  }

  protected onBeforeDetach(msg: Message): void {
    this._toggle.removeEventListener('click', this);
    super.onBeforeDetach(msg);
  }

  private _render(): void {
    const plan = this._tracker.plan;
    this.setHidden(plan === null);
    this._actionBar?.dispose();
    this._actionBar = null;
    if (!plan) {
      this._body.replaceChildren();
      this._actions.replaceChildren();
      return;
    }
    const trans = this._options.trans;
    this._count.textContent = doneCount(plan.items, trans);
    const children: HTMLElement[] = [renderChecklist(plan.items, trans)];
    if (plan.problems.length > 0) {
      const problems = document.createElement('div');
      problems.className = 'jp-AgentPanel-planProblems';
      problems.textContent = trans.__(
        'Not shown: %1',
        plan.problems.join('; ')
      );
      children.push(problems);
    }
    this._body.replaceChildren(...children);
    this._actionBar = this._actionsFor(plan);
    this._actions.replaceChildren(this._actionBar.node);
  }

  private _actionsFor(plan: IPlan): ActionBar {
    // Built for each plan: plugins may have added actions since.
    return new ActionBar(
      this._options.commands,
      this._options.itemActions(),
      'plan',
      { turn: plan.source.turn, item: plan.source.item }
    );
  }

  private readonly _toggle: HTMLButtonElement;
  private readonly _count: HTMLSpanElement;
  private readonly _actions: HTMLSpanElement;
  private readonly _body: HTMLDivElement;
  private _actionBar: ActionBar | null = null;
  private _collapsed = false;
}
