/**
 * The diff of a file the agent proposes to write, edit or delete, inside
 * its review row (docs/protocol.md §16.6): the file is read once through
 * the contents API, and each version of the arguments (the agent's, then a
 * reviewer's edit) is compared with it. Only the changed lines and a few
 * around them are shown.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import {
  fileChange,
  type FileText,
  type IFileChange
} from '../../wire/file-change';
import {
  aroundChanges,
  type CodeHighlighter,
  highlightDiff,
  lineDiff,
  renderDiff,
  renderStats
} from './line-diff';

/** Reads a file from the Jupyter root for the diff. */
export type ReadFile = (path: string) => Promise<FileText>;

export class FileChangeView {
  constructor(
    private readonly _trans: TranslationBundle,
    private readonly _name: string,
    args: unknown,
    path: string,
    readFile: ReadFile,
    private readonly _highlight?: CodeHighlighter
  ) {
    this.node.className = 'jp-AgentPanel-fileChange';
    this._title.className = 'jp-AgentPanel-fileChangePath';
    this._title.textContent = path;
    this._note.className = 'jp-AgentPanel-fileChangeNote';
    this._body.className = 'jp-AgentPanel-fileChangeDiff';
    this._body.textContent = _trans.__('Reading %1…', path);
    this.node.append(this._title, this._note, this._body);
    this._args = args;
    this._current = readFile(path).catch((error): FileText => ({
      kind: 'unreadable',
      reason: String(error)
    }));
    void this._render();
  }

  readonly node = document.createElement('div');

  /** The reviewer edited the arguments: show what they would write. */
  update(args: unknown): void {
    this._args = args;
    void this._render();
  }

  dispose(): void {
    this._isDisposed = true;
  }

  private async _render(): Promise<void> {
    const args = this._args;
    const current = await this._current;
    if (this._isDisposed || args !== this._args) {
      return; // a newer version of the arguments renders instead
    }
    const change = fileChange(this._name, args, current);
    if (change === null) {
      return;
    }
    this._title.textContent = change.path;
    this._note.textContent = this._noteOf(change, current);
    this._note.hidden = !this._note.textContent;
    const lines = lineDiff(change.before, change.after);
    const trans = this._trans;
    const gap = (count: number) =>
      trans._n('… %1 unchanged line', '… %1 unchanged lines', count);
    const diff = renderDiff(aroundChanges(lines), gap);
    this._body.replaceChildren(renderStats(lines, trans), diff);
    if (this._highlight) {
      const language = { fileName: change.path };
      void highlightDiff(
        diff,
        change.before,
        change.after,
        language,
        this._highlight
      );
    }
  }

  private _noteOf(change: IFileChange, current: FileText): string {
    const trans = this._trans;
    if (change.partial?.why === 'unreadable') {
      return trans.__(
        'Could not read the file (%1): only the text that changes is shown.',
        change.partial.reason
      );
    }
    if (change.partial?.why === 'no_match') {
      return trans.__(
        'The file does not contain the text to replace: the edit will fail as it stands.'
      );
    }
    if (current.kind !== 'missing') {
      return '';
    }
    return this._name === 'delete'
      ? trans.__('There is no such file.')
      : trans.__('A new file.');
  }

  private readonly _title = document.createElement('div');
  private readonly _note = document.createElement('div');
  private readonly _body = document.createElement('div');
  private readonly _current: Promise<FileText>;
  private _args: unknown;
  private _isDisposed = false;
}
