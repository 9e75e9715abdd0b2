/**
 * Outputs and errors as attachments: how an nbformat output becomes what the
 * agent reads (ANSI stripped, capped, images as a placeholder or bytes), how
 * they travel (chunk wire without bytes, AG-UI context entries and image
 * parts), the composer's attach / offer / reset, and the record of what went.
 */
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';
import { runInput } from '../../agui/request';
import { AguiThread } from '../../agui/thread';
import { ComposerContext } from '../../model/conversation/composer-context';
import {
  type ICellPort,
  type IExecutedPort,
  WorkspaceContextSource
} from '../../notebook/workspace-context';
import { outputAtNode } from '../../notebook/output-context';
import { ContextChipsView } from '../../panel/composer/context-chips';
import {
  attachmentWords,
  contextRecord
} from '../../panel/common/context-text';
import {
  ATTACHMENT_LIMIT,
  errorText,
  htmlText,
  imagePlaceholder,
  lastError,
  outputAttachment,
  stripAnsi
} from '../../context/attachments';
import { byteSize } from '../../wire/images';
import { cellSource } from '../../context/workspace';
import { chunkWireContext } from '../../wire/turn';
import type { ITurnContext, TurnRequest } from '../../wire/turn';
import { panelStrings } from '../../contracts/translation';

const trans = panelStrings();
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const ERROR = {
  output_type: 'error',
  ename: 'ZeroDivisionError',
  evalue: 'division by zero',
  traceback: [
    '\u001b[0;31m---------------------------------------\u001b[0m',
    '\u001b[0;31mZeroDivisionError\u001b[0m Traceback (most recent call last)',
    'Cell \u001b[0;32mIn[2], line 1\u001b[0m\n\u001b[0;32m----> 1\u001b[0m y \u001b[38;5;241m=\u001b[39m x \u001b[38;5;241m/\u001b[39m \u001b[38;5;241m0\u001b[39m'
  ]
};

describe('an output as the agent reads it', () => {
  it('strips ANSI colours and cursor moves', () => {
    expect(stripAnsi('\u001b[1;31mred\u001b[0m \u001b[2Kdone\u001b(B')).toBe(
      'red done'
    );
  });

  it('gives an error its name, value and traceback, without escapes', () => {
    expect(errorText(ERROR)).toBe(
      'ZeroDivisionError: division by zero\n' +
        '---------------------------------------\n' +
        'ZeroDivisionError Traceback (most recent call last)\n' +
        'Cell In[2], line 1\n----> 1 y = x / 0'
    );
    const draft = outputAttachment(ERROR, 'cell 2 of a.ipynb')!;
    expect(draft.attachment).toEqual({
      kind: 'error',
      source: 'cell 2 of a.ipynb',
      text: errorText(ERROR)
    });
    expect(draft.kept).toBe(draft.total);
  });

  it('reads stream text (a list of lines too) and plain text results', () => {
    expect(
      outputAttachment(
        { output_type: 'stream', name: 'stdout', text: ['a\n', 'b\n'] },
        's'
      )?.attachment
    ).toEqual({ kind: 'output', source: 's', text: 'a\nb\n' });
    expect(
      outputAttachment(
        {
          output_type: 'execute_result',
          data: { 'text/plain': '42', 'text/html': '<b>42</b>' },
          metadata: {},
          execution_count: 1
        },
        's'
      )?.attachment.text
    ).toBe('42');
  });

  it('reads HTML as text when there is no plain text', () => {
    expect(
      htmlText(
        '<style>td{}</style><table><tr><th>a</th><th>b</th></tr><tr><td>1 &amp; 2</td><td>&lt;3&gt;</td></tr></table><script>x()</script>'
      )
    ).toBe('a\tb\n1 & 2\t<3>');
    expect(
      outputAttachment(
        { output_type: 'display_data', data: { 'text/html': '<p>hi</p>' } },
        's'
      )?.attachment.text
    ).toBe('hi');
  });

  it('caps a long output and says so in the text and on the draft', () => {
    const text = 'x'.repeat(ATTACHMENT_LIMIT + 500);
    const draft = outputAttachment(
      { output_type: 'stream', name: 'stdout', text },
      's'
    )!;
    expect(draft.attachment.text.length).toBe(ATTACHMENT_LIMIT);
    expect(draft.attachment.text).toMatch(
      /… \(truncated, \d+ more characters\)$/
    );
    expect(draft.total).toBe(ATTACHMENT_LIMIT + 500);
    expect(attachmentWords(draft, trans).note).toBe(
      `capped: first ${draft.kept.toLocaleString()} of ${(ATTACHMENT_LIMIT + 500).toLocaleString()} characters`
    );
  });

  it('keeps an image as bytes, with a placeholder naming type and size', () => {
    expect(byteSize(PIXEL)).toBe(70);
    expect(imagePlaceholder('image/png', PIXEL)).toBe(
      '[image output: image/png, 70 bytes; not sent as an image]'
    );
    const draft = outputAttachment(
      {
        output_type: 'display_data',
        data: { 'image/png': PIXEL + '\n', 'text/plain': '<Figure>' }
      },
      'cell 1 of a.ipynb'
    )!;
    expect(draft.attachment).toEqual({
      kind: 'image',
      source: 'cell 1 of a.ipynb',
      text: '[image output: image/png, 70 bytes; not sent as an image]',
      image: { mimeType: 'image/png', data: PIXEL }
    });
  });

  it('has nothing to say for an empty or unknown output', () => {
    expect(
      outputAttachment({ output_type: 'display_data', data: {} }, 's')
    ).toBe(null);
    expect(outputAttachment('nonsense', 's')).toBe(null);
  });

  it('finds the last error among outputs and names cells from 1', () => {
    const stream = { output_type: 'stream', text: 'x' };
    expect(lastError([stream, ERROR, stream])).toBe(ERROR);
    expect(lastError([stream])).toBe(null);
    expect(
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data
      cellSource(2, { path: 'n/a.ipynb', title: 'a', kind: 'notebook' })
    ).toBe('cell 3 of n/a.ipynb');
    expect(cellSource(0, null)).toBe('cell 1');
  });
});

describe('how attachments travel', () => {
  const image = outputAttachment(
    { output_type: 'display_data', data: { 'image/png': PIXEL } },
    'cell 1 of a.ipynb'
  )!.attachment;
  const error = outputAttachment(ERROR, 'cell 2 of a.ipynb')!.attachment;
  const context: ITurnContext = {
    focused_widget: 'a.ipynb',
    attachments: [error, image]
  };
  const chat = (): TurnRequest => ({
    kind: 'chat',
    threadId: 't',
    message: 'look',
    context
  });

  it('go over the chunk wire and the comm without image bytes', () => {
    expect(chunkWireContext(context)).toEqual({
      focused_widget: 'a.ipynb',
      attachments: [
        { kind: 'error', source: 'cell 2 of a.ipynb', text: error.text },
        { kind: 'image', source: 'cell 1 of a.ipynb', text: image.text }
      ]
    });
    expect(chunkWireContext({ selected_text: 'x' })).toEqual({
      selected_text: 'x'
    });
  });

  it("carry an image's bytes to this server's built-in agent, at most four of at most 1 MB", () => {
    const withBytes = (data: string) => ({
      ...image,
      image: { mimeType: 'image/png', data }
    });
    // 1 MB decoded is 1,398,104 base64 characters (the last group padded).
    const tooLarge = withBytes('A'.repeat(1398104 + 4));
    const images = [
      withBytes(PIXEL),
      tooLarge,
      ...['B', 'C', 'D', 'E'].map(c => withBytes(c.repeat(8)))
    ];
    const sent = chunkWireContext({ attachments: images }, true)
      .attachments as { image?: { data: string } }[];
    expect(sent.map(a => a.image?.data ?? null)).toEqual([
      PIXEL,
      null, // over 1 MB: its placeholder text alone
      'BBBBBBBB',
      'CCCCCCCC',
      'DDDDDDDD',
      null // the fifth that fits
    ]);
    expect(sent[0]).toEqual({
      kind: 'image',
      source: 'cell 1 of a.ipynb',
      text: image.text,
      image: { mime_type: 'image/png', data: PIXEL }
    });
    // Without the flag (the comm, another server) no bytes go at all.
    expect(
      (chunkWireContext({ attachments: images }).attachments as object[]).every(
        a => !('image' in a)
      )
    ).toBe(true);
  });

  it('are AG-UI context entries, the image a placeholder for an agent that takes none', () => {
    const { input } = runInput(chat(), new AguiThread('t'));
    expect(input.context).toEqual([
      {
        description: 'The JupyterLab document or panel the user is looking at',
        value: 'a.ipynb'
      },
      {
        description: 'The error output of cell 2 of a.ipynb',
        value: error.text
      },
      {
        description: 'An image output of cell 1 of a.ipynb',
        value: image.text
      }
    ]);
    expect(input.messages[input.messages.length - 1]).toMatchObject({
      role: 'user',
      content: 'look'
    });
  });

  it('send an image as an ag-ui-protocol 1.0 image part to an agent that takes images', () => {
    const { input } = runInput(chat(), new AguiThread('t'), 'full', true, true);
    expect(input.messages[input.messages.length - 1]).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        {
          type: 'image',
          source: { type: 'data', value: PIXEL, mimeType: 'image/png' },
          metadata: { source: 'cell 1 of a.ipynb' }
        }
      ]
    });
    expect(input.context.map(entry => entry.description)).toEqual([
      'The JupyterLab document or panel the user is looking at',
      'The error output of cell 2 of a.ipynb'
    ]);
  });

  it('are recorded under the message, each with where it came from', () => {
    expect(contextRecord({ attachments: [error, image] }, trans)).toEqual([
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data
      { label: 'Error', value: 'error in cell 2 of a.ipynb', text: error.text },
      {
        // eslint-disable-next-line jupyter/no-untranslated-string -- test data
        label: 'Image',
        value: 'image from cell 1 of a.ipynb',
        text: image.text
      }
    ]);
  });
});

/** A code cell with these outputs (the part the context source reads). */
function cell(outputs: unknown[]): ICellPort & { node: HTMLElement } {
  return {
    node: document.createElement('div'),
    editor: null,
    model: {
      sharedModel: { getSource: () => 'y = x / 0' },
      selections: { changed: new Signal<any, any>({}) },
      outputs: { toJSON: () => outputs }
    }
  };
}

describe('the composer attaches, offers and resets', () => {
  function setUp() {
    const failing = cell([ERROR]);
    const next = cell([]);
    const content = {
      activeCellIndex: 1,
      activeCell: next as ICellPort | null,
      widgets: [failing, next]
    };
    const widget = Object.assign(new Widget(), {
      content,
      context: { path: 'n/a.ipynb' }
    });
    const executed = new Signal<any, IExecutedPort>({});
    const shell = { currentWidget: widget as Widget };
    const source = new WorkspaceContextSource({
      shell,
      notebooks: {
        has: (w: Widget) => w === widget,
        activeCellChanged: new Signal<any, any>({})
      },
      executed
    });
    const context = new ComposerContext();
    context.setSource(source);
    return { context, executed, failing, content };
  }

  it('offers the error of the cell that just failed, until it runs fine', () => {
    const { context, executed, failing, content } = setUp();
    expect(context.offered).toEqual([]);
    executed.emit({ notebook: content, cell: failing, success: false });
    expect(context.offered.map(d => d.attachment.source)).toEqual([
      'cell 1 of n/a.ipynb'
    ]);
    executed.emit({ notebook: content, cell: failing, success: true });
    expect(context.offered).toEqual([]);
    context.dispose();
  });

  it('sends what was attached once, and no offered chip twice', () => {
    const { context, executed, failing, content } = setUp();
    executed.emit({ notebook: content, cell: failing, success: false });
    const [offered] = context.offered;
    context.attach(offered);
    context.attach(offered);
    expect(context.attachments).toHaveLength(1);
    expect(context.offered).toEqual([]);
    expect(context.current()?.attachments).toEqual([offered.attachment]);
    context.reset();
    expect(context.attachments).toEqual([]);
    expect(context.current()?.attachments).toBeUndefined();
    context.attach(offered);
    context.detach(0);
    expect(context.attachments).toEqual([]);
    context.dispose();
  });

  it('finds the output a context menu was opened on, by its place in the cell', () => {
    const output = cell([
      { output_type: 'stream', name: 'stdout', text: 'first' },
      ERROR
    ]);
    const area = document.createElement('div');
    const children = [0, 1].map(() => {
      const child = document.createElement('div');
      child.className = 'jp-OutputArea-child';
      area.append(child);
      return child;
    });
    output.node.append(area);
    const panel = {
      node: document.createElement('div'),
      context: { path: 'n/a.ipynb' },
      // eslint-disable-next-line jupyter/no-untranslated-string -- test data
      title: { label: 'a.ipynb' },
      content: { widgets: [cell([]), output] }
    };
    panel.node.append(output.node);
    expect(outputAtNode(children[1], [panel])?.attachment.kind).toBe('error');
    expect(outputAtNode(children[0], [panel])?.attachment).toEqual({
      kind: 'output',
      source: 'cell 2 of n/a.ipynb',
      text: 'first'
    });
    expect(outputAtNode(document.createElement('div'), [panel])).toBe(null);
  });
});

describe('the Variables… chip', () => {
  const listing = {
    source: 'n/a.ipynb',
    omitted: [{ name: 'slow', reason: 'the listing took longer than 2 s' }],
    variables: [
      {
        name: 'df',
        type: 'pandas.DataFrame',
        shape: [2, 2],
        dtypes: { city: 'str', people: 'float64' },
        text: 'df: pandas.DataFrame\n  shape: [2, 2]'
      },
      { name: 'n', type: 'int', text: 'n: int\n  repr: 5' }
    ]
  };

  function chipsView(list: () => Promise<typeof listing>) {
    const context = new ComposerContext();
    const changed = new Signal<any, void>({});
    context.setSource({
      changed,
      isDisposed: false,
      dispose: () => undefined,
      snapshot: () => ({
        directory: null,
        // eslint-disable-next-line jupyter/no-untranslated-string -- test data
        document: { path: 'n/a.ipynb', title: 'a.ipynb', kind: 'notebook' },
        selection: null
      })
    });
    context.variablesSource = { list };
    const view = new ContextChipsView(context, trans);
    Widget.attach(view, document.body);
    const click = (selector: string) =>
      view.node.querySelector<HTMLElement>(selector)!.click();
    return { context, view, click };
  }

  it('lists the variables with their facts and attaches the ticked ones', async () => {
    const { context, view, click } = chipsView(() => Promise.resolve(listing));
    click('[data-action="list-variables"]');
    await Promise.resolve();
    await Promise.resolve();
    const items = Array.from(view.node.querySelectorAll('li')).map(
      li => li.textContent
    );
    expect(items).toEqual([
      'dfpandas.DataFrame · 2×2 · city: str, people: float64',
      'nint'
    ]);
    expect(
      view.node.querySelector('.jp-AgentPanel-variablesNote')?.textContent
    ).toBe('Left out: slow (the listing took longer than 2 s)');
    view.node.querySelector<HTMLInputElement>('input[value="df"]')!.checked =
      true;
    click('[data-action="attach-variables"]');
    expect(context.current()?.attachments).toEqual([
      {
        kind: 'variables',
        source: 'n/a.ipynb',
        text: 'df: pandas.DataFrame\n  shape: [2, 2]'
      }
    ]);
    expect(
      view.node.querySelector('[data-kind="variables"]')?.textContent
    ).toBe('Variablesdf×');
    expect(view.node.querySelector('.jp-AgentPanel-variablesPicker')).toBe(
      null
    );
    view.dispose();
    context.dispose();
  });

  it('says why the kernel could not list them', async () => {
    const { view, click } = chipsView(() =>
      Promise.reject(new Error('Run %load_ext jupyterlab_agent_panel …'))
    );
    click('[data-action="list-variables"]');
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(
      view.node.querySelector('.jp-AgentPanel-variablesNote')?.textContent
    ).toBe('Run %load_ext jupyterlab_agent_panel …');
    click('[data-action="close-variables"]');
    expect(view.node.querySelector('.jp-AgentPanel-variablesPicker')).toBe(
      null
    );
    view.dispose();
  });
});
