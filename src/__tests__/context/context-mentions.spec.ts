/**
 * Files and cells by mention or drop: what `@…` means at the caret, what the
 * completer offers (hidden names, ranking, cells), what the agent reads of a
 * text file (capped), a notebook (its cells' sources), a binary file (name,
 * type, size), how they travel, the completer's keys and clicks, and the
 * message box's `@` and drops with a fake mention source.
 */
/* eslint-disable jupyter/no-untranslated-string -- test data: completer items */
import { Widget } from '@lumino/widgets';
import type { Contents } from '@jupyterlab/services';
import { runInput } from '../../agui/request';
import { AguiThread } from '../../agui/thread';
import {
  ComposerContext,
  type ContextDrop,
  type IMentionSource
} from '../../model/conversation/composer-context';
import {
  cellAt,
  droppedCells,
  notebookCells
} from '../../notebook/mention-cells';
import {
  contextRecord,
  attachmentWords
} from '../../panel/common/context-text';
import { Composer } from '../../panel/composer/composer';
import { MentionCompleter } from '../../panel/composer/mention-completer';
import {
  CELLS_MIME,
  CONTENTS_MIME,
  MentionInput
} from '../../panel/composer/mention-input';
import {
  ContentsReader,
  LISTING_FRESH_MS,
  READ_LIMIT
} from '../../transport/server/contents-reader';
import { ATTACHMENT_LIMIT } from '../../context/attachments';
import { chunkWireContext } from '../../wire/turn';
import {
  cellAttachment,
  cellMentions,
  fileAttachment,
  fileMentions,
  type IContentsEntry,
  type IMentionItem,
  MENTION_LIMIT,
  mentionAt,
  mentionFolder,
  notebookText
} from '../../context/mentions';
import { panelStrings } from '../../contracts/translation';

const trans = panelStrings();

/** What the contents API gives for a text file. */
function textFile(path: string, content: string) {
  return fileAttachment({ path, type: 'file', format: 'text', content });
}

describe('the mention at the caret', () => {
  it('starts at an @ after a space or at the start, and runs to the caret', () => {
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAt('see @src/ut', 11)).toEqual({ start: 4, query: 'src/ut' });
    expect(mentionAt('see @src/ut and more', 11)).toEqual({
      start: 4,
      query: 'src/ut'
    });
  });

  it('keeps the one space of "@cell 3"', () => {
    expect(mentionAt('fix @cell 3', 11)).toEqual({ start: 4, query: 'cell 3' });
    expect(mentionAt('fix @cell ', 10)).toEqual({ start: 4, query: 'cell ' });
  });

  it('is none in an e-mail address, after a space, or past the caret', () => {
    expect(mentionAt('me@example.org', 14)).toBeNull();
    expect(mentionAt('@notes.txt then', 15)).toBeNull();
    expect(mentionAt('plain text', 5)).toBeNull();
    expect(mentionAt('a @b', 2)).toBeNull();
  });

  it('splits a path into the folder to list and the start of the name', () => {
    expect(mentionFolder('')).toEqual({ folder: '', prefix: '' });
    expect(mentionFolder('no')).toEqual({ folder: '', prefix: 'no' });
    expect(mentionFolder('src/wire/me')).toEqual({
      folder: 'src/wire',
      prefix: 'me'
    });
    expect(mentionFolder('data/')).toEqual({ folder: 'data', prefix: '' });
  });
});

describe('what the completer offers', () => {
  const entries: IContentsEntry[] = [
    { name: 'notes.txt', path: 'd/notes.txt', type: 'file' },
    { name: 'analysis.ipynb', path: 'd/analysis.ipynb', type: 'notebook' },
    { name: 'data', path: 'd/data', type: 'directory' },
    { name: '.env', path: 'd/.env', type: 'file' },
    { name: 'Annotated', path: 'd/Annotated', type: 'directory' }
  ];

  it('names starting with what was typed first, folders first, case ignored', () => {
    expect(fileMentions(entries, 'an', false).map(i => i.label)).toEqual([
      'Annotated/',
      'analysis.ipynb'
    ]);
    expect(fileMentions(entries, 'no', false).map(i => i.label)).toEqual([
      'notes.txt',
      'Annotated/'
    ]);
  });

  it('lists a folder: folders, then files, by name', () => {
    expect(fileMentions(entries, '', false)).toEqual([
      { kind: 'directory', label: 'Annotated/', hint: '', path: 'd/Annotated' },
      { kind: 'directory', label: 'data/', hint: '', path: 'd/data' },
      {
        kind: 'notebook',
        label: 'analysis.ipynb',
        hint: '',
        path: 'd/analysis.ipynb'
      },
      { kind: 'file', label: 'notes.txt', hint: '', path: 'd/notes.txt' }
    ]);
  });

  it('leaves hidden names out unless the file browser shows them', () => {
    expect(fileMentions(entries, '.', false).map(i => i.label)).toEqual([
      'analysis.ipynb',
      'notes.txt'
    ]);
    expect(fileMentions(entries, '.e', true).map(i => i.label)).toEqual([
      '.env'
    ]);
  });

  it('shows at most MENTION_LIMIT lines', () => {
    const many = Array.from({ length: 80 }, (_, i) => ({
      name: `f${i}.txt`,
      path: `f${i}.txt`,
      type: 'file'
    }));
    expect(fileMentions(many, 'f', false)).toHaveLength(MENTION_LIMIT);
  });

  const cells = [
    { cellType: 'markdown', source: '# Title' },
    { cellType: 'code', source: '\n  rows = 3\nprint(rows)' },
    { cellType: 'code', source: '' }
  ];

  it('offers the cells, counted from 1, with their first line', () => {
    expect(cellMentions(cells, 'a.ipynb', 'ce')).toEqual([
      {
        kind: 'cell',
        label: 'cell 1',
        hint: '# Title',
        path: 'a.ipynb',
        index: 0
      },
      {
        kind: 'cell',
        label: 'cell 2',
        hint: 'rows = 3',
        path: 'a.ipynb',
        index: 1
      },
      { kind: 'cell', label: 'cell 3', hint: '', path: 'a.ipynb', index: 2 }
    ]);
    expect(cellMentions(cells, 'a.ipynb', '')).toHaveLength(3);
    expect(cellMentions(cells, 'a.ipynb', 'Cell ')).toHaveLength(3);
  });

  it('narrows the cells by number, and offers none for a path', () => {
    expect(cellMentions(cells, 'a.ipynb', 'cell 2').map(i => i.index)).toEqual([
      1
    ]);
    expect(cellMentions(cells, 'a.ipynb', 'cell 9')).toEqual([]);
    expect(cellMentions(cells, 'a.ipynb', 'cells')).toEqual([]);
    expect(cellMentions(cells, 'a.ipynb', 'data/')).toEqual([]);
  });
});

describe('what the agent reads of a file, a notebook or a cell', () => {
  it('gets a text file whole, its chip naming the whole path', () => {
    const draft = textFile('data/notes.txt', 'hello\n');
    expect(draft).toEqual({
      attachment: { kind: 'file', source: 'data/notes.txt', text: 'hello\n' },
      kept: 6,
      total: 6,
      display: 'data/notes.txt'
    });
    expect(attachmentWords(draft, trans)).toMatchObject({
      label: 'File',
      value: 'data/notes.txt',
      note: null
    });
  });

  it('caps a long text file and says so on the chip', () => {
    const text = 'a'.repeat(ATTACHMENT_LIMIT + 1000);
    const draft = textFile('big.txt', text);
    expect(draft.attachment.text).toHaveLength(ATTACHMENT_LIMIT);
    expect(draft.attachment.text).toMatch(
      /\n… \(truncated, 1,?\d{3} more characters\)$/
    );
    expect(draft.total).toBe(5000);
    expect(attachmentWords(draft, trans).note).toBe(
      `capped: first ${draft.kept.toLocaleString()} of 5,000 characters`
    );
  });

  it("gets a notebook as its cells' sources, each after a marker", () => {
    const content = {
      cells: [
        { cell_type: 'markdown', source: ['# Sales\n', 'by city'] },
        { cell_type: 'code', source: 'df.head()', outputs: [{}] }
      ]
    };
    expect(notebookText(content)).toBe(
      '# %% cell 1 [markdown]\n# Sales\nby city\n\n# %% cell 2 [code]\ndf.head()'
    );
    const draft = fileAttachment({
      path: 'n/sales.ipynb',
      type: 'notebook',
      format: 'json',
      content
    });
    expect(draft.attachment).toEqual({
      kind: 'notebook',
      source: 'n/sales.ipynb',
      text: notebookText(content)
    });
    expect(attachmentWords(draft, trans)).toMatchObject({
      label: 'Notebook',
      value: 'n/sales.ipynb'
    });
  });

  it('gets a binary file, or one too large to read, by name, type and size only', () => {
    expect(
      fileAttachment({
        path: 'blob.bin',
        type: 'file',
        format: 'base64',
        mimetype: 'application/octet-stream',
        size: 256,
        content: 'AAEC'
      }).attachment
    ).toEqual({
      kind: 'file',
      source: 'blob.bin',
      text: '[binary file: application/octet-stream, 256 bytes; content not sent]'
    });
    expect(
      fileAttachment({
        path: 'huge.csv',
        type: 'file',
        format: null,
        mimetype: 'text/csv',
        size: 3 * 1024 * 1024,
        content: null
      }).attachment.text
    ).toBe('[file too large to read: text/csv, 3.0 MB; content not sent]');
  });

  it('gets a cell as its source, labelled with its notebook', () => {
    const draft = cellAttachment(2, 'n/analysis.ipynb', 'x = 1');
    expect(draft.attachment).toEqual({
      kind: 'cell',
      source: 'cell 3 of n/analysis.ipynb',
      text: 'x = 1'
    });
    expect(attachmentWords(draft, trans)).toMatchObject({
      label: 'Cell',
      value: '3 of analysis.ipynb'
    });
  });
});

describe('how files and cells travel', () => {
  const file = textFile('a.txt', 'A').attachment;
  const cell = cellAttachment(0, 'n.ipynb', 'x = 1').attachment;

  it('go over the chunk wire and the comm as attachments', () => {
    expect(chunkWireContext({ attachments: [file, cell] })).toEqual({
      attachments: [
        { kind: 'file', source: 'a.txt', text: 'A' },
        { kind: 'cell', source: 'cell 1 of n.ipynb', text: 'x = 1' }
      ]
    });
  });

  it('are AG-UI context entries saying where they come from', () => {
    const { input } = runInput(
      {
        kind: 'chat',
        threadId: 't',
        message: 'look',
        context: { attachments: [file, cell] }
      },
      new AguiThread('t')
    );
    expect(input.context).toEqual([
      { description: 'The file a.txt', value: 'A' },
      { description: 'The source of cell 1 of n.ipynb', value: 'x = 1' }
    ]);
  });

  it('are listed under the message as they went', () => {
    expect(contextRecord({ attachments: [file, cell] }, trans)).toEqual([
      { label: 'File', value: 'a.txt', text: 'A' },
      { label: 'Cell', value: 'source of cell 1 of n.ipynb', text: 'x = 1' }
    ]);
  });
});

describe('reading the contents', () => {
  function contents(models: Record<string, Partial<Contents.IModel>>) {
    const asked: { path: string; content: boolean | undefined }[] = [];
    const manager = {
      get: async (path: string, options?: Contents.IFetchOptions) => {
        asked.push({ path, content: options?.content });
        const model = models[path];
        if (!model) {
          throw new Error(`No such file or directory: ${path}`);
        }
        return {
          ...model,
          content: options?.content === false ? null : model.content
        };
      }
    } as unknown as Contents.IManager;
    return { reader: new ContentsReader(manager, trans), asked };
  }

  it('lists a folder, and nothing for one that does not exist', async () => {
    const { reader } = contents({
      d: {
        type: 'directory',
        content: [{ name: 'a.txt', path: 'd/a.txt', type: 'file' }]
      }
    });
    expect(await reader.list('d')).toEqual([
      { name: 'a.txt', path: 'd/a.txt', type: 'file' }
    ]);
    expect(await reader.list('nope')).toEqual([]);
  });

  it('asks for a folder once while a name is typed in it', async () => {
    const { reader, asked } = contents({
      d: { type: 'directory', content: [] },
      e: { type: 'directory', content: [] }
    });
    const now = jest.spyOn(Date, 'now').mockReturnValue(1000);
    try {
      await reader.list('d');
      await reader.list('d');
      expect(asked).toEqual([{ path: 'd', content: true }]);
      await reader.list('e');
      expect(asked).toHaveLength(2);
      now.mockReturnValue(1000 + LISTING_FRESH_MS + 1);
      await reader.list('e');
      expect(asked).toHaveLength(3);
    } finally {
      now.mockRestore();
    }
  });

  it('reads a file for its chip', async () => {
    const { reader, asked } = contents({
      'a.txt': {
        path: 'a.txt',
        type: 'file',
        format: 'text',
        size: 2,
        content: 'hi'
      }
    });
    expect((await reader.attachment('a.txt')).attachment.text).toBe('hi');
    expect(asked).toEqual([
      { path: 'a.txt', content: false },
      { path: 'a.txt', content: true }
    ]);
  });

  it('does not fetch a file larger than READ_LIMIT', async () => {
    const { reader, asked } = contents({
      'big.csv': {
        path: 'big.csv',
        type: 'file',
        format: 'text',
        mimetype: 'text/csv',
        size: READ_LIMIT + 1,
        content: 'never read'
      }
    });
    expect((await reader.attachment('big.csv')).attachment.text).toMatch(
      /^\[file too large to read: text\/csv, 1\.0 MB; content not sent\]$/
    );
    expect(asked).toHaveLength(1);
  });

  it("reads a file's text for a review's diff, or says why it cannot", async () => {
    const notFound = Object.assign(new Error('Not Found'), {
      response: { status: 404 }
    });
    const { reader } = contents({
      'a.txt': { path: 'a.txt', type: 'file', size: 2, content: 'hi' },
      'big.csv': { path: 'big.csv', type: 'file', size: READ_LIMIT + 1 },
      'img.png': { path: 'img.png', type: 'file', size: 3, content: null },
      d: { path: 'd', type: 'directory' }
    });
    expect(await reader.text('a.txt')).toEqual({ kind: 'text', text: 'hi' });
    expect(await reader.text('big.csv')).toEqual({
      kind: 'unreadable',
      reason: 'it is larger than 1 MB'
    });
    expect(await reader.text('img.png')).toEqual({
      kind: 'unreadable',
      reason: 'it is not a text file'
    });
    expect(await reader.text('d')).toEqual({
      kind: 'unreadable',
      reason: 'it is a folder'
    });
    expect(await reader.text('gone.txt')).toEqual({
      kind: 'unreadable',
      reason: 'No such file or directory: gone.txt'
    });
    const missing = new ContentsReader(
      {
        get: async () => {
          throw notFound;
        }
      } as unknown as Contents.IManager,
      trans
    );
    expect(await missing.text('new.txt')).toEqual({ kind: 'missing' });
  });

  it('says why a folder or a missing file cannot be attached', async () => {
    const { reader } = contents({ d: { path: 'd', type: 'directory' } });
    await expect(reader.attachment('d')).rejects.toThrow(
      'd is a folder, not a file.'
    );
    await expect(reader.attachment('gone.txt')).rejects.toThrow(
      'Could not read gone.txt: No such file or directory: gone.txt'
    );
  });
});

describe('cells of an open notebook', () => {
  const cell = (type: string, source: string) => ({
    model: { type, sharedModel: { getSource: () => source } }
  });
  const widgets = [
    cell('markdown', '# T'),
    cell('code', 'x = 1'),
    cell('code', 'y')
  ];
  const panel = { context: { path: 'n/a.ipynb' }, content: { widgets } };

  it('are read as shown', () => {
    expect(notebookCells(panel)).toEqual([
      { cellType: 'markdown', source: '# T' },
      { cellType: 'code', source: 'x = 1' },
      { cellType: 'code', source: 'y' }
    ]);
    expect(cellAt(panel, 1)?.attachment.source).toBe('cell 2 of n/a.ipynb');
    expect(cellAt(panel, 5)).toBeNull();
  });

  it('dragged from their notebook become chips in notebook order', () => {
    const drafts = droppedCells(
      panel.content,
      [widgets[2], widgets[0]],
      [panel]
    );
    expect(drafts.map(d => d.attachment)).toEqual([
      { kind: 'cell', source: 'cell 1 of n/a.ipynb', text: '# T' },
      { kind: 'cell', source: 'cell 3 of n/a.ipynb', text: 'y' }
    ]);
    expect(droppedCells({}, [widgets[0]], [panel])).toEqual([]);
  });
});

describe('the completer', () => {
  const items: IMentionItem[] = [
    { kind: 'directory', label: 'data/', hint: '', path: 'data' },
    { kind: 'file', label: 'notes.txt', hint: '', path: 'notes.txt' },
    { kind: 'cell', label: 'cell 1', hint: 'x = 1', path: 'a.ipynb', index: 0 }
  ];
  const caret = { left: 10, top: 20, bottom: 36 };

  function opened() {
    const completer = new MentionCompleter(trans);
    const chosen: IMentionItem[] = [];
    completer.chosen.connect((_, item) => chosen.push(item));
    completer.open(items, caret);
    return { completer, chosen };
  }

  const active = (completer: MentionCompleter) =>
    completer.node.querySelector('.jp-mod-active')?.textContent;

  it('shows each item with its hint, the first highlighted, under the caret', () => {
    const { completer } = opened();
    expect(completer.isOpen).toBe(true);
    expect(
      Array.from(completer.node.querySelectorAll('li')).map(
        li => li.textContent
      )
    ).toEqual(['data/folder', 'notes.txt', 'cell 1x = 1']);
    expect(active(completer)).toBe('data/folder');
    expect(completer.node.style.top).toBe('36px');
    expect(completer.node.getAttribute('role')).toBe('listbox');
    completer.dispose();
  });

  it('moves with ↑/↓, round the ends, and chooses with Enter or Tab', () => {
    const { completer, chosen } = opened();
    expect(completer.handleKey('ArrowUp')).toBe(true);
    expect(active(completer)).toBe('cell 1x = 1');
    completer.handleKey('ArrowDown');
    completer.handleKey('ArrowDown');
    expect(active(completer)).toBe('notes.txt');
    expect(completer.handleKey('Enter')).toBe(true);
    completer.handleKey('ArrowDown');
    expect(completer.handleKey('Tab')).toBe(true);
    expect(chosen.map(item => item.label)).toEqual(['notes.txt', 'cell 1']);
    expect(completer.handleKey('a')).toBe(false);
    completer.dispose();
  });

  it('closes with Escape, and then leaves keys alone', () => {
    const { completer, chosen } = opened();
    expect(completer.handleKey('Escape')).toBe(true);
    expect(completer.isOpen).toBe(false);
    expect(completer.handleKey('Enter')).toBe(false);
    expect(chosen).toEqual([]);
    completer.dispose();
  });

  it('chooses with a click, and closes when nothing matches', () => {
    const { completer, chosen } = opened();
    completer.node.querySelectorAll<HTMLElement>('li')[2].click();
    expect(chosen.map(item => item.label)).toEqual(['cell 1']);
    completer.open([], caret);
    expect(completer.isOpen).toBe(false);
    completer.dispose();
  });
});

describe('@ and drops in the message box', () => {
  const files: IMentionItem[] = [
    { kind: 'directory', label: 'data/', hint: '', path: 'data' },
    { kind: 'file', label: 'notes.txt', hint: '', path: 'notes.txt' }
  ];
  const inData: IMentionItem[] = [
    { kind: 'file', label: 'a.csv', hint: '', path: 'data/a.csv' }
  ];

  function box() {
    const queries: string[] = [];
    const drops: ContextDrop[] = [];
    const source: IMentionSource = {
      complete: async query => {
        queries.push(query);
        return query.startsWith('data/') ? inData : files;
      },
      attachment: async item => textFile(item.path, `text of ${item.path}`),
      dropped: async drop => {
        drops.push(drop);
        return drop.kind === 'files'
          ? drop.paths.map(path => textFile(path, path))
          : [];
      }
    };
    const context = new ComposerContext();
    context.mentionSource = source;
    const composer = new Composer(trans);
    Widget.attach(composer, document.body);
    const sent: string[] = [];
    composer.sendRequested.connect((_, text) => sent.push(text));
    const mentions = new MentionInput(
      composer.node,
      composer.input,
      context,
      trans
    );
    const input = composer.input;
    const type = async (text: string) => {
      input.value += text;
      input.setSelectionRange(input.value.length, input.value.length);
      input.dispatchEvent(new Event('input'));
      await settle();
    };
    const key = (name: string) => {
      const event = new KeyboardEvent('keydown', {
        key: name,
        bubbles: true,
        cancelable: true
      });
      input.dispatchEvent(event);
      return event;
    };
    const done = () => {
      mentions.dispose();
      composer.dispose();
      context.dispose();
    };
    return {
      context,
      composer,
      mentions,
      input,
      type,
      key,
      sent,
      queries,
      drops,
      done
    };
  }

  const settle = () => new Promise(resolve => setTimeout(resolve, 0));

  it('opens on @, lists a chosen folder, and makes a chip of a chosen file', async () => {
    const { context, mentions, input, type, key, sent, queries, done } = box();
    await type('look at @');
    expect(mentions.completer.isOpen).toBe(true);
    expect(queries).toEqual(['']);
    // Enter chooses the folder: the message is not sent.
    expect(key('Enter').defaultPrevented).toBe(true);
    await settle();
    expect(sent).toEqual([]);
    expect(input.value).toBe('look at @data/');
    expect(queries).toEqual(['', 'data/']);
    expect(mentions.completer.items).toEqual(inData);
    key('Tab');
    await settle();
    expect(input.value).toBe('look at ');
    expect(mentions.completer.isOpen).toBe(false);
    expect(context.current()?.attachments).toEqual([
      { kind: 'file', source: 'data/a.csv', text: 'text of data/a.csv' }
    ]);
    // Closed, Enter sends again.
    key('Enter');
    expect(sent).toEqual(['look at ']);
    done();
  });

  it('closes on Escape without stopping the agent, and on a space', async () => {
    const { composer, mentions, type, key, done } = box();
    const stops: number[] = [];
    composer.stopRequested.connect(() => stops.push(1));
    composer.setRunning(true);
    await type('@no');
    expect(mentions.completer.isOpen).toBe(true);
    key('Escape');
    expect(mentions.completer.isOpen).toBe(false);
    expect(stops).toEqual([]);
    await type(' @x');
    expect(mentions.completer.isOpen).toBe(true);
    await type(' ');
    expect(mentions.completer.isOpen).toBe(false);
    key('Escape');
    expect(stops).toEqual([1]);
    done();
  });

  function dragEvent(
    type: string,
    data: Record<string, unknown>,
    source: unknown = null
  ) {
    const event = new Event(type, { bubbles: true, cancelable: true });
    return Object.assign(event, {
      mimeData: {
        hasData: (mime: string) => mime in data,
        getData: (mime: string) => data[mime]
      },
      source,
      proposedAction: 'move',
      dropAction: 'none'
    });
  }

  it('takes files dropped from the file browser, highlighted while over it', async () => {
    const { composer, context, input, drops, done } = box();
    const data = { [CONTENTS_MIME]: ['a.txt', 'b/c.txt'] };
    const enter = dragEvent('lm-dragenter', data);
    input.dispatchEvent(enter);
    expect(enter.defaultPrevented).toBe(true);
    expect(composer.node.classList.contains('jp-mod-dropTarget')).toBe(true);
    const over = dragEvent('lm-dragover', data);
    input.dispatchEvent(over);
    expect(over.dropAction).toBe('move');
    input.dispatchEvent(dragEvent('lm-drop', data));
    expect(composer.node.classList.contains('jp-mod-dropTarget')).toBe(false);
    await settle();
    expect(drops).toEqual([{ kind: 'files', paths: ['a.txt', 'b/c.txt'] }]);
    expect(context.attachments.map(d => d.attachment.source)).toEqual([
      'a.txt',
      'b/c.txt'
    ]);
    done();
  });

  it('passes dragged cells on with their notebook, and ignores other drags', async () => {
    const { composer, input, drops, done } = box();
    const notebook = {};
    const widgets = [{}];
    input.dispatchEvent(
      dragEvent(
        'lm-drop',
        { [CELLS_MIME]: [{}], 'internal:cells': widgets },
        notebook
      )
    );
    const text = dragEvent('lm-dragenter', { 'text/plain': 'x' });
    input.dispatchEvent(text);
    expect(text.defaultPrevented).toBe(false);
    expect(composer.node.classList.contains('jp-mod-dropTarget')).toBe(false);
    await settle();
    expect(drops).toEqual([
      { kind: 'cells', source: notebook, cells: widgets }
    ]);
    done();
  });

  it('listens to nothing once disposed', async () => {
    const { composer, context, mentions, input, type, drops } = box();
    mentions.dispose();
    await type('@');
    expect(mentions.completer.isDisposed).toBe(true);
    expect(document.querySelector('.jp-AgentPanel-mentions')).toBeNull();
    input.dispatchEvent(dragEvent('lm-drop', { [CONTENTS_MIME]: ['a.txt'] }));
    await settle();
    expect(drops).toEqual([]);
    composer.dispose();
    context.dispose();
  });
});
