/**
 * The change log of notebook changes per turn (docs/protocol.md §12.11):
 * logged on the turn of the call that made the change, saved with the
 * conversation and read back after a reload; and the rewind offers the
 * panel shows.
 */
import type { INotebookRewinder } from '../../contracts/extension-points';
import type {
  INotebookChange,
  IRewindPlan
} from '../../contracts/notebook-changes';
import { changesOf, turnsFrom } from '../../model/conversation/chat/change-log';
import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { NotebookRewinds } from '../../model/conversation/rewinds';
import { ConversationSession } from '../../model/conversation/session';
import { readConversation } from '../../model/persistence/reading';
import { ConversationSaver } from '../../model/persistence/saver';
import { readEntry } from '../../model/persistence/snapshot-reader';
import {
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';
import { FakeConversationStore, MemoryStorage } from '../support/store-fakes';

const toolCall = (id: string) =>
  frame({
    status: 'streaming',
    tool_calls: [{ id, name: 'insert_cell', args: {} }]
  });

function change(
  kind: INotebookChange['kind'],
  cellId: string,
  callId: string | null,
  extra: Partial<INotebookChange> = {}
): INotebookChange {
  return {
    kind,
    path: 'a.ipynb',
    cellId,
    cellType: 'code',
    before: kind === 'insert' ? '' : 'old',
    after: kind === 'delete' ? '' : 'new',
    index: 1,
    callId,
    ...extra
  };
}

/** A model with two finished turns, each calling one tool. */
function twoTurns(): { model: ChatModel; transport: FakeTransport } {
  const transport = new FakeTransport();
  const model = new ChatModel('thread-1', trans);
  model.transport = transport;
  for (const id of ['call-1', 'call-2']) {
    model.send(`turn ${id}`);
    transport.lastTurn.sink.frame(toolCall(id));
    transport.lastTurn.sink.frame(complete());
    transport.lastTurn.sink.end();
  }
  return { model, transport };
}

function turns(model: ChatModel): ITurnEntry[] {
  return model.entries.filter((e): e is ITurnEntry => e.kind === 'turn');
}

describe('the change log', () => {
  it('logs a change on the turn of its call, else on the latest turn, and says so', () => {
    const { model } = twoTurns();
    const updates: ITurnEntry[] = [];
    model.turnChanged.connect((_, update) => updates.push(update.entry));
    const [first, second] = turns(model);
    expect(model.logNotebookChange(change('insert', 'c1', 'call-1'))).toBe(
      true
    );
    expect(model.logNotebookChange(change('edit', 'c2', 'unknown'))).toBe(true);
    expect(first.notebookChanges?.map(c => c.cellId)).toEqual(['c1']);
    expect(second.notebookChanges?.map(c => c.cellId)).toEqual(['c2']);
    expect(updates).toEqual([first, second]);
    const empty = new ChatModel('t', trans);
    expect(empty.logNotebookChange(change('edit', 'x', null))).toBe(false);
    empty.dispose();
  });

  it('gives the changes of a turn and the later ones, oldest first', () => {
    const { model } = twoTurns();
    model.logNotebookChange(change('insert', 'c1', 'call-1'));
    model.logNotebookChange(change('edit', 'c2', 'call-2'));
    model.logNotebookChange(change('delete', 'c3', 'call-2', { cell: {} }));
    const [first, second] = turns(model);
    expect(turnsFrom(model.entries, first.key)).toEqual([first, second]);
    expect(turnsFrom(model.entries, 'missing')).toEqual([]);
    expect(
      changesOf(turnsFrom(model.entries, second.key)).map(c => c.cellId)
    ).toEqual(['c2', 'c3']);
  });

  it('is saved with the turn and read back after a reload', async () => {
    jest.useFakeTimers();
    try {
      const { model } = twoTurns();
      const store = new FakeConversationStore();
      const session = new ConversationSession('c1', model, trans);
      const saver = new ConversationSaver(session, store, {
        saveDelayMs: 10,
        unloadStore: new MemoryStorage(),
        page: new EventTarget()
      });
      saver.markStored([], true);
      await jest.advanceTimersByTimeAsync(20);
      const deleted = change('delete', 'c3', 'call-2', {
        cell: { id: 'c3', cell_type: 'code', source: 'old', metadata: {} },
        afterCellId: null
      });
      model.logNotebookChange(change('insert', 'c1', 'call-1'));
      model.logNotebookChange(deleted);
      await jest.advanceTimersByTimeAsync(20);
      const read = readConversation(await store.get('c1'), null)!;
      const [first, second] = read.restore.entries.filter(
        (e): e is ITurnEntry => e.kind === 'turn'
      );
      expect(first.notebookChanges).toEqual([change('insert', 'c1', 'call-1')]);
      expect(second.notebookChanges).toEqual([deleted]);
      saver.dispose();
      session.dispose();
    } finally {
      jest.useRealTimers();
    }
  });

  it('reads the well-formed changes of a saved turn and leaves out the others', () => {
    const entry = readEntry({
      kind: 'turn',
      key: 't1',
      request: null,
      state: { items: [], outcome: 'complete' },
      startedAt: 1,
      endedAt: 2,
      notebookChanges: [
        change('edit', 'c1', null),
        { ...change('edit', 'c2', null), index: -1 },
        { ...change('delete', 'c3', null) },
        'not a change'
      ]
    }) as ITurnEntry;
    expect(entry.notebookChanges).toEqual([change('edit', 'c1', null)]);
    const none = readEntry({
      kind: 'turn',
      key: 't2',
      request: null,
      state: { items: [], outcome: 'complete' },
      startedAt: 1,
      endedAt: 2
    });
    expect('notebookChanges' in none).toBe(false);
  });
});

describe('NotebookRewinds', () => {
  const plan: IRewindPlan = {
    cells: [
      {
        key: 'a.ipynb\nc1',
        path: 'a.ipynb',
        cellId: 'c1',
        cellType: 'code',
        mimeType: 'text/x-ipython',
        index: 1,
        action: 'remove',
        status: 'ready',
        current: 'new',
        target: ''
      }
    ]
  };

  function rewinder(): INotebookRewinder & { applied: string[][] } {
    const applied: string[][] = [];
    return {
      applied,
      plan: async () => plan,
      apply: async (_, __, selected) => {
        applied.push([...selected]);
        return { restored: [...selected], skipped: [], notebooks: ['a.ipynb'] };
      }
    };
  }

  it('offers the rewind of a turn and the later ones, then applies the cells chosen', async () => {
    const { model } = twoTurns();
    const rewinds = new NotebookRewinds(() => model, trans);
    model.logNotebookChange(change('insert', 'c1', 'call-1'));
    model.logNotebookChange(change('edit', 'c2', 'call-2'));
    const fake = rewinder();
    const handle = rewinds.registerRewinder(fake);
    const [first, second] = turns(model);
    const offer = await rewinds.rewindFrom(first.key);
    expect(offer?.turns).toEqual([first.key, second.key]);
    expect(offer?.changes.map(c => c.cellId)).toEqual(['c1', 'c2']);
    expect(rewinds.offer).toBe(offer);
    await rewinds.apply(offer!.id, ['a.ipynb\nc1']);
    expect(fake.applied).toEqual([['a.ipynb\nc1']]);
    expect(rewinds.offer).toMatchObject({
      state: 'applied',
      result: { restored: ['a.ipynb\nc1'] }
    });
    // Answered once: a second Apply does nothing.
    await rewinds.apply(offer!.id, []);
    expect(fake.applied).toHaveLength(1);
    handle.dispose();
    await expect(rewinds.rewindFrom(first.key)).rejects.toThrow(
      'The notebook tools are not loaded'
    );
    rewinds.dispose();
  });

  it('keeps the notebook when asked, and offers nothing for turns without changes', async () => {
    const { model } = twoTurns();
    const rewinds = new NotebookRewinds(() => model, trans);
    const fake = rewinder();
    rewinds.registerRewinder(fake);
    expect(await rewinds.rewind(turns(model))).toBeNull();
    model.logNotebookChange(change('insert', 'c1', 'call-1'));
    const offer = await rewinds.rewind(turns(model));
    rewinds.keep(offer!.id);
    expect(rewinds.offer?.state).toBe('kept');
    await rewinds.apply(offer!.id, ['a.ipynb\nc1']);
    expect(fake.applied).toEqual([]);
    rewinds.dismiss(offer!.id);
    expect(rewinds.offer).toBeNull();
    rewinds.dispose();
  });

  it('reports a failed apply in words', async () => {
    const { model } = twoTurns();
    const rewinds = new NotebookRewinds(() => model, trans);
    rewinds.registerRewinder({
      plan: async () => plan,
      apply: async () => {
        throw new Error('read-only');
      }
    });
    model.logNotebookChange(change('insert', 'c1', 'call-1'));
    const offer = await rewinds.rewind(turns(model));
    await rewinds.apply(offer!.id, ['a.ipynb\nc1']);
    expect(rewinds.offer).toMatchObject({
      state: 'failed',
      error: 'read-only'
    });
    rewinds.dispose();
  });
});
