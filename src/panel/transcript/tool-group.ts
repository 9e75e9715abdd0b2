/**
 * Consecutive tool calls of a turn, with nothing said between them
 * (docs/protocol.md §12.9): from the second call on, a head says how many
 * there are and how they went, and hides or shows them. The calls are
 * shown until the reader hides them.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { Panel, Widget } from '@lumino/widgets';

export class ToolGroup extends Panel {
  constructor(private readonly _trans: TranslationBundle) {
    super();
    this.addClass('jp-AgentPanel-toolGroup');
    this._toggle = document.createElement('button');
    this._toggle.type = 'button';
    this._toggle.className =
      'jp-Button jp-mod-minimal jp-AgentPanel-toolGroupHead';
    this._toggle.setAttribute('aria-expanded', 'true');
    this._toggle.addEventListener('click', this);
    this._head = new Widget({ node: this._toggle });
    this._head.hide();
    this._calls = new Panel();
    this._calls.addClass('jp-AgentPanel-toolGroupCalls');
    this._calls.id = `jp-AgentPanel-toolGroup-${++groupCount}`;
    this._toggle.setAttribute('aria-controls', this._calls.id);
    this.addWidget(this._head);
    this.addWidget(this._calls);
  }

  /** The group's calls (and a request card under the call it is about). */
  get calls(): Panel {
    return this._calls;
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      this._setExpanded(this._calls.isHidden);
    }
  }

  /** Count the calls shown again: one was added, hid or changed status. */
  refresh(): void {
    const shown = this._calls.widgets.filter(
      widget => !widget.isHidden && widget.hasClass('jp-AgentPanel-tool')
    );
    if (shown.length < 2) {
      this._head.hide();
      this.removeClass('jp-mod-grouped');
      this._setExpanded(true);
      return;
    }
    this._head.show();
    this.addClass('jp-mod-grouped');
    const trans = this._trans;
    const count = (status: string) =>
      shown.filter(widget => widget.node.dataset.status === status).length;
    const notes: string[] = [];
    const failed = count('error');
    if (failed) {
      notes.push(trans._n('%1 failed', '%1 failed', failed));
    }
    const rejected = count('rejected');
    if (rejected) {
      notes.push(trans._n('%1 rejected', '%1 rejected', rejected));
    }
    const waiting = count('waiting');
    if (waiting) {
      notes.push(
        trans._n('%1 waits for your review', '%1 wait for your review', waiting)
      );
    }
    const running = count('running');
    if (running) {
      notes.push(trans._n('%1 running', '%1 running', running));
    }
    const calls = trans._n('%1 tool call', '%1 tool calls', shown.length);
    this._toggle.textContent = notes.length
      ? trans.__('%1 (%2)', calls, notes.join(', '))
      : calls;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._toggle.removeEventListener('click', this);
    super.dispose();
  }

  private _setExpanded(expanded: boolean): void {
    this._toggle.setAttribute('aria-expanded', String(expanded));
    this._calls.setHidden(!expanded);
  }

  private readonly _toggle: HTMLButtonElement;
  private readonly _head: Widget;
  private readonly _calls: Panel;
}

/** Makes each group's calls an id its head can point to (aria-controls). */
let groupCount = 0;
