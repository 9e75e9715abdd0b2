import { memoryBefore } from '../../agui/thread';
import { BranchTree } from '../../model/conversation/chat/branches';
import { ChatModel } from '../../model/conversation/chat-model';
import type {
  ChatEntry,
  ITurnEntry,
  IUserEntry
} from '../../model/conversation/chat/chat-entries';
import { ConversationSession } from '../../model/conversation/session';
import { readSnapshot, snapshotOf } from '../../model/persistence/persistence';
import { ConversationSaver } from '../../model/persistence/saver';
import type { JsonObject } from '../../wire/json';
import {
  chunk,
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';
import { FakeConversationStore, MemoryStorage } from '../support/store-fakes';

interface INode {
  key: string;
  parent?: string | null;
  chosen?: number;
}

describe('BranchTree', () => {
  it('reads entries saved before branches as one line', () => {
    const tree = new BranchTree<INode>([
      { key: 'a' },
      { key: 'b' },
      { key: 'c' }
    ]);
    expect(tree.path().map(n => n.key)).toEqual(['a', 'b', 'c']);
    expect(tree.parentOf('c')).toBe('b');
    expect(tree.siblings('b')).toMatchObject({ index: 0, count: 1 });
  });

  it('shows the sibling chosen last, else the one added last', () => {
    const tree = new BranchTree<INode>([
      { key: 'a', parent: null },
      { key: 'b', parent: 'a' },
      { key: 'c', parent: 'b' },
      { key: 'b2', parent: 'a' },
      { key: 'c2', parent: 'b2' }
    ]);
    expect(tree.path().map(n => n.key)).toEqual(['a', 'b2', 'c2']);
    tree.choose('b');
    expect(tree.path().map(n => n.key)).toEqual(['a', 'b', 'c']);
    expect(tree.siblings('b2')).toMatchObject({ index: 1, count: 2 });
    expect(tree.leafUnder('b2')?.key).toBe('c2');
    // The choice is saved with the entries: a tree read again shows the same branch.
    const again = new BranchTree<INode>(tree.all.map(node => ({ ...node })));
    expect(again.path().map(n => n.key)).toEqual(['a', 'b', 'c']);
    again.choose('b2');
    expect(again.path().map(n => n.key)).toEqual(['a', 'b2', 'c2']);
  });

  it('names a parent only when it is not the entry added last, so two tabs appending stay on one line', () => {
    const tree = new BranchTree<INode>([{ key: 'a' }, { key: 'b' }]);
    const c: INode = { key: 'c' };
    tree.append(c, 'b');
    const fork: INode = { key: 'b2' };
    tree.append(fork, 'a');
    const d: INode = { key: 'd' };
    tree.append(d, 'c');
    expect([c.parent, fork.parent, d.parent]).toEqual([undefined, 'a', 'c']);
    // Another tab appended "x" after "b" too, saved before "c": read back,
    // the entries without a parent follow the one saved before them.
    const stored = [{ key: 'a' }, { key: 'b' }, { key: 'x' }, c, fork, d];
    expect(new BranchTree<INode>(stored).path().map(n => n.key)).toEqual([
      'a',
      'b2'
    ]);
    const again = new BranchTree<INode>(stored);
    again.choose('b');
    expect(again.path().map(n => n.key)).toEqual(['a', 'b', 'x', 'c', 'd']);
  });

  it('takes a parent it does not hold (yet) as the entry saved before', () => {
    const tree = new BranchTree<INode>([
      { key: 'a', parent: null },
      { key: 'b', parent: 'later' },
      { key: 'later', parent: 'a' },
      { key: 'a', parent: null }
    ]);
    expect(tree.parentOf('b')).toBe('a');
    expect(tree.all.map(n => n.key)).toEqual(['a', 'b', 'later']);
    expect(tree.siblings('later')).toMatchObject({ index: 1, count: 2 });
  });
});

/** A turn's frames as this project's server sends them (docs/protocol.md §5.10). */
function answer(
  transport: FakeTransport,
  text: string,
  start: string | null,
  end: string,
  outcome = 'complete'
): void {
  const { sink } = transport.lastTurn;
  sink.frame(chunk(text, { checkpoint_id: start }));
  sink.frame(frame({ status: 'complete', outcome, end_checkpoint_id: end }));
  sink.end();
}

const ASK = frame({
  status: 'interrupt',
  interrupt: {
    action_requests: [{ action: 'ask_user', args: { question: 'Name?' } }],
    review_configs: [],
    allowed_decisions: ['respond']
  }
});

function texts(entries: readonly ChatEntry[]): string[] {
  return entries.map(entry =>
    entry.kind === 'user'
      ? entry.text
      : entry.state.items
          .map(item => (item.kind === 'text' ? item.text : ''))
          .join('')
  );
}

/** Disposed after each test. */
const models: ChatModel[] = [];
afterEach(() => models.splice(0).forEach(model => model.dispose()));

function withTransport<T extends FakeTransport>(
  transport: T
): { model: ChatModel; transport: T } {
  const model = new ChatModel('thread-1', trans);
  models.push(model);
  model.transport = transport;
  return { model, transport };
}

/** Three turns: each started at the checkpoint the previous one ended at. */
function threeTurns(): { model: ChatModel; transport: FakeTransport } {
  const { model, transport } = withTransport(new FakeTransport());
  ['one', 'two', 'three'].forEach((text, index) => {
    model.send(text);
    answer(
      transport,
      `A${index + 1}`,
      index === 0 ? null : `c${index}`,
      `c${index + 1}`
    );
  });
  return { model, transport };
}

describe('ChatModel branches', () => {
  it('edits an earlier message: the agent goes back to the checkpoint before it, on a new branch', () => {
    const { model, transport } = threeTurns();
    const two = model.entries[2] as IUserEntry;

    model.edit(two.key, 'TWO');

    expect(transport.lastTurn.request).toMatchObject({
      kind: 'chat',
      message: 'TWO',
      fork: { checkpointId: 'c1' }
    });
    answer(transport, 'B2', 'c1-copy', 'c4');
    expect(texts(model.entries)).toEqual(['one', 'A1', 'TWO', 'B2']);
    expect(model.allEntries).toHaveLength(8);
    const edited = model.entries[2];
    expect(model.siblings(edited.key)).toMatchObject({ index: 1, count: 2 });

    // The next message goes on from where the thread is: no fork.
    model.send('and on');
    expect(transport.lastTurn.request.fork).toBeUndefined();
  });

  it('tells which turns a move leaves behind, for the notebook rewind', () => {
    const { model, transport } = threeTurns();
    const moves: string[][] = [];
    model.branchMoved.connect((_, move) => moves.push(texts(move.left)));
    model.edit(model.entries[2].key, 'TWO');
    answer(transport, 'B2', 'c1-copy', 'c4');
    model.showBranch(model.siblings(model.entries[2].key).entries[0].key);
    expect(moves).toEqual([['A2', 'A3'], ['B2']]);
  });

  it('editing the first message goes back to before the thread began', () => {
    const { model, transport } = threeTurns();
    model.edit(model.entries[0].key, 'ONE');
    expect(transport.lastTurn.request.fork).toEqual({ checkpointId: null });
    expect(texts(model.entries)).toEqual(['ONE', '']);
  });

  it('regenerates an answer from its message, and switches between the branches', () => {
    const { model, transport } = threeTurns();
    const firstTurn = model.entries[1] as ITurnEntry;

    model.regenerate(firstTurn.key);
    expect(transport.lastTurn.request).toMatchObject({
      message: 'one',
      fork: { checkpointId: null }
    });
    answer(transport, 'A1 again', null, 'r1');
    expect(texts(model.entries)).toEqual(['one', 'A1 again']);

    const original = model.siblings(model.entries[0].key).entries[0];
    model.showBranch(original.key);
    expect(texts(model.entries)).toEqual([
      'one',
      'A1',
      'two',
      'A2',
      'three',
      'A3'
    ]);
    // The thread last ran on the other branch: the next turn goes back to this one's end.
    model.send('four');
    expect(transport.lastTurn.request.fork).toEqual({ checkpointId: 'c3' });
    answer(transport, 'A4', 'c3-copy', 'c5');

    model.showBranch(model.siblings(original.key).entries[1].key);
    model.send('again');
    expect(transport.lastTurn.request.fork).toEqual({ checkpointId: 'r1' });
  });

  it('keeps a pending review with the branch it was left on, and answers it there', () => {
    const { model, transport } = withTransport(new FakeTransport());
    model.send('ask me');
    transport.lastTurn.sink.frame(chunk('', { checkpoint_id: null }));
    transport.lastTurn.sink.frame(ASK);
    transport.lastTurn.sink.frame(
      frame({
        status: 'complete',
        outcome: 'interrupted',
        end_checkpoint_id: 'paused'
      })
    );
    transport.lastTurn.sink.end();
    expect(model.status).toBe('awaiting-decision');
    const asked = model.entries[0];

    model.edit(asked.key, 'do not ask');
    answer(transport, 'fine', null, 'other');
    expect(model.status).toBe('idle');
    expect(model.pendingInterrupts).toEqual([]);

    model.showBranch(asked.key);
    expect(model.status).toBe('awaiting-decision');
    model.answer([{ type: 'respond', message: 'Ada' }]);
    expect(transport.lastTurn.request).toMatchObject({
      kind: 'resume',
      fork: { checkpointId: 'paused' }
    });
  });

  it('stops a running turn before it forks', () => {
    const { model, transport } = threeTurns();
    model.send('four');
    const running = transport.lastTurn;
    const turns = transport.turns.length;

    model.edit(model.entries[0].key, 'ONE');

    expect(running.stops).toBe(1);
    expect(transport.turns).toHaveLength(turns);
    running.sink.frame(frame({ status: 'cancelled', message: 'stopped' }));
    running.sink.end();
    expect(transport.turns).toHaveLength(turns + 1);
    expect(transport.lastTurn.request).toMatchObject({
      message: 'ONE',
      fork: { checkpointId: null }
    });
    answer(transport, 'B1', null, 'b1');
    // The stopped turn stays with the branch it ran on.
    const old = model.siblings(model.entries[0].key).entries[0];
    model.showBranch(old.key);
    expect(texts(model.entries)).toEqual([
      'one',
      'A1',
      'two',
      'A2',
      'three',
      'A3',
      'four',
      ''
    ]);
    expect((model.entries[7] as ITurnEntry).state.outcome).toBe('cancelled');
  });

  it('says why it cannot go back when the agent keeps no checkpoints', () => {
    const { model, transport } = withTransport(new FakeTransport());
    model.send('one');
    transport.lastTurn.sink.frame(chunk('A1'));
    transport.lastTurn.sink.frame(complete());
    transport.lastTurn.sink.end();
    const refusal = model.forkRefusal(model.entries[0].key);
    expect(refusal).toMatch(/keeps no checkpoints/);
    expect(() => model.edit(model.entries[0].key, 'ONE')).toThrow(refusal!);
    expect(model.allEntries).toHaveLength(2);
  });

  it('cuts the memory an AG-UI transport holds before the edited message', () => {
    const { model, transport } = withTransport(new AguiLikeTransport());
    model.send('one');
    const one = model.entries[0].key;
    transport.lastTurn.sink.remember!(aguiMemory([one, 'reply-1']));
    transport.lastTurn.sink.frame(complete());
    transport.lastTurn.sink.end();
    model.send('two');
    const two = model.entries[2].key;
    transport.lastTurn.sink.remember!(
      aguiMemory([one, 'reply-1', two, 'reply-2'])
    );
    transport.lastTurn.sink.frame(complete());
    transport.lastTurn.sink.end();

    model.edit(two, 'TWO');
    const sent = transport.lastTurn.request;
    // Sent with the id of the message it edits: a server that keeps the
    // thread (ag-ui-langgraph) sees an edit and goes back to before it.
    expect(sent.kind === 'chat' && sent.messageId).toBe(two);
    expect(model.entries[2].key).not.toBe(two);
    expect(ids(sent.memory)).toEqual([one, 'reply-1']);
    transport.lastTurn.sink.frame(complete());
    transport.lastTurn.sink.end();

    // The branch left keeps its memory: showing it again sends that.
    model.showBranch(two);
    model.send('three');
    expect(ids(transport.lastTurn.request.memory)).toEqual([
      one,
      'reply-1',
      two,
      'reply-2'
    ]);

    const last = model.entries[model.entries.length - 1].key;
    expect(model.regenerateRefusal(last)).toBe('unchanged: a continuation');
    expect(() => model.regenerate(last)).toThrow('unchanged: a continuation');

    transport.refusal = 'history: latest';
    expect(model.forkRefusal(one)).toBe('history: latest');
  });
});

class AguiLikeTransport extends FakeTransport {
  refusal: string | null = null;
  readonly regenerateRefusal = 'unchanged: a continuation';
  get forkRefusal(): string | null {
    return this.refusal;
  }
  memoryBefore(
    memory: JsonObject | null,
    messageId: string
  ): JsonObject | null {
    return memoryBefore(memory, messageId);
  }
}

function aguiMemory(messageIds: string[]): JsonObject {
  return {
    agui: 1,
    messages: messageIds.map(id => ({
      id,
      role: id.startsWith('reply') ? 'assistant' : 'user'
    })),
    state: {},
    interrupts: [],
    context: []
  };
}

function ids(memory: JsonObject | undefined): string[] {
  return ((memory?.messages ?? []) as JsonObject[]).map(m => String(m.id));
}

describe('branches saved', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('keeps every branch and the one shown through the store and a snapshot', async () => {
    const store = new FakeConversationStore();
    const { model, transport } = threeTurns();
    const session = new ConversationSession('c1', model, trans);
    const saver = new ConversationSaver(session, store, {
      saveDelayMs: 10,
      unloadStore: new MemoryStorage(),
      page: new EventTarget()
    });
    saver.markStored([], true);
    await jest.advanceTimersByTimeAsync(10);
    expect(store.entriesOf('c1')).toHaveLength(6);

    model.edit(model.entries[2].key, 'TWO');
    answer(transport, 'B2', 'c1-copy', 'c4');
    await jest.advanceTimersByTimeAsync(10);
    expect(store.entriesOf('c1')).toHaveLength(8);

    const puts = store.puts.length;
    model.showBranch(model.siblings(model.entries[2].key).entries[0].key);
    await jest.advanceTimersByTimeAsync(10);
    // A switch sends what changed (the branch chosen, the memory of the one left), nothing removed.
    const update = store.puts[puts].update;
    expect(update.removedKeys).toBeUndefined();
    expect(update.entries!.length).toBe(2);

    const stored = (await store.get('c1'))!;
    const reopened = new ChatModel('x', trans);
    reopened.restore({
      threadId: stored.threadId,
      entries: readSnapshot({
        version: 1,
        threadId: stored.threadId,
        entries: stored.entries
      }).snapshot.entries
    });
    expect(texts(reopened.entries)).toEqual([
      'one',
      'A1',
      'two',
      'A2',
      'three',
      'A3'
    ]);
    expect(reopened.allEntries).toHaveLength(8);
    expect((reopened.entries[5] as ITurnEntry).state.endCheckpoint).toBe('c3');

    const copy = readSnapshot(
      JSON.parse(JSON.stringify(snapshotOf(model)))
    ).snapshot;
    expect(copy.entries).toHaveLength(8);
    saver.dispose();
    session.dispose();
    reopened.dispose();
    model.dispose();
  });
});
