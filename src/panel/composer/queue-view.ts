import type { TranslationBundle } from '@jupyterlab/translation';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import type {
  IQueuedMessage,
  MessageQueue,
  QueueHold
} from '../../model/conversation/message-queue';
import { basename, contextRecord } from '../common/context-text';
import { showRefusal } from '../common/refusal-notice';

/**
 * The messages waiting for the agent, above the composer: each can be
 * edited, removed and moved up or down (buttons, so the keyboard can do it
 * all). Says why the queue is held and offers to send it on or clear it.
 */
export class QueueView extends Widget {
  constructor(
    private readonly _queue: MessageQueue,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-AgentPanel-queue');
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', _trans.__('Queued messages'));
    _queue.changed.connect(this._render, this);
    this._render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._queue.changed.disconnect(this._render, this);
    super.dispose();
  }

  handleEvent(event: Event): void {
    const target = event.target as HTMLElement;
    if (event.type === 'click') {
      const action = target.closest<HTMLElement>('[data-action]');
      if (action) {
        this._act(action.dataset.action!, this._itemIdOf(action));
      }
    } else if (event.type === 'keydown') {
      this._onKeyDown(event as KeyboardEvent, target);
    } else if (event.type === 'input' && target.tagName === 'TEXTAREA') {
      this._draft = (target as HTMLTextAreaElement).value;
    }
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    for (const type of ['click', 'keydown', 'input']) {
      this.node.addEventListener(type, this);
    }
  }

  protected onBeforeDetach(msg: Message): void {
    for (const type of ['click', 'keydown', 'input']) {
      this.node.removeEventListener(type, this);
    }
    super.onBeforeDetach(msg);
  }

  private _act(action: string, id: string | null): void {
    const queue = this._queue;
    try {
      switch (action) {
        case 'resume':
          queue.resume();
          return;
        case 'clear':
          queue.clear();
          return;
        case 'up':
        case 'down':
          queue.move(id!, action === 'up' ? -1 : 1);
          this._focus(id!, action);
          return;
        case 'remove':
          queue.remove(id!);
          this.node.querySelector<HTMLElement>('[data-action]')?.focus();
          return;
        case 'edit':
          this._editing = id;
          this._draft = queue.items.find(item => item.id === id)?.text ?? '';
          this._render();
          this.node.querySelector('textarea')?.focus();
          return;
        case 'save':
          this._save();
          return;
        case 'cancel':
          this._stopEditing();
          return;
      }
    } catch (error) {
      showRefusal(error);
    }
  }

  private _onKeyDown(event: KeyboardEvent, target: HTMLElement): void {
    if (target.tagName !== 'TEXTAREA') {
      return;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this._stopEditing();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this._act('save', this._editing);
    }
  }

  private _save(): void {
    const id = this._editing;
    if (id === null) {
      return;
    }
    this._queue.edit(id, this._draft);
    this._stopEditing();
  }

  private _stopEditing(): void {
    const id = this._editing;
    this._editing = null;
    this._render();
    if (id) {
      this._focus(id, 'edit');
    }
  }

  /** Keep the keyboard on the item: on `action`, else its nearest enabled button. */
  private _focus(id: string, action: string): void {
    // Ids are UUIDs: safe in a selector.
    const row = this.node.querySelector(`[data-id="${id}"]`);
    const order = [action, action === 'up' ? 'down' : 'up', 'edit'];
    for (const name of order) {
      const target = row?.querySelector<HTMLButtonElement>(
        `[data-action="${name}"]`
      );
      if (target && !target.disabled) {
        target.focus();
        return;
      }
    }
  }

  private _itemIdOf(element: HTMLElement): string | null {
    return element.closest<HTMLElement>('[data-id]')?.dataset.id ?? null;
  }

  private _render(): void {
    const { items, hold } = this._queue;
    if (this._editing && !items.some(item => item.id === this._editing)) {
      // It was sent or removed while being edited.
      this._editing = null;
    }
    this.setHidden(items.length === 0);
    if (items.length === 0) {
      this.node.replaceChildren();
      return;
    }
    const list = document.createElement('ol');
    list.className = 'jp-AgentPanel-queueList';
    items.forEach((item, index) =>
      list.append(this._item(item, index, items.length))
    );
    this.node.replaceChildren(this._header(items.length, hold), list);
  }

  private _header(count: number, hold: QueueHold): HTMLElement {
    const trans = this._trans;
    const header = document.createElement('div');
    header.className = 'jp-AgentPanel-queueHeader';
    const title = document.createElement('span');
    title.className = 'jp-AgentPanel-queueTitle';
    title.textContent = trans._n(
      '%1 queued message',
      '%1 queued messages',
      count
    );
    const notice = document.createElement('div');
    notice.className = 'jp-AgentPanel-queueNotice';
    notice.setAttribute('role', 'status');
    notice.dataset.hold = hold;
    notice.textContent = this._notice(hold);
    const actions = document.createElement('span');
    actions.className = 'jp-AgentPanel-queueActions';
    if (hold === 'error' || hold === 'stopped' || hold === 'paused') {
      actions.append(
        button(
          trans.__('Send queue'),
          'resume',
          trans.__('Send the queued messages, in order')
        )
      );
    }
    actions.append(
      button(
        trans.__('Clear'),
        'clear',
        trans.__('Remove every queued message')
      )
    );
    header.append(title, actions, notice);
    return header;
  }

  private _notice(hold: QueueHold): string {
    const trans = this._trans;
    switch (hold) {
      case 'none':
        return trans.__(
          'Sent one at a time, in order, as each answer completes.'
        );
      case 'review':
        return trans.__(
          'Held while the agent waits for your review; sent once the answer to it completes.'
        );
      case 'error': {
        const problem = this._queue.problem;
        return problem
          ? trans.__('Held: %1', problem)
          : trans.__(
              'Held because the last turn failed: send the queue or clear it.'
            );
      }
      case 'stopped':
        return trans.__(
          'Held because the agent was stopped: send the queue or clear it.'
        );
      case 'paused':
        return trans.__(
          'Held from before the page was reloaded or the conversation changed: send the queue or clear it.'
        );
    }
  }

  private _item(
    item: IQueuedMessage,
    index: number,
    count: number
  ): HTMLElement {
    const trans = this._trans;
    const row = document.createElement('li');
    row.className = 'jp-AgentPanel-queueItem';
    row.dataset.id = item.id;
    const editing = this._editing === item.id;
    if (editing) {
      const input = document.createElement('textarea');
      input.className = 'jp-AgentPanel-queueEdit';
      input.rows = 2;
      input.value = this._draft;
      input.setAttribute(
        'aria-label',
        trans.__('Queued message %1', index + 1)
      );
      row.append(input);
    } else {
      const text = document.createElement('div');
      text.className = 'jp-AgentPanel-queueText';
      text.textContent = item.text;
      row.append(text);
    }
    const context = item.context ? contextRecord(item.context, trans) : [];
    if (context.length > 0) {
      const note = document.createElement('div');
      note.className = 'jp-AgentPanel-queueContext';
      note.textContent = trans.__(
        'With: %1',
        context
          .map(line =>
            line.text === undefined ? basename(line.value) : line.value
          )
          .join(' · ')
      );
      row.append(note);
    }
    const actions = document.createElement('div');
    actions.className = 'jp-AgentPanel-queueItemActions';
    if (editing) {
      actions.append(
        button(trans.__('Save'), 'save', trans.__('Save the new text (Enter)')),
        button(
          trans.__('Cancel'),
          'cancel',
          trans.__('Keep the old text (Escape)')
        )
      );
    } else {
      const up = button('↑', 'up', trans.__('Move message %1 up', index + 1));
      up.disabled = index === 0;
      const down = button(
        '↓',
        'down',
        trans.__('Move message %1 down', index + 1)
      );
      down.disabled = index === count - 1;
      actions.append(
        up,
        down,
        button(
          trans.__('Edit'),
          'edit',
          trans.__('Edit message %1', index + 1)
        ),
        button(
          trans.__('Remove'),
          'remove',
          trans.__('Remove message %1 from the queue', index + 1)
        )
      );
    }
    row.append(actions);
    return row;
  }

  private _editing: string | null = null;
  private _draft = '';
}

function button(
  label: string,
  action: string,
  title: string
): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.className = 'jp-Button jp-mod-minimal jp-AgentPanel-queueButton';
  element.dataset.action = action;
  element.textContent = label;
  element.title = title;
  element.setAttribute('aria-label', title);
  return element;
}
