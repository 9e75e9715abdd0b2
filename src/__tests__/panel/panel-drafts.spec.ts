/**
 * The message box's unsent draft, kept per conversation in the tab's
 * storage (`model/persistence/drafts.ts`): found again after a reload (a new
 * panel, service and library on the same storage and store), forgotten when
 * sent, one per conversation when switching, the draft of a conversation
 * without a message kept as the new conversation's.
 */
import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import { ConversationLibrary } from '../../model/library/library';
import { ConversationSession } from '../../model/conversation/session';
import {
  ConversationDraft,
  draftKey,
  MemoryDraftStore
} from '../../model/persistence/drafts';
import { ChatPanel } from '../../panel/chat-panel';
import {
  complete,
  FakeTransport,
  makeContext,
  trans,
  typeInto,
  waitFor
} from '../support/panel-fakes';
import { FakeConversationStore } from '../support/store-fakes';

const disposables: { dispose(): void }[] = [];

afterEach(() => {
  disposables
    .splice(0)
    .reverse()
    .forEach(item => item.dispose());
  document.body.replaceChildren();
  jest.restoreAllMocks();
});

/** A tab: its panel on `drafts` (the tab's storage) and the server's `store`. */
async function openTab(
  drafts: MemoryDraftStore,
  store = new FakeConversationStore()
) {
  const transport = new FakeTransport();
  const service = new AgentPanelService(new ChatModel(undefined, trans), {
    trans
  });
  service.registerTransport('http', () => transport);
  // As in the plugin, the library's unload copies and the drafts share the tab's storage.
  const library = new ConversationLibrary({
    service,
    store,
    threads: null,
    state: null,
    trans,
    saver: { unloadStore: drafts, page: new EventTarget() }
  });
  await library.start();
  const context = makeContext();
  const panel = new ChatPanel({
    service,
    library,
    rendermime: context.rendermime,
    trans,
    commands: context.commands,
    drafts
  });
  Widget.attach(panel, document.body);
  disposables.push(service, library, panel);
  const input = panel.node.querySelector<HTMLTextAreaElement>(
    '.jp-AgentPanel-input'
  )!;
  const send = (text: string) => {
    typeInto(input, text);
    input.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
    );
    transport.lastTurn.sink.frame(complete());
  };
  return { panel, service, library, store, transport, input, send };
}

/** Once the store holds conversation `id`'s messages (a release saves them a moment later). */
async function saved(store: FakeConversationStore, id: string): Promise<void> {
  await waitFor(
    () =>
      store.puts.some(put => put.id === id && put.update.entries?.length) ||
      null
  );
}

describe('ConversationDraft', () => {
  const sessionOf = () => {
    const model = new ChatModel('thread-1', trans);
    model.transport = new FakeTransport();
    return new ConversationSession('c-1', model, trans);
  };

  it('keeps the draft of a conversation without a message as the new conversation’s', () => {
    const drafts = new MemoryDraftStore();
    const session = sessionOf();
    const draft = new ConversationDraft(session, drafts);
    draft.write('first words');
    expect(drafts.getItem(draftKey(null))).toBe('first words');
    expect(new ConversationDraft(sessionOf(), drafts).read()).toBe(
      'first words'
    );
  });

  it('moves it to the conversation once it has a message, and forgets it when empty', () => {
    const drafts = new MemoryDraftStore();
    const session = sessionOf();
    const draft = new ConversationDraft(session, drafts);
    draft.write('first words');
    session.model.send('hello');
    draft.write('more words');
    expect(drafts.getItem(draftKey(null))).toBeNull();
    expect(drafts.getItem(draftKey('c-1'))).toBe('more words');
    expect(draft.read()).toBe('more words');
    draft.write('');
    expect(drafts.getItem(draftKey('c-1'))).toBeNull();
    session.dispose();
  });

  it('loses the draft, not the typing, when the storage is full', () => {
    const drafts = new MemoryDraftStore();
    jest.spyOn(drafts, 'setItem').mockImplementation(() => {
      throw new Error('QuotaExceededError');
    });
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    new ConversationDraft(sessionOf(), drafts).write('words');
    expect(warn).toHaveBeenCalledWith(
      'Agent Panel: the draft could not be kept.',
      expect.any(Error)
    );
  });
});

describe('the message box’s draft', () => {
  it('is found again after a reload, in the conversation it was typed in', async () => {
    const drafts = new MemoryDraftStore();
    const first = await openTab(drafts);
    first.send('hello');
    const id = first.service.current.id;
    typeInto(first.input, 'a question I have not sent');
    await saved(first.store, id);
    expect(drafts.getItem(draftKey(id))).toBe('a question I have not sent');

    // The reload: a new tab's objects on the same storage and store.
    const second = await openTab(drafts, first.store);
    expect(second.input.value).toBe('');
    await second.library.open(id);
    expect(second.service.current.id).toBe(id);
    expect(second.input.value).toBe('a question I have not sent');
  });

  it('of a conversation without a message comes back in the new one a reload shows', async () => {
    const drafts = new MemoryDraftStore();
    const first = await openTab(drafts);
    typeInto(first.input, 'first words');
    const second = await openTab(drafts, first.store);
    expect(second.service.current.id).not.toBe(first.service.current.id);
    expect(second.input.value).toBe('first words');
  });

  it('is forgotten once sent, and queued messages take theirs with them', async () => {
    const drafts = new MemoryDraftStore();
    const { input, send, service, transport } = await openTab(drafts);
    typeInto(input, 'hello');
    send('hello');
    expect(input.value).toBe('');
    expect(drafts.getItem(draftKey(null))).toBeNull();
    expect(drafts.getItem(draftKey(service.current.id))).toBeNull();
    service.model.send('a long turn');
    typeInto(input, 'queued');
    input.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })
    );
    expect(service.queue.items.map(item => item.text)).toEqual(['queued']);
    expect(drafts.getItem(draftKey(service.current.id))).toBeNull();
    transport.lastTurn.sink.frame(complete());
  });

  it('is one per conversation when switching between them', async () => {
    const drafts = new MemoryDraftStore();
    const { input, send, service, library, store } = await openTab(drafts);
    send('first conversation');
    const first = service.current.id;
    typeInto(input, 'draft of the first');
    library.create();
    expect(input.value).toBe('');
    send('second conversation');
    typeInto(input, 'draft of the second');
    await saved(store, first);
    await library.open(first);
    expect(input.value).toBe('draft of the first');
    library.create();
    expect(input.value).toBe('');
  });

  it('keeps what a command put in the box, and what an @ mention left there', async () => {
    const drafts = new MemoryDraftStore();
    const { panel, input, send, service, library } = await openTab(drafts);
    send('hello');
    const id = service.current.id;
    panel.composer.setDraft('Explain this error');
    expect(drafts.getItem(draftKey(id))).toBe('Explain this error');
    // Written by code, as the @ completer does: no input event.
    input.value = 'look at ';
    library.create();
    expect(drafts.getItem(draftKey(id))).toBe('look at ');
  });

  it('is dropped with its conversation', async () => {
    const drafts = new MemoryDraftStore();
    const first = await openTab(drafts);
    first.send('hello');
    const id = first.service.current.id;
    typeInto(first.input, 'unsent');
    first.library.create();
    expect(drafts.getItem(draftKey(id))).toBe('unsent');
    await first.library.remove(id);
    expect(drafts.getItem(draftKey(id))).toBeNull();
  });
});
