/**
 * The review diffs' highlighting: JupyterLab's editor languages, found by a
 * cell's MIME type or a file's name, in the editor theme's colours
 * (`--jp-mirror-editor-*`), so a diff reads like the cell it changes in every
 * theme.
 */
import {
  type IEditorLanguageRegistry,
  jupyterHighlightStyle
} from '@jupyterlab/codemirror';
import type { IDisposable } from '@lumino/disposable';
import type { CodeHighlighter } from '../panel/review/line-diff';

export class DiffHighlighter implements IDisposable {
  constructor(private readonly _languages: IEditorLanguageRegistry) {
    // The highlight classes are styled once an editor has mounted them; a
    // file's review may come before any editor is open.
    this._style.textContent = jupyterHighlightStyle.module?.getRules() ?? '';
    document.head.appendChild(this._style);
  }

  readonly highlight: CodeHighlighter = async (code, language, into) => {
    const languages = this._languages;
    const found = language.fileName
      ? languages.findByFileName(language.fileName)
      : languages.findByMIME(language.mimeType ?? '');
    await languages.highlight(code, found, into);
  };

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    this._isDisposed = true;
    this._style.remove();
  }

  private _isDisposed = false;

  private readonly _style = document.createElement('style');
}
