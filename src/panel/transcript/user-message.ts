import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import type { IUserEntry } from '../../model/conversation/chat/chat-entries';

/** What a message offers to go back to it (docs/protocol.md §13.8). */
export interface IBranchActions {
  /** Why the conversation cannot go back to before message `key`, or null. */
  refusal(key: string): string | null;
  /** Message `key` among those in its place on other branches. */
  siblings(key: string): {
    index: number;
    count: number;
    entries: readonly { key: string }[];
  };
  /** Send `text` in place of message `key`, on a new branch; false if refused. */
  edit(key: string, text: string): boolean;
  /** Show the branch of entry `key`. */
  show(key: string): void;
  /** Why turn `key`'s answer cannot be generated again, or null. */
  regenerateRefusal(key: string): string | null;
  /** Generate turn `key`'s answer again, on a new branch. */
  regenerate(key: string): void;
}

/**
 * A message the user sent: its text, `‹ 2 / 3 ›` where the conversation
 * forks at it, and Edit, which sends an edited copy on a new branch. Whether
 * it can go back is asked when the pointer or the keyboard comes to it (the
 * answer changes as its turn reports its checkpoint).
 */
export class UserMessageView extends Widget {
  constructor(
    private readonly _entry: IUserEntry,
    private readonly _trans: TranslationBundle,
    private readonly _actions: IBranchActions | null
  ) {
    super();
    this.addClass('jp-AgentPanel-userMessage');
    this._text.className = 'jp-AgentPanel-user';
    this._text.setAttribute('role', 'article');
    this._text.setAttribute('aria-label', _trans.__('Your message'));
    this._text.textContent = _entry.text;
    this.node.appendChild(this._text);
    if (_actions) {
      this.node.appendChild(this._bar());
      this.node.addEventListener('click', this);
      this.node.addEventListener('pointerenter', this);
      this.node.addEventListener('focusin', this);
    }
  }

  handleEvent(event: Event): void {
    if (event.type !== 'click') {
      this.refresh();
      return;
    }
    const action = (event.target as Element)
      .closest('[data-action]')
      ?.getAttribute('data-action');
    const actions = this._actions!;
    const { entries, index } = actions.siblings(this._entry.key);
    switch (action) {
      case 'previous':
      case 'next': {
        const to = entries[index + (action === 'next' ? 1 : -1)];
        if (to) {
          actions.show(to.key);
        }
        return;
      }
      case 'edit':
        this._startEditing();
        return;
      case 'cancel':
        this._stopEditing();
        return;
      case 'send':
        if (this._editor && actions.edit(this._entry.key, this._editor.value)) {
          this._stopEditing();
        }
        return;
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.node.removeEventListener('click', this);
    this.node.removeEventListener('pointerenter', this);
    this.node.removeEventListener('focusin', this);
    super.dispose();
  }

  private _bar(): HTMLElement {
    const trans = this._trans;
    const bar = document.createElement('div');
    bar.className = 'jp-AgentPanel-userBar';
    const { index, count } = this._actions!.siblings(this._entry.key);
    if (count > 1) {
      const position = document.createElement('span');
      position.className = 'jp-AgentPanel-branchPosition';
      position.textContent = trans.__('%1 / %2', index + 1, count);
      position.setAttribute(
        'aria-label',
        trans.__('Branch %1 of %2', index + 1, count)
      );
      bar.append(
        button(
          'previous',
          '‹',
          trans.__('Show the previous branch'),
          index === 0
        ),
        position,
        button(
          'next',
          '›',
          trans.__('Show the next branch'),
          index === count - 1
        )
      );
    }
    this._edit = button('edit', trans.__('Edit'), '', false);
    bar.appendChild(this._edit);
    this.refresh();
    return bar;
  }

  /** Edit says whether the conversation can go back to this message, and why not. */
  refresh(): void {
    if (!this._edit) {
      return;
    }
    const refusal = this._actions!.refusal(this._entry.key);
    this._edit.disabled = refusal !== null;
    this._edit.title =
      refusal ??
      this._trans.__(
        'Edit this message and send it again: the agent goes back to before it, on a new branch'
      );
  }

  private _startEditing(): void {
    const trans = this._trans;
    const editor = document.createElement('textarea');
    editor.className = 'jp-AgentPanel-userEditor';
    editor.value = this._entry.text;
    editor.setAttribute('aria-label', trans.__('Edited message'));
    const bar = document.createElement('div');
    bar.className = 'jp-AgentPanel-userEditBar';
    bar.append(
      button('send', trans.__('Send'), trans.__('Send on a new branch'), false),
      button('cancel', trans.__('Cancel'), '', false)
    );
    this._editor = editor;
    this._editBar = bar;
    this._text.hidden = true;
    this._text.after(editor, bar);
    editor.focus();
  }

  private _stopEditing(): void {
    this._editor?.remove();
    this._editBar?.remove();
    this._editor = null;
    this._editBar = null;
    this._text.hidden = false;
  }

  private readonly _text = document.createElement('div');
  private _edit: HTMLButtonElement | null = null;
  private _editor: HTMLTextAreaElement | null = null;
  private _editBar: HTMLElement | null = null;
}

function button(
  action: string,
  label: string,
  title: string,
  disabled: boolean
): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = `jp-Button jp-mod-minimal jp-AgentPanel-branch-${action}`;
  node.dataset.action = action;
  node.textContent = label;
  if (title) {
    node.title = title;
    node.setAttribute('aria-label', title);
  }
  node.disabled = disabled;
  return node;
}
