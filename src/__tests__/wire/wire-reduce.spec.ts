import { decodeFrame } from '../../wire/frames';
import { applyLocalEvent } from '../../wire/local-events';
import { TurnReducer } from '../../wire/reduce';
import {
  STREAM_ENDED_UNEXPECTEDLY,
  type IExtractionCard,
  type IInterruptCard,
  type IToolCard,
  type TurnChange
} from '../../wire/types';
import {
  interruptCards,
  loadCorpus,
  reduceFrames
} from '../support/wire-harness';

/** Apply raw frames, returning every change in order. */
function feed(reducer: TurnReducer, ...frames: unknown[]): TurnChange[] {
  return frames.flatMap(raw => {
    const result = decodeFrame(raw);
    if (!result.ok) {
      throw new Error(result.reason);
    }
    return reducer.apply(result.frame);
  });
}

const chunk = (text: string, extra: Record<string, unknown> = {}) => ({
  status: 'streaming',
  chunk: text,
  ...extra
});

const corpus = new Map(
  loadCorpus('fixtures/chunk-wire').map(file => [file.name, file.lines])
);
function corpusLines(name: string): string[] {
  const lines = corpus.get(name);
  if (!lines) {
    throw new Error(`no corpus file ${name}`);
  }
  return lines;
}

describe('TurnReducer changes', () => {
  it('appends deltas to the open block in place and says so', () => {
    const reducer = new TurnReducer();
    const added = feed(reducer, chunk('a', { node: 'n', message_id: 'm' }));
    const items = reducer.state.items;
    const block = items[0];
    const updated = feed(reducer, chunk('b', { node: 'n', message_id: 'm' }));
    expect(added).toEqual([{ type: 'added', item: block }]);
    expect(updated).toEqual([{ type: 'updated', item: block }]);
    expect(reducer.state.items[0]).toBe(block);
    expect(reducer.state.items).toBe(items);
    expect(reducer.state.items).toHaveLength(1);
    expect(reducer.state.items[0]).toMatchObject({ text: 'ab' });
  });

  it('reports a tool result on its card as an update', () => {
    const reducer = new TurnReducer();
    feed(reducer, {
      status: 'streaming',
      tool_calls: [{ name: 'f', args: {}, id: 'c1' }]
    });
    const changes = feed(reducer, {
      status: 'streaming',
      tool_result: 'ok',
      id: 'c1',
      tool_status: 'success',
      duration_ms: 7
    });
    expect(changes).toEqual([
      { type: 'updated', item: reducer.state.items[0] }
    ]);
    expect(reducer.state.items[0]).toMatchObject({
      status: 'success',
      result: 'ok',
      durationMs: 7,
      truncated: false
    });
  });

  it('gives every item a key unique across turns', () => {
    const first = reduceFrames(corpusLines('F05-tool-extraction-b.jsonl'));
    const second = reduceFrames(corpusLines('F05-tool-extraction-b.jsonl'));
    const keys = [...first.state.items, ...second.state.items].map(i => i.key);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('TurnReducer text blocks (docs/protocol.md §4.3)', () => {
  it('starts a new block after any other payload, even with the same id', () => {
    const reducer = new TurnReducer();
    feed(
      reducer,
      chunk('before', { node: 'n', message_id: 'm' }),
      { status: 'streaming', tool_calls: [{ name: 'f', args: {}, id: 'c' }] },
      chunk('after', { node: 'n', message_id: 'm' })
    );
    expect(reducer.state.items.map(item => item.kind)).toEqual([
      'text',
      'tool',
      'text'
    ]);
  });

  it('keeps the block open across ignored frames', () => {
    const reducer = new TurnReducer();
    feed(
      reducer,
      chunk('a', { node: 'n' }),
      { status: 'heartbeat' },
      { status: 'streaming', usage: {} },
      { type: 'session_init' },
      chunk('b', { node: 'n' })
    );
    expect(reducer.state.items).toEqual([
      expect.objectContaining({ kind: 'text', text: 'ab' })
    ]);
  });

  it('falls back to the node when only one side has a message id', () => {
    const reducer = new TurnReducer();
    feed(
      reducer,
      chunk('a', { node: 'n' }),
      chunk('b', { node: 'n', message_id: 'm1' }),
      chunk('c', { node: 'n', message_id: 'm2' }),
      chunk('d', { node: 'other' })
    );
    expect(
      reducer.state.items.map(item => (item as { text: string }).text)
    ).toEqual(['ab', 'c', 'd']);
  });

  it('processes several payloads of one frame in the documented order', () => {
    const reducer = new TurnReducer();
    feed(reducer, {
      status: 'streaming',
      extraction: { tool_name: 'f', extracted_type: 't', data: 1 },
      tool_result: 'r',
      id: 'c1',
      tool_calls: [{ name: 'f', args: {}, id: 'c1' }],
      reasoning: 'why',
      chunk: 'text'
    });
    expect(reducer.state.items.map(item => item.kind)).toEqual([
      'text',
      'reasoning',
      'tool',
      'extraction'
    ]);
    expect(reducer.state.items[2]).toMatchObject({
      status: 'unknown',
      result: 'r'
    });
  });
});

describe('TurnReducer tool cards (docs/protocol.md §4.5)', () => {
  it('updates the card of a repeated call id instead of adding one', () => {
    const reducer = new TurnReducer();
    feed(reducer, {
      status: 'streaming',
      tool_calls: [{ name: 'f', args: {}, id: 'c1' }]
    });
    const changes = feed(reducer, {
      status: 'streaming',
      tool_calls: [{ name: 'f', args: { x: 1 }, id: 'c1' }]
    });
    expect(reducer.state.items).toHaveLength(1);
    expect(changes).toEqual([
      { type: 'updated', item: reducer.state.items[0] }
    ]);
    expect(reducer.state.items[0]).toMatchObject({ args: { x: 1 } });
  });

  it('makes a second result for the same id an orphan card', () => {
    const reducer = new TurnReducer();
    feed(
      reducer,
      { status: 'streaming', tool_calls: [{ name: 'f', args: {}, id: 'c1' }] },
      { status: 'streaming', tool_result: 'one', id: 'c1' },
      { status: 'streaming', tool_result: 'two', id: 'c1', name: 'f' }
    );
    expect(reducer.state.items).toEqual([
      expect.objectContaining({ result: 'one', orphan: false }),
      expect.objectContaining({ result: 'two', orphan: true, name: 'f' })
    ]);
  });

  it('does not pair a result carrying an unknown id by FIFO', () => {
    const reducer = new TurnReducer();
    feed(
      reducer,
      { status: 'streaming', tool_calls: [{ name: 'f', args: {} }] },
      { status: 'streaming', tool_result: 'r', id: 'elsewhere' }
    );
    expect(reducer.state.items).toEqual([
      expect.objectContaining({ status: 'pending', orphan: false }),
      expect.objectContaining({ result: 'r', orphan: true, name: 'tool' })
    ]);
  });

  it('marks truncated results and keeps _raw argument text (F15)', () => {
    const { state } = reduceFrames(corpusLines('F15-forward-compat-b.jsonl'));
    const [orphan, big] = state.items.filter(
      (item): item is IToolCard => item.kind === 'tool'
    );
    expect(orphan).toMatchObject({
      orphan: true,
      truncated: false,
      args: undefined
    });
    expect(big).toMatchObject({
      truncated: true,
      rawArgs: '{not json',
      durationMs: null
    });
    expect((big.result as string).length).toBe(512);
  });

  it('reads _raw only when it is the whole argument object', () => {
    const reducer = new TurnReducer();
    feed(reducer, {
      status: 'streaming',
      tool_calls: [{ name: 'f', args: { _raw: 'x', other: 1 } }]
    });
    expect(reducer.state.items[0]).toMatchObject({ rawArgs: null });
  });
});

describe('TurnReducer extraction cards (docs/protocol.md §4.6)', () => {
  it('attaches an extraction to the card whose result it follows', () => {
    for (const name of [
      'F05-tool-extraction-a.jsonl',
      'F05-tool-extraction-b.jsonl',
      'F06-tool-error-a.jsonl'
    ]) {
      const { state } = reduceFrames(corpusLines(name));
      const tool = state.items.find(item => item.kind === 'tool');
      const extraction = state.items.find(
        (item): item is IExtractionCard => item.kind === 'extraction'
      );
      expect(extraction?.toolKey).toBe(tool?.key);
    }
  });

  it('leaves an extraction that follows no result unattached', () => {
    const reducer = new TurnReducer();
    feed(reducer, { status: 'streaming', tool_result: 'r' }, chunk('between'), {
      status: 'streaming',
      extraction: { extracted_type: 'x', data: 1 }
    });
    expect(reducer.state.items[2]).toMatchObject({
      kind: 'extraction',
      toolKey: null,
      toolName: 'tool',
      extractedType: 'x'
    });
  });
});

describe('TurnReducer interrupt cards (docs/protocol.md §4.7)', () => {
  it('shows a re-surfaced pending interrupt instead of duplicating it (F10c)', () => {
    const first = reduceFrames(corpusLines('F10a-demo-ask-turn1-b.jsonl'));
    const [pending] = interruptCards(first.state);
    const second = new TurnReducer({ pendingInterrupts: [pending] });
    const changes = feed(
      second,
      ...corpusLines('F10c-demo-resurfaced-b.jsonl').map(line =>
        JSON.parse(line)
      )
    );
    expect(changes).toEqual([
      { type: 'updated', item: pending },
      { type: 'ended', outcome: 'interrupted' }
    ]);
    expect(second.state.items).toEqual([]);
  });

  it('adds a card again once the earlier one was answered', () => {
    const first = reduceFrames(corpusLines('F10a-demo-ask-turn1-b.jsonl'));
    const [answered] = interruptCards(first.state);
    answered.answered = [{ type: 'approve' }];
    const second = new TurnReducer({ pendingInterrupts: [answered] });
    feed(
      second,
      ...corpusLines('F10a-demo-ask-turn1-b.jsonl').map(line =>
        JSON.parse(line)
      )
    );
    expect(interruptCards(second.state)).toHaveLength(1);
  });

  it('does not duplicate an identical interrupt within one turn', () => {
    const frame = JSON.parse(corpusLines('F10a-demo-ask-turn1-b.jsonl')[0]);
    const reducer = new TurnReducer();
    feed(reducer, frame, frame);
    expect(interruptCards(reducer.state)).toHaveLength(1);
  });

  it('adds one card per distinct interrupt frame', () => {
    const reducer = new TurnReducer();
    feed(
      reducer,
      { status: 'interrupt', interrupt: { action_requests: ['one?'] } },
      { status: 'interrupt', interrupt: { action_requests: ['two?'] } }
    );
    const cards: IInterruptCard[] = interruptCards(reducer.state);
    expect(cards.map(card => card.actions[0].description)).toEqual([
      'one?',
      'two?'
    ]);
  });
});

describe('TurnReducer endings (docs/protocol.md §4.1, §4.2)', () => {
  it('lets the first terminal frame win and notes the ignored rest once', () => {
    const reducer = new TurnReducer();
    const changes = feed(
      reducer,
      { status: 'error', error: 'first' },
      { status: 'complete' },
      chunk('late'),
      { status: 'cancelled' }
    );
    expect(changes).toEqual([
      { type: 'ended', outcome: 'error' },
      {
        type: 'diagnostic',
        message:
          'ignored a "complete" frame (and any later ones) after the turn ended'
      }
    ]);
    expect(reducer.state.error).toEqual({ message: 'first', traceback: null });
    expect(reducer.state.items).toEqual([]);
  });

  it('ends interrupted when an interrupt was seen, whatever complete says', () => {
    const reducer = new TurnReducer();
    feed(
      reducer,
      { status: 'interrupt', interrupt: {} },
      { status: 'complete', outcome: 'complete' }
    );
    expect(reducer.state.outcome).toBe('interrupted');
  });

  it('ends with an error when an interrupted turn then fails', () => {
    const reducer = new TurnReducer();
    feed(reducer, { status: 'interrupt', interrupt: {} }, { status: 'error' });
    expect(reducer.state.outcome).toBe('error');
    expect(reducer.state.error?.message).toBe('unknown error');
  });

  it('applies the EOF rule, or names the transport failure', () => {
    const eof = new TurnReducer();
    feed(eof, chunk('partial'));
    expect(eof.endOfStream()).toEqual([{ type: 'ended', outcome: 'error' }]);
    expect(eof.state.error?.message).toBe(STREAM_ENDED_UNEXPECTEDLY);
    expect(eof.state.items).toHaveLength(1);

    const failed = new TurnReducer();
    failed.endOfStream('POST /agent-panel/chat failed: HTTP 500');
    expect(failed.state.error?.message).toBe(
      'POST /agent-panel/chat failed: HTTP 500'
    );
  });

  it('keeps a finished turn as it is when the stream ends after it', () => {
    const reducer = new TurnReducer();
    feed(reducer, { status: 'complete' });
    expect(reducer.endOfStream()).toEqual([]);
    expect(reducer.endOfStream('socket closed')).toEqual([
      { type: 'diagnostic', message: 'after the turn ended: socket closed' }
    ]);
    expect(reducer.state.outcome).toBe('complete');
    expect(reducer.state.error).toBeNull();
  });

  it('can end the turn locally as cancelled, once', () => {
    const reducer = new TurnReducer();
    feed(reducer, chunk('working'));
    expect(reducer.cancelLocally('Stopped.')).toEqual([
      { type: 'ended', outcome: 'cancelled' }
    ]);
    expect(reducer.state.cancelMessage).toBe('Stopped.');
    expect(reducer.cancelLocally('again')).toEqual([]);
    expect(reducer.endOfStream()).toEqual([]);
    expect(reducer.state.cancelMessage).toBe('Stopped.');
  });

  it('records diagnostics, including malformed payloads', () => {
    const reducer = new TurnReducer();
    reducer.diagnostic('seq gap: expected 3, got 5');
    feed(reducer, { status: 'streaming', chunk: 7 });
    expect(reducer.state.diagnostics).toEqual([
      'seq gap: expected 3, got 5',
      'dropped a malformed payload: "chunk" is a number, expected a string'
    ]);
  });
});

describe('TurnReducer cost per frame', () => {
  it('handles long streams without per-frame copies', () => {
    const count = 50_000;
    const reducer = new TurnReducer();
    const started = Date.now();
    for (let i = 0; i < count; i++) {
      reducer.apply({
        status: 'streaming',
        chunk: 'x',
        node: 'n',
        message_id: 'm',
        reasoning: null,
        tool_calls: null,
        tool_result: null,
        extraction: null,
        problems: []
      });
    }
    // Many calls first, then results without ids: FIFO must not rescan.
    for (let i = 0; i < count; i++) {
      reducer.apply({
        status: 'streaming',
        chunk: null,
        node: null,
        message_id: null,
        reasoning: null,
        tool_calls: [{ name: 'f', args: {}, id: null }],
        tool_result: null,
        extraction: null,
        problems: []
      });
    }
    for (let i = 0; i < count; i++) {
      reducer.apply({
        status: 'streaming',
        chunk: null,
        node: null,
        message_id: null,
        reasoning: null,
        tool_calls: null,
        tool_result: {
          content: `r${i}`,
          id: null,
          name: null,
          tool_status: 'success',
          duration_ms: null
        },
        extraction: null,
        problems: []
      });
    }
    expect(Date.now() - started).toBeLessThan(2000);
    expect(reducer.state.items).toHaveLength(1 + count);
    expect(reducer.state.items[1]).toMatchObject({ result: 'r0' });
    expect(reducer.state.items[count]).toMatchObject({
      result: `r${count - 1}`
    });
  });
});

describe('local turn events (what the panel decides)', () => {
  function pausedTurn() {
    const reducer = new TurnReducer();
    feed(
      reducer,
      { status: 'interrupt', interrupt: { action_requests: ['a?', 'b?'] } },
      { status: 'interrupt', interrupt: { action_requests: ['c?'] } },
      { status: 'complete' }
    );
    return { state: reducer.state, cards: interruptCards(reducer.state) };
  }

  it('gives each answered card its own rows of the decisions, in order', () => {
    const { state, cards } = pausedTurn();
    const decisions = [
      { type: 'approve' as const },
      { type: 'reject' as const },
      { type: 'respond' as const, message: 'no' }
    ];
    const changes = applyLocalEvent(state, {
      type: 'review_answered',
      cards,
      decisions
    });
    expect(changes).toEqual(cards.map(item => ({ type: 'updated', item })));
    expect(cards[0].answered).toEqual(decisions.slice(0, 2));
    expect(cards[1].answered).toEqual(decisions.slice(2));
    expect(state.outcome).toBe('interrupted');
  });

  it('marks the cards answered elsewhere, and only those', () => {
    const { state, cards } = pausedTurn();
    const changes = applyLocalEvent(state, {
      type: 'answered_elsewhere',
      cards: [cards[1]]
    });
    expect(changes).toEqual([{ type: 'updated', item: cards[1] }]);
    expect(cards[1].answeredElsewhere).toBe(true);
    expect(cards[0].answeredElsewhere).toBeUndefined();
  });

  it('ends a turn cut by a reload as cancelled, and leaves an ended one alone', () => {
    const streaming = new TurnReducer();
    feed(streaming, chunk('half an answer'));
    expect(
      applyLocalEvent(streaming.state, { type: 'ended_by_reload' })
    ).toEqual([{ type: 'ended', outcome: 'cancelled' }]);
    expect(streaming.state.outcome).toBe('cancelled');
    expect(streaming.state.cancelMessage).toBeNull();

    const { state } = pausedTurn();
    expect(applyLocalEvent(state, { type: 'ended_by_reload' })).toEqual([]);
    expect(state.outcome).toBe('interrupted');
  });
});
