/**
 * The conversation views: a long conversation opens with its last entries
 * and builds earlier ones on demand; the list of conversations opens,
 * renames, filters and deletes (after confirming); the panel follows the
 * conversation shown.
 */
import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import type { ChatEntry } from '../../model/conversation/chat/chat-entries';
import type { ConversationLibrary } from '../../model/library/library';
import { ChatPanel } from '../../panel/chat-panel';
import { ConversationListView } from '../../panel/library/conversation-list';
import {
  OPENING_ENTRIES,
  TranscriptView
} from '../../panel/transcript/transcript';
import {
  chunk,
  click,
  complete,
  FakeTransport,
  libraryFor,
  makeContext,
  trans,
  typeInto,
  waitFor
} from '../support/panel-fakes';
import { FakeConversationStore } from '../support/store-fakes';

const disposables: { dispose(): void }[] = [];
afterEach(() => {
  disposables.splice(0).forEach(d => d.dispose());
  document.body.replaceChildren();
});

/** A model holding `turns` finished turns. */
function longModel(turns: number): ChatModel {
  const model = new ChatModel('long', trans);
  const entries: ChatEntry[] = [];
  for (let i = 0; i < turns; i++) {
    entries.push({
      kind: 'user',
      key: `u${i}`,
      text: `question ${i}`,
      context: null,
      time: i
    });
    entries.push({
      kind: 'turn',
      key: `t${i}`,
      request: null,
      state: {
        items: [{ kind: 'text', key: 0, text: `answer ${i}`, node: 'agent' }],
        outcome: 'complete',
        error: null,
        usage: null,
        notes: [],
        diagnostics: []
      } as never,
      startedAt: i,
      endedAt: i
    });
  }
  model.restore({ threadId: 'long', entries });
  return model;
}

describe('a long conversation in the transcript', () => {
  it('opens with its last entries and builds earlier ones a batch at a time', () => {
    const model = longModel(1000);
    const view = new TranscriptView(model, makeContext());
    disposables.push(view, model);
    Widget.attach(view, document.body);
    const messages = () => view.node.querySelectorAll('.jp-AgentPanel-user');
    expect(messages()).toHaveLength(OPENING_ENTRIES / 2);
    expect(messages()[messages().length - 1].textContent).toBe('question 999');
    expect(view.hiddenEntries).toBe(2000 - OPENING_ENTRIES);
    expect(view.turnView('t0')).toBeUndefined();

    const earlier = view.node.querySelector<HTMLElement>(
      '.jp-AgentPanel-earlier'
    )!;
    expect(earlier.textContent).toBe('Show earlier messages');
    click(earlier);
    expect(messages()).toHaveLength(OPENING_ENTRIES);
    // In order, the earlier batch before the first shown.
    expect(messages()[0].textContent).toBe(
      `question ${1000 - OPENING_ENTRIES}`
    );
    while (view.hiddenEntries > 0) {
      view.showEarlier();
    }
    expect(messages()).toHaveLength(1000);
    expect(messages()[0].textContent).toBe('question 0');
    expect(view.node.querySelector('.jp-AgentPanel-earlier')).toBeNull();
    expect(view.turnView('t0')).toBeDefined();
  });

  it('a short conversation shows everything, without the button', () => {
    const model = longModel(3);
    const view = new TranscriptView(model, makeContext());
    disposables.push(view, model);
    Widget.attach(view, document.body);
    expect(view.node.querySelectorAll('.jp-AgentPanel-user')).toHaveLength(3);
    expect(view.node.querySelector('.jp-AgentPanel-earlier')).toBeNull();
  });
});

/** A panel on a library whose store is `store`, with one finished conversation per title. */
async function panelWith(
  titles: string[],
  store = new FakeConversationStore()
) {
  const transport = new FakeTransport();
  const service = new AgentPanelService(new ChatModel(undefined, trans), {
    trans
  });
  service.registerTransport('http', () => transport);
  const library = libraryFor(service, store);
  await library.start();
  titles.forEach((title, index) => {
    if (index > 0) {
      library.create();
    }
    service.model.send(title);
    transport.lastTurn.sink.frame(chunk(`answer to ${title}`));
    transport.lastTurn.sink.frame(complete());
  });
  const context = makeContext();
  const panel = new ChatPanel({
    service,
    library,
    rendermime: context.rendermime,
    trans,
    commands: context.commands
  });
  Widget.attach(panel, document.body);
  disposables.push(panel, library, service);
  await waitFor(() => store.puts.length >= titles.length || null);
  return { service, library, panel, transport, store };
}

function listOf(library: ConversationLibrary) {
  const list = new ConversationListView(library, trans);
  disposables.push(list);
  Widget.attach(list, document.body);
  const rows = () => [
    ...list.node.querySelectorAll<HTMLElement>('.jp-AgentPanel-conversation')
  ];
  const titles = () =>
    rows().map(
      r => r.querySelector('.jp-AgentPanel-conversationTitle')!.textContent
    );
  const rowOf = (title: string) =>
    rows().find(r => r.textContent!.includes(title))!;
  return { list, rows, titles, rowOf };
}

describe('ConversationListView', () => {
  it('lists the conversations with their badge, and opens one', async () => {
    const { service, library } = await panelWith(['first', 'second']);
    const { titles, rowOf } = listOf(library);
    await waitFor(() => titles().length === 2 || null);
    expect(titles()).toContain('first');
    // Cut in a narrow panel, the title is whole in the tooltip.
    expect(
      rowOf('first').querySelector<HTMLElement>(
        '.jp-AgentPanel-conversationOpen'
      )!.title
    ).toBe('first');
    expect(rowOf('second').classList.contains('jp-mod-current')).toBe(true);
    service.model.send('busy');
    expect(
      rowOf('second').querySelector('.jp-AgentPanel-conversationBadge')
        ?.textContent
    ).toBe('running');

    click(rowOf('first').querySelector('.jp-AgentPanel-conversationOpen'));
    await waitFor(() => (service.current.title === 'first' ? true : null));
    expect(service.model.entries[0]).toMatchObject({ text: 'first' });
  });

  it('renames inline: Enter renames, Escape cancels', async () => {
    const { library, service } = await panelWith(['old title']);
    const { rowOf, titles } = listOf(library);
    await waitFor(() => titles().length === 1 || null);
    click(
      rowOf('old title').querySelector('.jp-AgentPanel-conversation-rename')
    );
    const input = document.querySelector<HTMLInputElement>(
      '.jp-AgentPanel-conversationRename'
    )!;
    input.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })
    );
    expect(titles()).toEqual(['old title']);

    click(
      rowOf('old title').querySelector('.jp-AgentPanel-conversation-rename')
    );
    typeInto(
      document.querySelector('.jp-AgentPanel-conversationRename'),
      'new title'
    );
    document
      .querySelector('.jp-AgentPanel-conversationRename')!
      .dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
      );
    await waitFor(() => (titles()[0] === 'new title' ? true : null));
    expect(service.current.title).toBe('new title');
  });

  it('deletes only after the user confirms', async () => {
    const { library, store } = await panelWith(['keep', 'drop']);
    const { rowOf, titles } = listOf(library);
    await waitFor(() => titles().length === 2 || null);
    const id = rowOf('keep').dataset.id!;
    click(rowOf('keep').querySelector('.jp-AgentPanel-conversation-delete'));
    const cancel = await waitFor(() =>
      document.querySelector<HTMLElement>('.jp-Dialog .jp-mod-reject')
    );
    expect(document.querySelector('.jp-Dialog')!.textContent).toContain(
      'Delete "keep"?'
    );
    click(cancel);
    await waitFor(() => (document.querySelector('.jp-Dialog') ? null : true));
    expect(store.has(id)).toBe(true);

    click(rowOf('keep').querySelector('.jp-AgentPanel-conversation-delete'));
    click(
      await waitFor(() =>
        document.querySelector<HTMLElement>('.jp-Dialog .jp-mod-accept')
      )
    );
    await waitFor(() => (titles().length === 1 ? true : null));
    expect(titles()).toEqual(['drop']);
    expect(store.has(id)).toBe(false);
  });

  it('filters through the store and says when nothing matches', async () => {
    jest.useFakeTimers();
    try {
      const { library } = await panelWith(['apples', 'pears']);
      const { list, titles } = listOf(library);
      const filter = list.node.querySelector('input')!;
      typeInto(filter, 'answer to pears');
      await jest.advanceTimersByTimeAsync(300);
      // The store searched the entries (the answer's text is in none of the titles).
      expect(titles()).toEqual(['pears']);
      typeInto(filter, 'plums');
      await jest.advanceTimersByTimeAsync(300);
      expect(titles()).toEqual([]);
      expect(list.node.textContent).toContain('No conversation matches.');
    } finally {
      jest.useRealTimers();
    }
  });

  it('says so when the server keeps no conversations', async () => {
    const store = new FakeConversationStore();
    store.missing = true;
    const { library, panel } = await panelWith([], store);
    const { list } = listOf(library);
    expect(list.node.textContent).toContain(
      'This Jupyter server does not keep conversations'
    );
    expect(
      panel.node.querySelector('.jp-AgentPanel-conversationNotice')!.textContent
    ).toContain('stays in this browser tab only');
  });
});

describe('ChatPanel and the conversation shown', () => {
  it('shows the transcript of the conversation opened, and the list from its button', async () => {
    const { panel, library, service } = await panelWith(['one', 'two']);
    const users = () =>
      [...panel.node.querySelectorAll('.jp-AgentPanel-user')].map(
        n => n.textContent
      );
    expect(users()).toEqual(['two']);
    const first = library.items.find(i => i.title === 'one')!;
    await library.open(first.id);
    expect(users()).toEqual(['one']);
    expect(service.current.id).toBe(first.id);

    panel.toggleConversations(true);
    expect(panel.conversations.isHidden).toBe(false);
    expect(
      panel.node.querySelector<HTMLElement>('.jp-AgentPanel-transcriptArea')!
        .classList
    ).toContain('lm-mod-hidden');
    panel.toggleConversations();
    expect(panel.conversations.isHidden).toBe(true);
  });
});
