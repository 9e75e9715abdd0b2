import './clipboard-shim';
import { Widget } from '@lumino/widgets';
import { ChatModel } from '../model/conversation/chat-model';
import { TranscriptView } from '../panel/transcript/transcript';
import { chunk, complete, FakeTransport, makeContext } from './panel-fakes';

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
});
