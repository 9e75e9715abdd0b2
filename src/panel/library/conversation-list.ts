import { Notification, showDialog, Dialog } from '@jupyterlab/apputils';
import { Time } from '@jupyterlab/coreutils';
import type { TranslationBundle } from '@jupyterlab/translation';
import { deleteIcon, editIcon } from '@jupyterlab/ui-components';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import type { ConversationLibrary } from '../../model/library/library';
import type { IConversationItem } from '../../model/library/list-items';
import { errorMessage } from '../../wire/json';

/**
 * The list of conversations: filter, open, rename (inline), delete (after
 * a confirmation). Each row names the conversation (its title, else its
 * first message), its endpoint and when it last changed, with a badge while
 * a turn runs or a review waits. The filter asks the store, which searches
 * titles and messages.
 */
export class ConversationListView extends Widget {
  constructor(
    private readonly _library: ConversationLibrary,
    private readonly _trans: TranslationBundle,
    /** Called once a conversation was opened (the list may close). */
    private readonly _opened: () => void = () => undefined
  ) {
    super();
    this.addClass('jp-AgentPanel-conversations');
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', _trans.__('Conversations'));
    this._filter.type = 'search';
    this._filter.className = 'jp-AgentPanel-conversationFilter';
    this._filter.placeholder = _trans.__('Filter conversations');
    this._filter.setAttribute('aria-label', _trans.__('Filter conversations'));
    this._list.className = 'jp-AgentPanel-conversationList';
    this._status.className = 'jp-AgentPanel-conversationStatus';
    this.node.append(this._filter, this._status, this._list);
    this.node.addEventListener('click', this);
    this.node.addEventListener('keydown', this);
    this._filter.addEventListener('input', this);
    _library.changed.connect(this._render, this);
  }

  handleEvent(event: Event): void {
    if (event.type === 'input' && event.target === this._filter) {
      this._scheduleFilter();
    } else if (event.type === 'click') {
      this._onClick(event as MouseEvent);
    } else if (event.type === 'keydown') {
      this._onKey(event as KeyboardEvent);
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    clearTimeout(this._filterTimer);
    this.node.removeEventListener('click', this);
    this.node.removeEventListener('keydown', this);
    this._filter.removeEventListener('input', this);
    this._library.changed.disconnect(this._render, this);
    super.dispose();
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    this._render();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    // Another tab may have changed the list.
    void this._library.refresh();
    this._render();
  }

  private _scheduleFilter(): void {
    clearTimeout(this._filterTimer);
    this._filterTimer = setTimeout(
      () => void this._library.refresh(this._filter.value.trim()),
      FILTER_DELAY_MS
    );
  }

  private _render(): void {
    if (this.isHidden || this._renaming) {
      return;
    }
    const trans = this._trans;
    const items = this._library.items;
    this._status.textContent = this._library.unavailable
      ? trans.__(
          'This Jupyter server does not keep conversations: they stay in this browser tab only.'
        )
      : items.length === 0
        ? this._library.query
          ? trans.__('No conversation matches.')
          : trans.__('No conversations yet.')
        : '';
    this._list.replaceChildren(...items.map(item => this._row(item)));
  }

  private _row(item: IConversationItem): HTMLElement {
    const trans = this._trans;
    const row = document.createElement('li');
    row.className = 'jp-AgentPanel-conversation';
    row.dataset.id = item.id;
    row.classList.toggle('jp-mod-current', item.current);
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'jp-AgentPanel-conversationOpen';
    open.dataset.action = 'open';
    const title = document.createElement('span');
    title.className = 'jp-AgentPanel-conversationTitle';
    title.textContent = item.title || trans.__('New conversation');
    // A long title is cut in a narrow panel: the tooltip has it whole.
    open.title = title.textContent;
    const meta = document.createElement('span');
    meta.className = 'jp-AgentPanel-conversationMeta';
    meta.textContent = [
      item.endpointName ?? trans.__('default endpoint'),
      item.updatedAt ? Time.formatHuman(new Date(item.updatedAt)) : ''
    ]
      .filter(Boolean)
      .join(' · ');
    open.append(title, meta);
    if (item.current) {
      open.setAttribute('aria-current', 'true');
    }
    row.append(open);
    if (item.status !== 'idle') {
      const badge = document.createElement('span');
      badge.className = `jp-AgentPanel-conversationBadge jp-mod-${item.status}`;
      badge.textContent =
        item.status === 'running' ? trans.__('running') : trans.__('review');
      badge.title =
        item.status === 'running'
          ? trans.__('A turn is running')
          : trans.__('The agent waits for your review');
      row.append(badge);
    }
    row.append(
      this._action('rename', editIcon, trans.__('Rename')),
      this._action('delete', deleteIcon, trans.__('Delete'))
    );
    return row;
  }

  private _action(
    action: string,
    icon: typeof editIcon,
    label: string
  ): HTMLElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = `jp-Button jp-mod-minimal jp-AgentPanel-conversation-${action}`;
    button.dataset.action = action;
    button.title = label;
    button.setAttribute('aria-label', label);
    button.append(icon.element({ tag: 'span', elementSize: 'small' }));
    return button;
  }

  private _onClick(event: MouseEvent): void {
    const target = (event.target as HTMLElement).closest<HTMLElement>(
      '[data-action]'
    );
    const id = target?.closest<HTMLElement>('[data-id]')?.dataset.id;
    if (!target || !id) {
      return;
    }
    switch (target.dataset.action) {
      case 'open':
        void this._report(async () => {
          for (const problem of await this._library.open(id)) {
            console.warn(`Agent Panel: ${problem}`);
          }
          this._opened();
        });
        break;
      case 'rename':
        this._startRename(id);
        break;
      case 'delete':
        void this._confirmDelete(id);
        break;
    }
  }

  private _onKey(event: KeyboardEvent): void {
    const input = event.target as HTMLElement;
    if (!input.classList.contains('jp-AgentPanel-conversationRename')) {
      return;
    }
    if (event.key === 'Enter') {
      event.preventDefault();
      (input as HTMLInputElement).blur();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this._renaming = null;
      this._render();
    }
  }

  /** Put an input in place of the title; Enter or leaving it renames. */
  private _startRename(id: string): void {
    const item = this._library.items.find(i => i.id === id);
    const row = this._list.querySelector<HTMLElement>(
      `[data-id="${CSS.escape(id)}"]`
    );
    const title = row?.querySelector('.jp-AgentPanel-conversationTitle');
    if (!item || !row || !title) {
      return;
    }
    const input = document.createElement('input');
    input.className = 'jp-AgentPanel-conversationRename';
    input.value = item.title;
    input.setAttribute('aria-label', this._trans.__('Conversation title'));
    row.querySelector('.jp-AgentPanel-conversationOpen')?.replaceWith(input);
    this._renaming = id;
    input.addEventListener(
      'blur',
      () => {
        if (this._renaming !== id) {
          return; // Escape
        }
        this._renaming = null;
        const text = input.value.trim();
        if (text === item.title) {
          this._render();
          return;
        }
        void this._report(() => this._library.rename(id, text));
      },
      { once: true }
    );
    input.focus();
    input.select();
  }

  private async _confirmDelete(id: string): Promise<void> {
    const trans = this._trans;
    const item = this._library.items.find(i => i.id === id);
    const result = await showDialog({
      title: trans.__('Delete conversation?'),
      body: trans.__(
        'Delete "%1"? Its transcript is removed from the server, and the agent forgets its thread when it is one of this server\'s agents.',
        item?.title || trans.__('New conversation')
      ),
      buttons: [
        Dialog.cancelButton({ label: trans.__('Cancel') }),
        Dialog.warnButton({ label: trans.__('Delete') })
      ]
    });
    if (result.button.accept) {
      await this._report(() => this._library.remove(id));
    }
  }

  /** Run a library action; a failure is shown to the user, not thrown. */
  private async _report(action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      Notification.error(errorMessage(error), { autoClose: 5000 });
      this._render();
    }
  }

  private readonly _filter = document.createElement('input');
  private readonly _status = document.createElement('p');
  private readonly _list = document.createElement('ul');
  private _filterTimer: ReturnType<typeof setTimeout> | undefined;
  private _renaming: string | null = null;
}

/** How long typing in the filter waits before the store is asked. */
const FILTER_DELAY_MS = 250;
