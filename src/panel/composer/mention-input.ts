import { Notification } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import type { IAttachmentDraft } from '../../context/attachments';
import { errorMessage } from '../../wire/json';
import { type IMentionItem, mentionAt } from '../../context/mentions';
import type {
  ComposerContext,
  ContextDrop
} from '../../model/conversation/composer-context';
import { type ICaretBox, MentionCompleter } from './mention-completer';

/** What the file browser drags: the paths of the files (`DirListing`). */
export const CONTENTS_MIME = 'application/x-jupyter-icontents';
/** What a notebook drags: the cells as nbformat JSON (`Notebook`). */
export const CELLS_MIME = 'application/vnd.jupyter.cells';
/** The dragged cell widgets, next to `CELLS_MIME`. */
const CELL_WIDGETS_MIME = 'internal:cells';

/** The part of a Lumino drag event (`Drag.Event`) read here. */
interface IDragEvent extends Event {
  readonly mimeData: {
    hasData(mime: string): boolean;
    getData(mime: string): unknown;
  };
  readonly source: unknown;
  readonly proposedAction: string;
  dropAction: string;
}

const DRAG_EVENTS = ['lm-dragenter', 'lm-dragleave', 'lm-dragover', 'lm-drop'];

/**
 * `@` mentions and drops on the message box (docs/protocol.md §6.2): typing
 * `@` opens the completer of files and cells; choosing a file or a cell
 * removes the typed `@…` and adds its chip, choosing a folder lists it.
 * A file from the file browser or a cell dragged from a notebook onto the
 * box adds the same chip. The mention source comes from the composer
 * context (set by the context plugin); without one nothing happens.
 */
export class MentionInput implements IDisposable {
  constructor(
    private readonly _box: HTMLElement,
    private readonly _input: HTMLTextAreaElement,
    private readonly _context: ComposerContext,
    private readonly _trans: TranslationBundle
  ) {
    this._completer = new MentionCompleter(_trans);
    this._completer.chosen.connect(this._onChosen, this);
    _input.addEventListener('input', this);
    _input.addEventListener('click', this);
    _input.addEventListener('blur', this);
    // Before the message box's own keys (Enter sends, Escape stops).
    _box.addEventListener('keydown', this, true);
    for (const type of DRAG_EVENTS) {
      _box.addEventListener(type, this);
    }
  }

  get completer(): MentionCompleter {
    return this._completer;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._input.removeEventListener('input', this);
    this._input.removeEventListener('click', this);
    this._input.removeEventListener('blur', this);
    this._box.removeEventListener('keydown', this, true);
    for (const type of DRAG_EVENTS) {
      this._box.removeEventListener(type, this);
    }
    this._completer.dispose();
  }

  handleEvent(event: Event): void {
    switch (event.type) {
      case 'input':
      case 'click':
        void this.update();
        break;
      case 'blur':
        this._close();
        break;
      case 'keydown':
        this._onKeyDown(event as KeyboardEvent);
        break;
      default:
        this._onDrag(event as IDragEvent);
    }
  }

  /** Open, refill or close the completer for the mention at the caret. */
  async update(): Promise<void> {
    const source = this._context.mentionSource;
    const caret = this._input.selectionEnd;
    const mention =
      source && caret === this._input.selectionStart
        ? mentionAt(this._input.value, caret)
        : null;
    const asked = ++this._asked;
    if (!mention) {
      this._close();
      return;
    }
    let items: IMentionItem[];
    try {
      items = await source!.complete(mention.query);
    } catch {
      items = [];
    }
    // Only the answer to what is typed now counts.
    if (asked === this._asked && !this._isDisposed) {
      this._completer.open(items, caretBox(this._input, caret));
    }
  }

  private _onKeyDown(event: KeyboardEvent): void {
    if (event.target !== this._input || event.isComposing) {
      return;
    }
    if (this._completer.handleKey(event.key)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }

  private _onChosen(_: MentionCompleter, item: IMentionItem): void {
    const caret = this._input.selectionEnd;
    const mention = mentionAt(this._input.value, caret);
    if (!mention) {
      this._close();
      return;
    }
    const before = this._input.value.slice(0, mention.start);
    const after = this._input.value.slice(caret);
    if (item.kind === 'directory') {
      // A folder: list it, the typed path completed to it.
      this._setText(`${before}@${item.path}/`, after);
      void this.update();
      return;
    }
    this._setText(before, after);
    this._close();
    this._attach(this._context.mentionSource!.attachment(item));
  }

  private _setText(before: string, after: string): void {
    this._input.value = before + after;
    this._input.setSelectionRange(before.length, before.length);
  }

  private _onDrag(event: IDragEvent): void {
    const drop = this._context.mentionSource ? dropOf(event) : null;
    if (!drop) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    if (event.type === 'lm-dragleave') {
      this._box.classList.remove(DROP_CLASS);
      return;
    }
    this._box.classList.toggle(DROP_CLASS, event.type !== 'lm-drop');
    // The file browser offers only 'move', a notebook 'copy': both leave the source alone.
    event.dropAction = event.proposedAction;
    if (event.type === 'lm-drop') {
      this._attach(this._context.mentionSource!.dropped(drop));
    }
  }

  /** Add the chips `drafts` resolves to, or say why there are none. */
  private _attach(
    drafts: Promise<IAttachmentDraft | IAttachmentDraft[]>
  ): void {
    drafts.then(
      made => {
        for (const draft of Array.isArray(made) ? made : [made]) {
          this._context.attach(draft);
        }
      },
      error =>
        Notification.error(
          this._trans.__('Could not attach it: %1', errorMessage(error)),
          { autoClose: 5000 }
        )
    );
  }

  private _close(): void {
    this._asked++;
    this._completer.close();
  }

  private readonly _completer: MentionCompleter;
  private _asked = 0;
  private _isDisposed = false;
}

const DROP_CLASS = 'jp-mod-dropTarget';

/** What a drag carries that the message box takes, or null. */
function dropOf(event: IDragEvent): ContextDrop | null {
  const data = event.mimeData;
  if (!data) {
    return null;
  }
  if (data.hasData(CONTENTS_MIME)) {
    const paths = data.getData(CONTENTS_MIME);
    return {
      kind: 'files',
      paths: Array.isArray(paths)
        ? paths.filter(path => typeof path === 'string')
        : []
    };
  }
  if (data.hasData(CELLS_MIME)) {
    const cells = data.getData(CELL_WIDGETS_MIME);
    return {
      kind: 'cells',
      source: event.source,
      cells: Array.isArray(cells) ? cells : []
    };
  }
  return null;
}

/** Style that decides where text wraps in a textarea, copied to its mirror. */
const MIRRORED = [
  'boxSizing',
  'width',
  'paddingTop',
  'paddingRight',
  'paddingBottom',
  'paddingLeft',
  'borderTopWidth',
  'borderRightWidth',
  'borderBottomWidth',
  'borderLeftWidth',
  'fontFamily',
  'fontSize',
  'fontWeight',
  'lineHeight',
  'letterSpacing',
  'tabSize'
] as const;

/**
 * The caret's line in viewport coordinates: a hidden copy of the textarea
 * holds the text up to the caret, and a marker after it says where it is.
 */
function caretBox(input: HTMLTextAreaElement, caret: number): ICaretBox {
  const style = window.getComputedStyle(input);
  const mirror = document.createElement('div');
  for (const property of MIRRORED) {
    mirror.style[property] = style[property];
  }
  mirror.style.position = 'absolute';
  mirror.style.visibility = 'hidden';
  mirror.style.whiteSpace = 'pre-wrap';
  mirror.style.overflowWrap = 'break-word';
  mirror.textContent = input.value.slice(0, caret);
  const marker = document.createElement('span');
  marker.textContent = '\u200b';
  mirror.append(marker);
  document.body.append(mirror);
  const box = input.getBoundingClientRect();
  const left = box.left + marker.offsetLeft - input.scrollLeft;
  const top = box.top + marker.offsetTop - input.scrollTop;
  const height = marker.offsetHeight || parseFloat(style.lineHeight) || 16;
  mirror.remove();
  return { left, top, bottom: top + height };
}
