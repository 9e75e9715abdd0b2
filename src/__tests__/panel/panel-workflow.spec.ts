/**
 * The panel while working alongside the agent: the context chips and what
 * the message takes, the record under a sent message, the queue view, the
 * pinned plan, and which view each kind of extraction gets.
 */
import '../support/clipboard-shim';
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import type { IWorkspaceSnapshot } from '../../context/workspace';
import type { IContextSource } from '../../model/conversation/composer-context';
import { ChatPanel } from '../../panel/chat-panel';
import { DisplayInlineView } from '../../panel/extraction/display-inline-view';
import {
  createExtractionView,
  registerExtractionRenderer
} from '../../panel/extraction/extraction-renderers';
import {
  extractionSummary,
  ReflectionView,
  SummaryLineView
} from '../../panel/extraction/extraction-summary';
import { ExtractionView } from '../../panel/extraction/extraction-view';
import { TodosView } from '../../panel/extraction/todos-view';
import type { IExtractionCard } from '../../wire/types';
import {
  afterFrame,
  click,
  complete,
  FakeTransport,
  frame,
  libraryFor,
  makeContext,
  trans,
  typeInto
} from '../support/panel-fakes';

const NOTEBOOK_TITLE = 'analysis.ipynb';
const SUMMARY_TITLE = 'Summary';

class FakeSource implements IContextSource {
  snapshotValue: IWorkspaceSnapshot = {
    directory: 'notes',
    document: {
      path: 'notes/analysis.ipynb',
      title: NOTEBOOK_TITLE,
      kind: 'notebook'
    },
    selection: {
      text: 'df.head()',
      place: { kind: 'cell', index: 2 },
      wholeCell: false
    }
  };
  readonly changed: Signal<IContextSource, void> = new Signal(this);
  isDisposed = false;
  snapshot(): IWorkspaceSnapshot {
    return this.snapshotValue;
  }
  dispose(): void {
    this.isDisposed = true;
    Signal.clearData(this);
  }
}

const panels: ChatPanel[] = [];
const services: AgentPanelService[] = [];

function panelWith() {
  const transport = new FakeTransport();
  const model = new ChatModel('thread-1', trans);
  const service = new AgentPanelService(model);
  service.registerTransport('http', () => transport);
  const source = new FakeSource();
  service.composerContext.setSource(source);
  const context = makeContext({}, [
    { command: 'test:insert-plan', target: 'plan' }
  ]);
  const inserted: unknown[] = [];
  context.commands.addCommand('test:insert-plan', {
    label: trans.__('Insert into Notebook'),
    describedBy: { args: { type: 'object', properties: {} } },
    execute: args => {
      inserted.push(args);
    }
  });
  service.addItemAction({ command: 'test:insert-plan', target: 'plan' });
  const panel = new ChatPanel({
    service,
    library: libraryFor(service),
    rendermime: context.rendermime,
    trans,
    commands: context.commands
  });
  Widget.attach(panel, document.body);
  panels.push(panel);
  services.push(service);
  const $ = <T extends Element = HTMLElement>(selector: string) =>
    panel.node.querySelector<T>(selector)!;
  const $$ = (selector: string) => [
    ...panel.node.querySelectorAll<HTMLElement>(selector)
  ];
  const input = $<HTMLTextAreaElement>('.jp-AgentPanel-input');
  const send = (text: string) => {
    typeInto(input, text);
    input.dispatchEvent(
      new KeyboardEvent('keydown', {
        key: 'Enter',
        bubbles: true,
        cancelable: true
      })
    );
  };
  const chat = () =>
    transport.turns
      .map(turn => turn.request)
      .filter(request => request.kind === 'chat');
  return { transport, model, service, source, $, $$, send, chat, inserted };
}

afterEach(() => {
  panels.splice(0).forEach(panel => panel.dispose());
  services.splice(0).forEach(service => service.dispose());
  document.body.replaceChildren();
});

describe('context chips', () => {
  it('show the folder, the document and the selection with its cell', () => {
    const { $$ } = panelWith();
    expect(
      $$('.jp-AgentPanel-chip').map(chip => [
        chip.dataset.kind,
        chip.querySelector('.jp-AgentPanel-chipLabel')!.textContent,
        chip.querySelector('.jp-AgentPanel-chipValue')!.textContent
      ])
    ).toEqual([
      ['directory', 'Folder', 'notes'],
      ['document', 'Notebook', 'analysis.ipynb'],
      ['selection', 'Selection', 'cell 3 of analysis.ipynb']
    ]);
  });

  it('send what they show; a removed chip is left out of this message only', () => {
    const { $, send, chat, transport } = panelWith();
    click($('[data-kind="selection"] .jp-AgentPanel-chipToggle'));
    expect($('[data-kind="selection"]').classList).toContain('jp-mod-excluded');
    send('without the selection');
    expect(chat()[0]).toMatchObject({
      message: 'without the selection',
      context: {
        current_directory: 'notes',
        focused_widget: 'notes/analysis.ipynb'
      }
    });
    expect(chat()[0].kind === 'chat' && chat()[0]).not.toHaveProperty(
      'context.selected_text'
    );
    // The next message starts from the defaults again.
    expect($('[data-kind="selection"]').classList).not.toContain(
      'jp-mod-excluded'
    );
    transport.lastTurn.sink.frame(complete());
    send('with it');
    expect(chat()[1]).toMatchObject({
      context: { selected_text: 'df.head()', selection_metadata: 'cell_2' }
    });
  });

  it('say when a long selection is capped', () => {
    const { $, source } = panelWith();
    source.snapshotValue = {
      ...source.snapshotValue,
      selection: {
        text: 'x'.repeat(5321),
        place: { kind: 'lines', start: 4, end: 90 },
        wholeCell: false
      }
    };
    source.changed.emit();
    expect(
      $('[data-kind="selection"] .jp-AgentPanel-chipValue').textContent
    ).toBe('lines 4–90 of analysis.ipynb');
    expect($('.jp-AgentPanel-chipNote').textContent).toMatch(
      /^capped: first 1,9\d\d of 5,321 characters$/
    );
  });

  it('are hidden when there is no context', () => {
    const { $, source } = panelWith();
    source.snapshotValue = { directory: '', document: null, selection: null };
    source.changed.emit();
    expect($('.jp-AgentPanel-contextChips').classList).toContain(
      'lm-mod-hidden'
    );
  });

  it('leave a record under the sent message, opened to the full values', () => {
    const { $, send } = panelWith();
    send('what does this do?');
    const record = $<HTMLDetailsElement>('.jp-AgentPanel-userContext');
    expect(record.querySelector('summary')!.textContent).toBe(
      'Sent with: notes · analysis.ipynb · cell 3'
    );
    expect(
      [...record.querySelectorAll('dt, dd')].map(node => node.textContent)
    ).toEqual([
      'Folder',
      'notes',
      'Document',
      'notes/analysis.ipynb',
      'Selection',
      'cell 3df.head()'
    ]);
    expect(record.querySelector('pre')!.textContent).toBe('df.head()');
  });
});

describe('the queue in the panel', () => {
  it('takes messages while a turn runs, lets the user reorder and edit them, and sends them in order', async () => {
    const { $, $$, send, chat, transport } = panelWith();
    send('first');
    send('second');
    send('third');
    expect(chat()).toHaveLength(1);
    expect($('.jp-AgentPanel-queueTitle').textContent).toBe(
      '2 queued messages'
    );
    const texts = () => $$('.jp-AgentPanel-queueText').map(n => n.textContent);
    expect(texts()).toEqual(['second', 'third']);

    click(
      $$('.jp-AgentPanel-queueItem')[1].querySelector('[data-action="up"]')
    );
    expect(texts()).toEqual(['third', 'second']);
    // At the top now: the keyboard stays on the message.
    expect(document.activeElement?.getAttribute('aria-label')).toBe(
      'Move message 1 down'
    );
    click(
      $$('.jp-AgentPanel-queueItem')[1].querySelector('[data-action="edit"]')
    );
    const edit = $<HTMLTextAreaElement>('.jp-AgentPanel-queueEdit');
    typeInto(edit, 'second, edited');
    edit.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
    );
    expect(texts()).toEqual(['third', 'second, edited']);
    expect($('.jp-AgentPanel-queueContext').textContent).toBe(
      'With: notes · analysis.ipynb · cell 3'
    );

    transport.lastTurn.sink.frame(complete());
    await afterFrame();
    transport.lastTurn.sink.frame(complete());
    await afterFrame();
    expect(
      chat().map(request => request.kind === 'chat' && request.message)
    ).toEqual(['first', 'third', 'second, edited']);
    expect($('.jp-AgentPanel-queue').classList).toContain('lm-mod-hidden');
  });

  it('says why it is held after an error and sends on when asked', async () => {
    const { $, send, chat, transport } = panelWith();
    send('first');
    send('kept');
    transport.lastTurn.sink.frame(frame({ status: 'error', error: 'Boom' }));
    await afterFrame();
    expect($('.jp-AgentPanel-queueNotice').textContent).toBe(
      'Held because the last turn failed: send the queue or clear it.'
    );
    expect(chat()).toHaveLength(1);
    click($('[data-action="resume"]'));
    expect(chat()).toHaveLength(2);
  });

  it('offers a Queue button beside Stop while a turn runs; Remove drops a message', () => {
    const { $, send, chat } = panelWith();
    send('first');
    expect($('.jp-AgentPanel-queueSend').hidden).toBe(false);
    typeInto($('.jp-AgentPanel-input'), 'by button');
    click($('.jp-AgentPanel-queueSend'));
    expect($('.jp-AgentPanel-queueText').textContent).toBe('by button');
    click($('[data-action="remove"]'));
    expect($('.jp-AgentPanel-queue').classList).toContain('lm-mod-hidden');
    expect(chat()).toHaveLength(1);
  });
});

const todos = (data: unknown) =>
  frame({
    status: 'streaming',
    extraction: { tool_name: 'write_todos', extracted_type: 'todos', data }
  });

describe('the pinned plan', () => {
  it('shows the latest to-do list, updated in place with the count done, and collapses', () => {
    const { $, $$, send, transport, inserted, model } = panelWith();
    const plan = $('.jp-AgentPanel-plan');
    expect(plan.classList).toContain('lm-mod-hidden');
    send('plan it');
    transport.lastTurn.sink.frame(
      todos([
        { content: 'Read the notebook', status: 'in_progress' },
        { content: 'Fix the failing cell', status: 'pending' }
      ])
    );
    expect(plan.classList).not.toContain('lm-mod-hidden');
    expect($('.jp-AgentPanel-planCount').textContent).toBe('0 of 2 done');
    transport.lastTurn.sink.frame(
      todos([
        { content: 'Read the notebook', status: 'completed' },
        { content: 'Fix the failing cell', status: 'in_progress' }
      ])
    );
    expect($('.jp-AgentPanel-plan')).toBe(plan);
    expect($('.jp-AgentPanel-planCount').textContent).toBe('1 of 2 done');
    const rows = [
      ...plan.querySelectorAll<HTMLElement>('.jp-AgentPanel-checklistItem')
    ];
    expect(rows.map(row => [row.dataset.status, row.textContent])).toEqual([
      ['completed', '☑Read the notebookdone'],
      ['in_progress', '▶Fix the failing cellin progress']
    ]);
    // Two updates in the transcript, one plan at the top.
    expect($$('.jp-AgentPanel-todos')).toHaveLength(2);
    expect($$('.jp-AgentPanel-plan')).toHaveLength(1);

    const toggle = $('.jp-AgentPanel-planToggle');
    click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect($('.jp-AgentPanel-planBody').hidden).toBe(true);

    // The plan's actions act on the extraction it shows: the second list.
    click(plan.querySelector('[data-command="test:insert-plan"]'));
    const entry = model.entries[1] as ITurnEntry;
    expect(inserted).toEqual([
      { turn: entry.key, item: entry.state.items[1].key }
    ]);
  });
});

describe('extraction renderers', () => {
  const context = makeContext();
  const address = { turn: 't', item: 1 };
  const card = (extractedType: string, data: unknown): IExtractionCard => ({
    kind: 'extraction',
    key: 1,
    toolName: 'tool',
    extractedType,
    data,
    toolKey: null
  });

  it('picks the dedicated view of a known type, and the generic card otherwise', () => {
    const cases: [string, unknown, unknown][] = [
      ['todos', [{ content: 'a', status: 'pending' }], TodosView],
      [
        'display_inline',
        { display_type: 'html', data: '<b>hi</b>' },
        DisplayInlineView
      ],
      ['reflection', 'I should check the data first.', ReflectionView],
      [
        'skill_event',
        { action: 'create', extracted_subtype: 'skill_created', name: 'pdf' },
        SummaryLineView
      ],
      ['skill_loaded', { loaded: true, body_chars: 1200 }, SummaryLineView],
      [
        'memory_updated',
        { action: 'add', target: 'USER.md', extracted_subtype: 'memory_added' },
        SummaryLineView
      ],
      [
        'compression_summary',
        { before_tokens: 47000, after_tokens: 9000 },
        SummaryLineView
      ],
      ['demo_fact', { answer: '42' }, ExtractionView],
      // Data a dedicated view cannot read falls back to the generic card.
      ['todos', { not: 'a list' }, ExtractionView],
      ['todos', [{ status: 'pending' }], ExtractionView],
      ['reflection', { text: 'x' }, ExtractionView],
      ['display_inline', { display_type: 'hologram', data: 1 }, ExtractionView],
      ['skill_event', 'created', ExtractionView]
    ];
    for (const [type, data, view] of cases) {
      const created = createExtractionView(context, address, card(type, data));
      expect([type, created.constructor]).toEqual([type, view]);
      created.dispose();
    }
  });

  it('lets a plugin render a type, and undoes it', () => {
    const line = card('skill_event', { action: 'create' });
    const registration = registerExtractionRenderer('skill_event', () => null);
    expect(createExtractionView(context, address, line)).toBeInstanceOf(
      ExtractionView
    );
    registration.dispose();
    expect(createExtractionView(context, address, line)).toBeInstanceOf(
      SummaryLineView
    );
  });

  it('says event extractions in one line', () => {
    const say = (type: string, data: unknown) =>
      extractionSummary(type, data, trans);
    expect(
      say('skill_event', {
        action: 'create',
        extracted_subtype: 'skill_created',
        name: 'pdf-merging'
      })
    ).toBe('Skill created: pdf-merging');
    expect(say('skill_loaded', { loaded: true, body_chars: 1200 })).toBe(
      'Skill loaded (1,200 characters)'
    );
    expect(
      say('memory_updated', {
        action: 'replace',
        target: 'MEMORY.md',
        extracted_subtype: 'memory_replaced',
        index: 2
      })
    ).toBe('Memory replaced in MEMORY.md #2');
    expect(
      say('compression_summary', { before_tokens: 47000, after_tokens: 9000 })
    ).toBe('Context compressed: 47,000 → 9,000 tokens');
    expect(say('compression_summary', { skipped: true, reason: 'short' })).toBe(
      'Context compression skipped: short'
    );
    expect(say('memory_updated', { action: 'add' })).toBeNull();
  });

  it('renders display_inline HTML sanitized, and an image from a data URL', async () => {
    const html = createExtractionView(
      context,
      address,
      card('display_inline', {
        display_type: 'html',
        title: SUMMARY_TITLE,
        data: '<b>bold</b><img src=x onerror="alert(1)"><script>alert(2)</script>'
      })
    );
    Widget.attach(html.widget, document.body);
    html.update(card('display_inline', {}));
    await afterFrame();
    const node = html.widget.node;
    expect(
      node.querySelector('.jp-AgentPanel-extractionHeader')!.textContent
    ).toBe('Summary');
    expect(node.querySelector('b')!.textContent).toBe('bold');
    expect(node.querySelector('script')).toBeNull();
    expect(
      node.querySelector('img')?.getAttribute('onerror') ?? null
    ).toBeNull();
    html.dispose();

    const image = createExtractionView(
      context,
      address,
      card('display_inline', {
        display_type: 'image',
        data: 'data:image/png;base64,iVBORw0KGgo='
      })
    );
    Widget.attach(image.widget, document.body);
    image.update(card('display_inline', {}));
    await afterFrame();
    expect(image.widget.node.querySelector('img')!.getAttribute('src')).toBe(
      'data:image/png;base64,iVBORw0KGgo='
    );
    image.dispose();
  });

  it('shows a reflection as text, never as markup', () => {
    const view = createExtractionView(
      context,
      address,
      card('reflection', '<b>not bold</b>')
    );
    expect(view.widget.node.querySelector('b')).toBeNull();
    expect(view.widget.node.querySelector('blockquote')!.textContent).toBe(
      '<b>not bold</b>'
    );
    view.dispose();
  });
});
