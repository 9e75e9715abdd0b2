import type { TranslationBundle } from '@jupyterlab/translation';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import { variablesAttachment } from '../../context/attachments';
import { CONTEXT_KINDS, type ContextKind } from '../../context/workspace';
import { errorMessage } from '../../wire/json';
import type {
  ComposerContext,
  IVariablesListing
} from '../../model/conversation/composer-context';
import {
  attachmentWords,
  chipWords,
  type IContextWords
} from '../common/context-text';
import { checkedNames, listingPicker, notePicker } from './variables-picker';

/**
 * Chips above the composer for the context the next message takes: the
 * folder, the focused document, the active cell or the selection. Each can
 * be removed for this message (×) and added back (+); which kinds are on by
 * default is a setting. Then what the user attached (outputs, errors,
 * variables: × takes one off) and what the workspace offers to attach (the
 * error a cell just raised: + attaches it).
 */
export class ContextChipsView extends Widget {
  constructor(
    private readonly _context: ComposerContext,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-AgentPanel-contextChips');
    this.node.setAttribute('role', 'group');
    this.node.setAttribute(
      'aria-label',
      _trans.__('Context sent with your next message')
    );
    _context.changed.connect(this._render, this);
    this._render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._context.changed.disconnect(this._render, this);
    super.dispose();
  }

  handleEvent(event: Event): void {
    if (event.type !== 'click') {
      return;
    }
    const action = (event.target as Element).closest<HTMLElement>(
      '[data-action]'
    )?.dataset.action;
    if (action) {
      this._onVariablesAction(action);
      return;
    }
    const button = (event.target as Element).closest<HTMLElement>(
      '[data-include]'
    );
    const kind = button?.closest<HTMLElement>('[data-kind]')?.dataset.kind;
    if (!button || !kind) {
      return;
    }
    const chip = button.closest<HTMLElement>('[data-kind]')!;
    if (chip.dataset.attachment !== undefined) {
      this._context.detach(Number(chip.dataset.attachment));
      return;
    }
    if (chip.dataset.offered !== undefined) {
      const offered = this._context.offered[Number(chip.dataset.offered)];
      if (offered) {
        this._context.attach(offered);
      }
      return;
    }
    this._context.setIncluded(
      kind as ContextKind,
      button.dataset.include === 'true'
    );
    // The chip was redrawn: keep the keyboard on it.
    this.node
      .querySelector<HTMLElement>(`[data-kind="${kind}"] [data-include]`)
      ?.focus();
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    this.node.addEventListener('click', this);
  }

  protected onBeforeDetach(msg: Message): void {
    this.node.removeEventListener('click', this);
    super.onBeforeDetach(msg);
  }

  private _render(): void {
    const chips: HTMLElement[] = [];
    for (const kind of CONTEXT_KINDS) {
      const words = chipWords(this._context.snapshot, kind, this._trans);
      if (words) {
        chips.push(this._chip(words, this._context.isIncluded(kind)));
      }
    }
    this._context.attachments.forEach((draft, index) => {
      const chip = this._chip(attachmentWords(draft, this._trans), true);
      chip.dataset.attachment = String(index);
      chips.push(chip);
    });
    this._context.offered.forEach((draft, index) => {
      const chip = this._chip(attachmentWords(draft, this._trans), false);
      chip.classList.add('jp-mod-offered');
      chip.dataset.offered = String(index);
      chips.push(chip);
    });
    if (
      this._context.variablesSource &&
      this._context.snapshot.document?.kind === 'notebook'
    ) {
      chips.push(this._variablesButton());
    }
    this.node.replaceChildren(...chips);
    if (this._picker) {
      this.node.append(this._picker);
    }
    this.setHidden(chips.length === 0);
  }

  private _variablesButton(): HTMLElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-AgentPanel-chip jp-AgentPanel-variablesButton';
    button.dataset.action = 'list-variables';
    button.textContent = this._trans.__('Variables…');
    button.title = this._trans.__(
      "Choose variables of this notebook's kernel to send with your next message"
    );
    return button;
  }

  private _onVariablesAction(action: string): void {
    const source = this._context.variablesSource;
    if (action === 'list-variables' && source) {
      this._showPicker(this._trans.__('Listing the kernel variables…'));
      const asked = (this._asked = source.list());
      asked.then(
        listing => asked === this._asked && this._showListing(listing),
        error => asked === this._asked && this._showPicker(errorMessage(error))
      );
    } else if (action === 'attach-variables' && this._listing) {
      const checked = checkedNames(this._picker!);
      const chosen = this._listing.variables.filter(v => checked.has(v.name));
      if (chosen.length > 0) {
        this._context.attach(variablesAttachment(this._listing.source, chosen));
      }
      this._closePicker();
    } else if (action === 'close-variables') {
      this._closePicker();
    }
  }

  /** The picker with only a line of text (listing, or why it could not). */
  private _showPicker(text: string): void {
    this._listing = null;
    this._picker = notePicker(text, this._trans);
    this._render();
  }

  private _showListing(listing: IVariablesListing): void {
    this._listing = listing;
    this._picker = listingPicker(listing, this._trans);
    this._render();
  }

  private _closePicker(): void {
    this._picker = null;
    this._listing = null;
    this._asked = null;
    this._render();
  }

  private _picker: HTMLElement | null = null;
  private _listing: IVariablesListing | null = null;
  private _asked: Promise<IVariablesListing> | null = null;

  private _chip(words: IContextWords, included: boolean): HTMLElement {
    const trans = this._trans;
    const chip = document.createElement('span');
    chip.className = 'jp-AgentPanel-chip';
    chip.classList.toggle('jp-mod-excluded', !included);
    chip.dataset.kind = words.kind;
    chip.title = included
      ? words.title
      : trans.__('Not sent with this message: %1', words.title);
    const label = document.createElement('span');
    label.className = 'jp-AgentPanel-chipLabel';
    label.textContent = words.label;
    const value = document.createElement('span');
    value.className = 'jp-AgentPanel-chipValue';
    value.textContent = words.value;
    chip.append(label, value);
    if (words.note && included) {
      const note = document.createElement('span');
      note.className = 'jp-AgentPanel-chipNote';
      note.textContent = words.note;
      chip.append(note);
    }
    const toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'jp-AgentPanel-chipToggle';
    toggle.dataset.include = String(!included);
    const name = `${words.label} ${words.value}`;
    toggle.textContent = included ? '×' : '+';
    toggle.title = included
      ? trans.__('Remove %1 from this message', name)
      : trans.__('Send %1 with this message', name);
    toggle.setAttribute('aria-label', toggle.title);
    chip.append(toggle);
    return chip;
  }
}
