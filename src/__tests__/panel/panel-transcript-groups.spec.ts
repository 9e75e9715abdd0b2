import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import { ChatModel } from '../../model/conversation/chat-model';
import { ToolCalls } from '../../panel/transcript/tool-calls';
import {
  LIVE_ENTRIES,
  TranscriptView
} from '../../panel/transcript/transcript';
import type { IToolCard } from '../../wire/types';
import {
  chunk,
  complete,
  FakeTransport,
  makeContext
} from '../support/panel-fakes';

afterEach(() => {
  document.body.replaceChildren();
});

describe('TranscriptView groups', () => {
  it('keeps a long conversation in a few groups of entries, in order', () => {
    const model = new ChatModel('t1');
    const transport = new FakeTransport();
    model.transport = transport;
    const view = new TranscriptView(model, makeContext());
    Widget.attach(view, document.body);
    for (let turn = 0; turn < 40; turn++) {
      model.send(`question ${turn}`);
      transport.lastTurn.sink.frame(chunk(`answer ${turn}`));
      transport.lastTurn.sink.frame(complete());
    }
    // 80 entries (a message and a turn each), 32 to a group.
    const groups = [...view.node.children];
    expect(groups).toHaveLength(3);
    expect(
      groups.every(group =>
        group.classList.contains('jp-AgentPanel-transcriptGroup')
      )
    ).toBe(true);
    const messages = view.node.querySelectorAll('.jp-AgentPanel-user');
    expect(messages).toHaveLength(40);
    expect(messages[39].textContent).toBe('question 39');
    expect(view.turnView(model.entries[79].key)!.node.parentElement).toBe(
      groups[2]
    );

    // Another (empty) conversation shown in this model: the view rebuilds.
    model.restore({ threadId: 't2', entries: [] });
    expect(view.node.children).toHaveLength(0);
  });

  it('keeps its latest entries built while it grows under a reader at its end', () => {
    const model = new ChatModel('t1');
    const transport = new FakeTransport();
    model.transport = transport;
    const view = new TranscriptView(model, makeContext());
    Widget.attach(view, document.body);
    const built = () => model.entries.length - view.hiddenEntries;
    const turns = () => view.node.querySelectorAll('.jp-AgentPanel-turn');
    // 600 entries, as a long run that pauses for each change makes.
    for (let turn = 0; turn < 300; turn++) {
      model.send(`question ${turn}`);
      transport.lastTurn.sink.frame(chunk(`answer ${turn}`));
      transport.lastTurn.sink.frame(complete());
      // The work of each new entry does not grow with the conversation.
      expect(built()).toBeLessThanOrEqual(LIVE_ENTRIES);
      expect(turns().length).toBeLessThanOrEqual(LIVE_ENTRIES / 2);
    }
    const messages = () => view.node.querySelectorAll('.jp-AgentPanel-user');
    expect(messages()[messages().length - 1].textContent).toBe('question 299');
    expect(view.turnView(model.entries[0].key)).toBeUndefined();
    expect(view.node.firstElementChild!.textContent).toBe(
      'Show earlier messages'
    );

    // What was let go is built again, in order, when the reader scrolls up.
    while (view.hiddenEntries > 0) {
      view.showEarlier();
    }
    expect(messages()).toHaveLength(300);
    expect(messages()[0].textContent).toBe('question 0');
    expect(view.turnView(model.entries[1].key)).toBeDefined();
    view.dispose();
  });
});

describe('ToolCalls', () => {
  const home = () => ({
    shown: [] as IToolCard[],
    resultArrived(r: IToolCard) {
      this.shown.push(r);
    }
  });
  const result = { kind: 'tool', callId: 'c1', status: 'success' } as IToolCard;

  it('gives the result of a later turn to the card that shows the call', () => {
    const calls = new ToolCalls();
    const first = home();
    expect(calls.homeOf('c1', first)).toBe(first);
    expect(calls.homeOf('c1', home())).toBe(first);
    calls.deliver('c1', result);
    expect(first.shown).toEqual([result]);
  });

  it('lets a disposed card go: the card built next shows the call and knows its result', () => {
    const calls = new ToolCalls();
    const first = home();
    calls.homeOf('c1', first);
    calls.deliver('c1', result);
    calls.release('c1', home()); // not its home: nothing changes
    expect(calls.homeOf('c1', home())).toBe(first);
    calls.release('c1', first);
    const again = home();
    expect(calls.homeOf('c1', again)).toBe(again);
    expect(calls.resultOf('c1')).toBe(result);
  });
});
