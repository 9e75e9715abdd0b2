import '../support/clipboard-shim';
import { Clipboard } from '@jupyterlab/apputils';
import { Signal } from '@lumino/signaling';
import { ChatModel } from '../../model/conversation/chat-model';
import { TranscriptView } from '../../panel/transcript/transcript';
import {
  afterFrame,
  chunk,
  click,
  complete,
  makeContext,
  renderedMarkdown,
  typesetNodes,
  type ITestContext
} from '../support/panel-fakes';
import { harness, result, tool } from './turn-harness';

afterEach(() => {
  document.body.replaceChildren();
});

describe('TurnView incremental updates', () => {
  it('renders a block at most once per frame and never re-renders earlier blocks', async () => {
    const h = harness();
    const sink = h.transport.lastTurn.sink;
    renderedMarkdown.length = 0;
    sink.frame(chunk('Hello ', { message_id: 'm1' }));
    sink.frame(chunk('there ', { message_id: 'm1' }));
    sink.frame(chunk('friend', { message_id: 'm1' }));
    await afterFrame();
    expect(renderedMarkdown).toEqual(['Hello there friend']);
    const first = h.turn().node.querySelector('.jp-AgentPanel-text')!;
    const firstHtml = first.innerHTML;

    h.push(tool({ q: 1 }));
    sink.frame(chunk('Second ', { message_id: 'm2' }));
    sink.frame(chunk('block', { message_id: 'm2' }));
    await afterFrame();
    expect(renderedMarkdown).toEqual(['Hello there friend', 'Second block']);
    const blocks = h.turn().node.querySelectorAll('.jp-AgentPanel-text');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toBe(first);
    expect(first.innerHTML).toBe(firstHtml);
    expect(blocks[1].textContent).toContain('Second block');
  });

  it('renders a text for the last time when a later item comes, not when the turn ends', async () => {
    const h = harness();
    const sink = h.transport.lastTurn.sink;
    renderedMarkdown.length = 0;
    sink.frame(chunk('Hello', { message_id: 'm1' }));
    await afterFrame();
    // Plain words are appended to the rendered text, not rendered.
    sink.frame(chunk(' there', { message_id: 'm1' }));
    await afterFrame();
    expect(renderedMarkdown).toEqual(['Hello']);

    h.push(tool({ q: 1 }));
    await afterFrame();
    expect(renderedMarkdown).toEqual(['Hello', 'Hello there']);
    sink.frame(complete());
    await afterFrame();
    expect(renderedMarkdown).toEqual(['Hello', 'Hello there']);
  });

  it('marks the turn and each item for context-menu hit tests', () => {
    const h = harness();
    h.transport.lastTurn.sink.frame(chunk('hi'));
    const turnNode = h.turn().node;
    expect(turnNode.dataset.turn).toBe(h.model.entries[1].key);
    const item = turnNode.querySelector<HTMLElement>('[data-item]')!;
    const key = h.model.findItem(
      turnNode.dataset.turn!,
      Number(item.dataset.item)
    );
    expect(key).toMatchObject({ kind: 'text', text: 'hi' });
  });

  it('opens reasoning while it streams and collapses it when the answer starts', () => {
    const h = harness();
    h.push({ status: 'streaming', reasoning: 'Let me think. ', node: 'agent' });
    const details = h
      .turn()
      .node.querySelector(
        'details.jp-AgentPanel-reasoning'
      ) as HTMLDetailsElement;
    expect(details.open).toBe(true);
    h.push({ status: 'streaming', reasoning: 'More.', node: 'agent' });
    expect(details.open).toBe(true);
    expect(details.textContent).toContain('Let me think. More.');
    h.transport.lastTurn.sink.frame(chunk('Answer'));
    expect(details.open).toBe(false);
    // The reader opens it again: the end of the turn leaves it open.
    details.open = true;
    h.transport.lastTurn.sink.frame(complete());
    expect(details.open).toBe(true);
  });

  it('collapses reasoning at the end of a turn with no answer', () => {
    const h = harness();
    h.push({ status: 'streaming', reasoning: 'Hmm', node: 'agent' });
    h.transport.lastTurn.sink.frame(complete());
    const details = h
      .turn()
      .node.querySelector('details') as HTMLDetailsElement;
    expect(details.open).toBe(false);
  });
});

describe('tool cards', () => {
  /** The card's Details, opened. */
  const details = (card: Element): HTMLElement => {
    const toggle = card.querySelector<HTMLButtonElement>(
      '.jp-AgentPanel-toolToggle'
    )!;
    if (toggle.getAttribute('aria-expanded') !== 'true') {
      click(toggle);
    }
    return card.querySelector<HTMLElement>('.jp-AgentPanel-toolDetails')!;
  };
  /** The keys and values of a key/value list, as `key=value`. */
  const pairs = (list: Element): string[] =>
    [...list.querySelectorAll('dt')].map(
      term => `${term.textContent}=${term.nextElementSibling!.textContent}`
    );

  it('is one line in words with its status and duration; Details has the arguments and result', () => {
    const h = harness();
    h.push(tool({ query: 'use a tool' }));
    const card = h
      .turn()
      .node.querySelector<HTMLElement>('.jp-AgentPanel-tool')!;
    expect(card.dataset.status).toBe('running');
    expect(card.querySelector('.jp-AgentPanel-toolStatus')!.textContent).toBe(
      'Running…'
    );
    expect(card.querySelector('.jp-AgentPanel-toolLabel')!.textContent).toBe(
      'lookup(query: "use a tool")'
    );
    expect(
      card.querySelector<HTMLElement>('.jp-AgentPanel-toolDetails')!.hidden
    ).toBe(true);
    const [argsList] = details(card).querySelectorAll('dl');
    expect(pairs(argsList)).toEqual(['query=use a tool']);

    h.push(result('{"answer": "42"}'));
    expect(card.dataset.status).toBe('success');
    expect(card.querySelector('.jp-AgentPanel-toolStatus')!.textContent).toBe(
      'Done'
    );
    expect(card.querySelector('.jp-AgentPanel-toolDuration')!.textContent).toBe(
      '1.2 s'
    );
    // A JSON result reads as keys and values, never as an escaped string.
    const lists = details(card).querySelectorAll('dl');
    expect(pairs(lists[1])).toEqual(['answer=42']);
    expect(card.textContent).not.toContain('{"answer"');
    expect(card.querySelector('.jp-AgentPanel-toolTruncated')).toBeNull();
  });

  it('caps a long result at maxToolResultChars with Show more, and says the server cut it', () => {
    const h = harness(makeContext({ maxToolResultChars: 100 }));
    h.push(tool({}));
    const long = 'x'.repeat(500) + '…(truncated)';
    h.push(result(long));
    const card = h.turn().node.querySelector('.jp-AgentPanel-tool')!;
    const shown = details(card);
    const pre = shown.querySelector('.jp-AgentPanel-valueBlock pre')!;
    const toggle = shown.querySelector<HTMLButtonElement>(
      '.jp-AgentPanel-valueBlock .jp-AgentPanel-showMore'
    )!;
    expect(pre.textContent).toBe('x'.repeat(100) + '…');
    expect(toggle.textContent).toBe('Show more');
    click(toggle);
    expect(pre.textContent).toBe(long);
    expect(
      shown.querySelector('.jp-AgentPanel-toolTruncated')!.textContent
    ).toBe(
      'The agent got the whole result; the server sent the panel its beginning only.'
    );
  });

  it('caps long argument values, names raw arguments, and says why a call failed', () => {
    const h = harness();
    h.push(tool({ content: 'y'.repeat(300), n: 1 }));
    const card = h.turn().node.querySelector('.jp-AgentPanel-tool')!;
    const args = details(card);
    expect(
      args.querySelector('.jp-AgentPanel-valueBlock pre')!.textContent
    ).toBe('y'.repeat(200) + '…');
    click(args.querySelector('.jp-AgentPanel-showMore'));
    expect(args.textContent).toContain('y'.repeat(300));

    h.push(tool({ _raw: '{not json' }, 'c2', 'broken'));
    const raw = h.turn().node.querySelectorAll('.jp-AgentPanel-tool')[1];
    expect(raw.querySelector('.jp-AgentPanel-toolLabel')!.textContent).toBe(
      'broken({not json)'
    );
    expect(details(raw).textContent).toContain('Arguments (not valid JSON)');
    h.push(
      result('Error: bad input', {
        id: 'c2',
        tool_status: 'error',
        duration_ms: null
      })
    );
    expect(raw.querySelector('.jp-AgentPanel-toolStatus')!.textContent).toBe(
      'Failed'
    );
    expect(
      raw.querySelector('.jp-AgentPanel-toolOutcome-failed')!.textContent
    ).toBe('Error: bad input');
    expect(
      raw.querySelector<HTMLElement>('.jp-AgentPanel-toolDuration')!.hidden
    ).toBe(true);
  });

  it('shows an orphan result and an unknown status neutrally', () => {
    const h = harness();
    h.push(result('done', { id: 'nobody', tool_status: undefined }));
    const card = h
      .turn()
      .node.querySelector<HTMLElement>('.jp-AgentPanel-tool')!;
    expect(card.textContent).toContain('A result with no matching tool call.');
    expect(card.dataset.status).toBe('unknown');
    expect(card.querySelector('.jp-AgentPanel-toolStatus')!.textContent).toBe(
      'Finished'
    );
  });

  it('a call still pending when the turn pauses waits for the review', () => {
    const h = harness();
    h.push(tool({ path: 'a' }));
    h.transport.lastTurn.sink.frame(complete('interrupted'));
    const card = h
      .turn()
      .node.querySelector<HTMLElement>('.jp-AgentPanel-tool')!;
    expect(card.dataset.status).toBe('waiting');
    expect(card.textContent).toContain('Waiting for your review');
  });
});

describe('a notebook change reviewed before it ran', () => {
  const NB = 'work/a.ipynb';
  const marker = {
    jupyterlab_agent_panel: {
      notebook_tool: 1,
      mutates: true,
      tool_call_id: 'call-1'
    }
  };

  /**
   * A call of insert_cell that pauses for its review, then its result in
   * the turn that resumes, after the call announced again (langstage-core)
   * or alone (an AG-UI producer).
   */
  function reviewedInsert(
    context: ITestContext = makeContext(),
    announcedAgain = true
  ) {
    const h = harness(context);
    h.push({
      status: 'streaming',
      tool_calls: [
        { name: 'insert_cell', args: { path: NB, source: 'x' }, id: 'call-1' }
      ]
    });
    h.push({
      status: 'interrupt',
      interrupt: {
        action_requests: [
          { name: 'insert_cell', args: { path: NB, source: 'x' }, ...marker }
        ],
        review_configs: [
          {
            action_name: 'insert_cell',
            allowed_decisions: ['respond', 'reject']
          }
        ],
        allowed_decisions: ['respond', 'reject']
      }
    });
    h.transport.lastTurn.sink.frame(complete('interrupted'));
    const paused = h.turn();
    const applied = {
      status: 'applied',
      path: NB,
      cell_id: 'new-1',
      index: 1,
      cell_type: 'code',
      source: 'x',
      edited_by_user: false
    };
    const resume = () => {
      h.model.answer([{ type: 'respond', message: JSON.stringify(applied) }]);
      if (announcedAgain) {
        h.push({
          status: 'streaming',
          tool_calls: [
            {
              name: 'insert_cell',
              args: { path: NB, source: 'x' },
              id: 'call-1'
            }
          ]
        });
      }
      h.push({
        status: 'streaming',
        tool_result: JSON.stringify(applied),
        id: 'call-1',
        name: 'insert_cell',
        tool_status: 'success',
        duration_ms: 2
      });
      h.transport.lastTurn.sink.frame(complete());
    };
    return { h, paused, resume };
  }

  it.each([true, false])(
    'is one card, in the turn that asked: the review card adds nothing, the result comes to it (announced again: %s)',
    announcedAgain => {
      const context = makeContext();
      context.review = { answeredByPlugin: () => true };
      context.showReview = jest.fn();
      const { h, paused, resume } = reviewedInsert(context, announcedAgain);
      const card = paused.node.querySelector<HTMLElement>(
        '.jp-AgentPanel-tool'
      )!;
      expect(card.dataset.status).toBe('waiting');
      expect(card.querySelector('.jp-AgentPanel-toolLabel')!.textContent).toBe(
        'Insert a code cell in a.ipynb'
      );
      // The diff card below the conversation is the one review.
      expect(
        paused.node.querySelector('.jp-AgentPanel-review')!.classList
      ).toContain('lm-mod-hidden');
      click(card.querySelector('.jp-AgentPanel-tool-review'));
      expect(context.showReview).toHaveBeenCalledTimes(1);

      resume();
      const visible = [
        ...h.view.node.querySelectorAll<HTMLElement>('.jp-AgentPanel-tool')
      ].filter(node => !node.classList.contains('lm-mod-hidden'));
      expect(visible).toEqual([card]);
      expect(card.dataset.status).toBe('success');
      expect(card.querySelector('.jp-AgentPanel-toolLabel')!.textContent).toBe(
        'Inserted a code cell in a.ipynb (cell 2)'
      );
      expect(
        card.querySelector('.jp-AgentPanel-toolOutcome')!.textContent
      ).toBe('You applied this change.');
      // Timed from the review: no duration is the call's.
      expect(
        card.querySelector<HTMLElement>('.jp-AgentPanel-toolDuration')!.hidden
      ).toBe(true);
    }
  );

  it('reveals the cell it names, and offers Undo while the change can be taken back', async () => {
    const context = makeContext();
    const revealed: unknown[] = [];
    context.revealCell = cell => revealed.push(cell);
    let state: 'applied' | 'undone' = 'applied';
    const undo = {
      changed: new Signal<never, string>({} as never),
      state: () => state,
      undo: jest.fn(async () => {
        state = 'undone';
        return null;
      })
    };
    context.undo = () => undo as never;
    const { paused, resume } = reviewedInsert(context);
    resume();
    const card = paused.node.querySelector<HTMLElement>('.jp-AgentPanel-tool')!;
    click(card.querySelector('.jp-AgentPanel-cellLink'));
    expect(revealed).toEqual([{ path: NB, cellId: 'new-1' }]);
    click(card.querySelector('.jp-AgentPanel-tool-undo'));
    await Promise.resolve();
    await Promise.resolve();
    expect(undo.undo).toHaveBeenCalledWith('call-1');
    expect(card.querySelector('.jp-AgentPanel-tool-undo')).toBeNull();
    expect(card.querySelector('.jp-AgentPanel-toolUndone')!.textContent).toBe(
      'Undone.'
    );
  });
});

describe('extraction cards', () => {
  const extraction = (data: unknown) => ({
    status: 'streaming',
    extraction: { tool_name: 'lookup', extracted_type: 'demo_fact', data }
  });

  it('shows a flat object as a key/value table, labelled, with JSON through rendermime', async () => {
    const h = harness();
    h.push(extraction({ query: 'use a tool', answer: '42' }));
    const card = h.turn().node.querySelector('.jp-AgentPanel-extraction')!;
    expect(
      card.querySelector('.jp-AgentPanel-extractionType')!.textContent
    ).toBe('demo_fact');
    expect(
      card.querySelector('.jp-AgentPanel-extractionTool')!.textContent
    ).toBe('from lookup');
    const rows = [...card.querySelectorAll('tr')].map(tr =>
      [...tr.children].map(cell => cell.textContent)
    );
    expect(rows).toEqual([
      ['Key', 'Value'],
      ['query', 'use a tool'],
      ['answer', '42']
    ]);
    // The JSON viewer is built when its (closed) section is opened.
    const json = card.querySelector<HTMLDetailsElement>(
      '.jp-AgentPanel-extractionJson'
    )!;
    await afterFrame();
    expect(json.querySelector('.jp-AgentPanel-extractionOutput')).toBeNull();
    json.open = true;
    json.dispatchEvent(new Event('toggle'));
    await afterFrame();
    expect(json.textContent).toContain('"answer": "42"');
  });

  it('shows a list of records as one row each, and never interprets markup in the data', () => {
    const h = harness();
    h.push(
      extraction([
        { task: '<img src=x onerror=alert(1)>', done: false },
        { task: 'ship', owner: 'ada' }
      ])
    );
    const table = h.turn().node.querySelector('.jp-AgentPanel-table')!;
    expect([...table.querySelectorAll('th')].map(th => th.textContent)).toEqual(
      ['task', 'done', 'owner']
    );
    expect(table.querySelector('img')).toBeNull();
    expect(table.querySelector('td')!.textContent).toBe(
      '<img src=x onerror=alert(1)>'
    );
    expect([...table.querySelectorAll('tbody tr')][1].textContent).toBe(
      'shipada'
    );
  });

  it('shows nested data as open JSON without a table', async () => {
    const h = harness();
    h.push(extraction({ nested: { a: [1, 2] } }));
    const card = h.turn().node.querySelector('.jp-AgentPanel-extraction')!;
    expect(card.querySelector('table')).toBeNull();
    expect(
      (
        card.querySelector(
          '.jp-AgentPanel-extractionJson'
        ) as HTMLDetailsElement
      ).open
    ).toBe(true);
  });

  it('gives extraction actions the turn and item keys', async () => {
    const context = makeContext({}, [
      { command: 'test:insert', target: 'extraction' }
    ]);
    const calls: unknown[] = [];
    context.commands.addCommand('test:insert', {
      label: context.trans.__('Insert into notebook'),
      describedBy: { args: { type: 'object', properties: {} } },
      execute: args => {
        calls.push(args);
      }
    });
    const h = harness(context);
    h.push(extraction({ a: 1 }));
    const button = h
      .turn()
      .node.querySelector<HTMLButtonElement>(
        '.jp-AgentPanel-extraction [data-command="test:insert"]'
      )!;
    expect(button.textContent).toBe('Insert into notebook');
    click(button);
    const item = h.model.findItem(
      h.model.entries[1].key,
      (calls[0] as any).item
    );
    expect(calls[0]).toEqual({
      turn: h.model.entries[1].key,
      item: (item as any).key
    });
    expect(item).toMatchObject({ kind: 'extraction', data: { a: 1 } });
  });
});

describe('text blocks', () => {
  it('gives each code block Copy and the code actions, and the block its message actions', async () => {
    const context = makeContext({}, [
      { command: 'test:code', target: 'code' },
      { command: 'test:message', target: 'message' }
    ]);
    const codeCalls: unknown[] = [];
    context.commands.addCommand('test:code', {
      label: context.trans.__('Insert cell'),
      describedBy: { args: { type: 'object', properties: {} } },
      execute: args => {
        codeCalls.push(args);
      }
    });
    context.commands.addCommand('test:message', {
      label: context.trans.__('Quote'),
      describedBy: { args: { type: 'object', properties: {} } },
      execute: () => undefined
    });
    const h = harness(context);
    h.transport.lastTurn.sink.frame(
      chunk('Run:\n\n```python\nprint(1)\n```\n')
    );
    await afterFrame();
    const node = h.turn().node;
    const copy = jest
      .spyOn(Clipboard, 'copyToSystem')
      .mockImplementation(() => undefined);
    click(node.querySelector('.jp-AgentPanel-copy'));
    expect(copy).toHaveBeenCalledWith('print(1)\n');
    click(node.querySelector('[data-command="test:code"]'));
    expect(codeCalls).toEqual([{ code: 'print(1)\n', language: 'python' }]);
    expect(
      node.querySelector('[data-command="test:message"]')!.textContent
    ).toBe('Quote');
  });

  it('typesets LaTeX: the markdown renderer is an attached child widget', async () => {
    const h = harness();
    typesetNodes.length = 0;
    h.transport.lastTurn.sink.frame(chunk('Euler: $e^{i\\pi}+1=0$'));
    await afterFrame();
    const rendered = h.turn().node.querySelector('.jp-RenderedMarkdown');
    expect(typesetNodes.length).toBeGreaterThan(0);
    expect(typesetNodes.every(node => node === rendered)).toBe(true);
  });

  it('renders markdown sanitized', async () => {
    const h = harness();
    h.transport.lastTurn.sink.frame(
      chunk('**bold** <script>window.hacked = 1</script><b onclick="x()">b</b>')
    );
    await afterFrame();
    const text = h.turn().node.querySelector('.jp-AgentPanel-text')!;
    expect(text.querySelector('strong')!.textContent).toBe('bold');
    expect(text.querySelector('script')).toBeNull();
    expect(text.querySelector('b')!.getAttribute('onclick')).toBeNull();
  });
});

describe('turn footer', () => {
  it('shows the error under the partial content, a collapsible traceback and Retry', () => {
    const h = harness();
    h.transport.lastTurn.sink.frame(chunk('partial'));
    h.push({
      status: 'error',
      error: 'RuntimeError: boom',
      traceback: 'Traceback…'
    });
    const node = h.turn().node;
    const banner = node.querySelector('.jp-AgentPanel-error')!;
    expect(banner.getAttribute('role')).toBe('alert');
    expect(banner.textContent).toContain('RuntimeError: boom');
    expect(banner.querySelector('details summary')!.textContent).toBe(
      'Traceback'
    );
    // The banner comes after the partial text.
    const text = node.querySelector('.jp-AgentPanel-text')!;
    expect(
      text.compareDocumentPosition(banner) & Node.DOCUMENT_POSITION_FOLLOWING
    ).toBeTruthy();
    click(banner.querySelector('.jp-AgentPanel-retry'));
    expect(h.context.retries).toBe(1);
  });

  it('explains an unexpected end of stream and offers Retry only on the latest turn', () => {
    const h = harness();
    h.transport.lastTurn.sink.end();
    const first = h.turn();
    expect(first.node.textContent).toContain('The stream ended unexpectedly');
    expect(first.node.querySelector('.jp-AgentPanel-retry')).not.toBeNull();
    h.model.send('again');
    expect(first.node.querySelector('.jp-AgentPanel-retry')).toBeNull();
  });

  it('shows the stop note and the page-reload note', () => {
    const h = harness();
    h.push({ status: 'cancelled', message: 'Execution cancelled by user' });
    expect(h.turn().node.textContent).toContain(
      'Stopped: Execution cancelled by user'
    );

    const model = new ChatModel('t2');
    model.restore({
      threadId: 't2',
      entries: [
        {
          kind: 'turn',
          key: 'k',
          request: { kind: 'chat', threadId: 't2', message: 'x' },
          state: {
            items: [],
            outcome: null,
            error: null,
            cancelMessage: null,
            diagnostics: []
          },
          startedAt: 1,
          endedAt: null
        }
      ]
    });
    const view = new TranscriptView(model, makeContext());
    expect(view.turnView('k')!.node.textContent).toContain(
      'Interrupted by a page reload: the answer above is incomplete.'
    );
    view.dispose();
  });

  it('lists stream notes in a collapsed block', () => {
    const h = harness();
    h.transport.lastTurn.sink.diagnostic('dropped a malformed frame');
    const notes = h
      .turn()
      .node.querySelector(
        'details.jp-AgentPanel-diagnostics'
      ) as HTMLDetailsElement;
    expect(notes.open).toBe(false);
    expect(notes.textContent).toContain('1 stream note');
    expect(notes.textContent).toContain('dropped a malformed frame');
  });
});
