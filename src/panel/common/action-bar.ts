import type { CommandRegistry } from '@lumino/commands';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type { IItemAction } from '../../contracts/extension-points';

/**
 * Buttons for the commands other plugins attached to a kind of transcript
 * item. Label, tooltip and enabled state come from the command, and follow
 * it when the command says it changed (e.g. a notebook was opened).
 */
export class ActionBar implements IDisposable {
  constructor(
    private readonly _commands: CommandRegistry,
    actions: readonly IItemAction[],
    target: IItemAction['target'],
    private readonly _args: ReadonlyPartialJSONObject
  ) {
    this.node = document.createElement('div');
    this.node.className = 'jp-AgentPanel-actions';
    for (const { command } of actions.filter(a => a.target === target)) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'jp-Button jp-mod-minimal jp-AgentPanel-action';
      button.dataset.command = command;
      button.addEventListener('click', () => {
        void this._commands.execute(command, this._args);
      });
      this._buttons.set(command, button);
      this.node.appendChild(button);
    }
    this.node.hidden = this._buttons.size === 0;
    this._refresh();
    if (this._buttons.size > 0) {
      _commands.commandChanged.connect(this._onCommandChanged, this);
    }
  }

  readonly node: HTMLDivElement;

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._commands.commandChanged.disconnect(this._onCommandChanged, this);
    if (this._frame !== null) {
      cancelAnimationFrame(this._frame);
      this._frame = null;
    }
  }

  /**
   * Another command's change is none of this bar's business; changes of
   * its own are applied once per animation frame, however many come.
   */
  private _onCommandChanged(
    _: CommandRegistry,
    change: CommandRegistry.ICommandChangedArgs
  ): void {
    if (change.id !== undefined && !this._buttons.has(change.id)) {
      return;
    }
    if (this._frame === null) {
      this._frame = requestAnimationFrame(() => {
        this._frame = null;
        this._refresh();
      });
    }
  }

  private _refresh(): void {
    for (const [command, button] of this._buttons) {
      if (!this._commands.hasCommand(command)) {
        button.hidden = true;
        continue;
      }
      button.hidden = false;
      button.textContent = this._commands.label(command, this._args);
      button.title = this._commands.caption(command, this._args);
      button.disabled = !this._commands.isEnabled(command, this._args);
    }
  }

  private _isDisposed = false;
  private _frame: number | null = null;
  private readonly _buttons = new Map<string, HTMLButtonElement>();
}
