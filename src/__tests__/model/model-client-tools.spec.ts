/**
 * The conversation as an AG-UI client (docs/protocol.md §8.8–8.11): it keeps
 * the transport's memory and hands it back, offers the registered client
 * tools, runs the calls a finished run leaves and continues with their
 * results, and answers AG-UI requests with a payload that fits their schema.
 */
import { ChatModel } from '../../model/conversation/chat-model';
import { MAX_TOOL_FOLLOW_UPS } from '../../model/conversation/chat/client-tool-phase';
import type { IClientTool } from '../../model/conversation/chat/client-tools';
import { readSnapshot, snapshotOf } from '../../model/persistence/persistence';
import type { IClientToolCall, TurnRequest } from '../../wire/turn';
import type { IInterruptCard, IToolCard, ITurnState } from '../../wire/types';
import {
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';

const models: ChatModel[] = [];

afterEach(() => models.splice(0).forEach(model => model.dispose()));

function setUp(): { model: ChatModel; transport: FakeTransport } {
  const model = new ChatModel('t', trans);
  models.push(model);
  const transport = new FakeTransport();
  model.transport = transport;
  return { model, transport };
}

const ECHO: IClientTool = {
  name: 'echo',
  description: 'Say it back.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text']
  },
  run: async args => ({ echoed: (args as { text: string }).text })
};

const callFrame = (id: string, name: string, args: unknown) =>
  frame({
    status: 'streaming',
    tool_calls: [{ id, name, args }]
  });

/** The last turn calls the client tools `calls` and finishes. */
function finishWithCalls(
  transport: FakeTransport,
  calls: IClientToolCall[],
  memory: Record<string, unknown> = { run: transport.turns.length }
): void {
  const { sink } = transport.lastTurn;
  for (const call of calls) {
    sink.frame(callFrame(call.id, call.name, call.args));
  }
  sink.remember!(memory);
  sink.clientToolCalls!(calls);
  sink.frame(complete());
  sink.end();
}

function finish(transport: FakeTransport, memory = { done: true }): void {
  const { sink } = transport.lastTurn;
  sink.remember!(memory);
  sink.frame(complete());
  sink.end();
}

/** Let the tool phase's promises settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await new Promise(resolve => setTimeout(resolve, 0));
  }
}

function toolCards(model: ChatModel): IToolCard[] {
  return model.entries.flatMap(entry =>
    entry.kind === 'turn'
      ? entry.state.items.filter(
          (item): item is IToolCard => item.kind === 'tool'
        )
      : []
  );
}

afterEach(() => jest.useRealTimers());
describe('the transport memory', () => {
  it('is kept from the finished run, handed back, saved and restored', () => {
    const { model, transport } = setUp();
    model.send('one');
    expect(transport.lastTurn.request.memory).toBeUndefined();
    finish(transport, { messages: ['one'] } as never);
    expect(model.transportMemory).toEqual({ messages: ['one'] });
    model.send('two');
    expect(transport.lastTurn.request.memory).toEqual({ messages: ['one'] });

    const { snapshot, problems } = readSnapshot(
      JSON.parse(JSON.stringify(snapshotOf(model)))
    );
    expect(problems).toEqual([]);
    expect(snapshot.transportMemory).toEqual({ messages: ['one'] });
    const restored = new ChatModel('other', trans);
    models.push(restored);
    restored.restore(snapshot);
    expect(restored.transportMemory).toEqual({ messages: ['one'] });

    finish(transport, { messages: ['one', 'two'] } as never);
    // Another conversation, saved without memory, does not inherit this one's.
    model.restore({ threadId: 'another', entries: [] });
    expect(model.transportMemory).toBeNull();
  });

  it('reports saved memory that is not an object, and goes on without it', () => {
    const { model } = setUp();
    const saved = { ...snapshotOf(model), transportMemory: 'garbage' };
    const { snapshot, problems } = readSnapshot(saved);
    expect(snapshot.transportMemory).toBeNull();
    expect(problems).toEqual([
      'the saved transport memory is not a JSON object; the conversation continues without it'
    ]);
  });
});

describe('client tools', () => {
  it('are offered on every request while registered, and names are unique', () => {
    const { model, transport } = setUp();
    const registration = model.clientTools.register(ECHO);
    expect(() => model.clientTools.register(ECHO)).toThrow(
      'A client tool named "echo" is already registered.'
    );
    model.send('hi');
    expect(transport.lastTurn.request.tools).toEqual([
      {
        name: 'echo',
        description: 'Say it back.',
        parameters: ECHO.parameters
      }
    ]);
    finish(transport);
    registration.dispose();
    model.send('again');
    expect(transport.lastTurn.request.tools).toBeUndefined();
  });

  it('run when a finished run calls them, and the run continues with their results', async () => {
    const { model, transport } = setUp();
    model.clientTools.register(ECHO);
    model.send('echo hi');
    finishWithCalls(transport, [
      { id: 'c-1', name: 'echo', args: { text: 'hi' } }
    ]);
    // Still working: the tool runs, then the follow-up run starts.
    expect(model.status).toBe('running');
    await settle();
    expect(transport.turns).toHaveLength(2);
    const followUp = transport.lastTurn.request as Extract<
      TurnRequest,
      { kind: 'tool_results' }
    >;
    expect(followUp).toMatchObject({
      kind: 'tool_results',
      threadId: 't',
      memory: { run: 1 },
      toolResults: [
        {
          callId: 'c-1',
          name: 'echo',
          content: '{"echoed":"hi"}',
          error: false
        }
      ]
    });
    const [card] = toolCards(model);
    expect(card).toMatchObject({
      status: 'success',
      result: '{"echoed":"hi"}',
      clientTool: { delivered: false }
    });
    expect(card.durationMs).toEqual(expect.any(Number));
    finish(transport);
    expect(card.clientTool).toEqual({ delivered: true });
    expect(model.status).toBe('idle');
    // The run, the follow-up request and the card survive a reload as they are.
    const saved = JSON.parse(JSON.stringify(snapshotOf(model)));
    const { snapshot, problems } = readSnapshot(saved);
    expect(problems).toEqual([]);
    expect(snapshot.entries).toMatchObject(saved.entries);
    // Delivered: the next message carries nothing more.
    model.send('thanks');
    expect(transport.lastTurn.request.toolResults).toBeUndefined();
  });

  it('give the agent an error result when they fail, are unknown or get bad arguments', async () => {
    const { model, transport } = setUp();
    let ran = 0;
    model.clientTools.register({
      ...ECHO,
      run: async () => {
        ran += 1;
        throw new Error('the disk is full');
      }
    });
    model.send('go');
    finishWithCalls(transport, [
      { id: 'c-1', name: 'echo', args: { text: 'a' } },
      { id: 'c-2', name: 'echo', args: { words: 'no text' } },
      { id: 'c-3', name: 'gone', args: {} }
    ]);
    await settle();
    expect(ran).toBe(1);
    expect(transport.lastTurn.request.toolResults).toEqual([
      { callId: 'c-1', name: 'echo', content: 'the disk is full', error: true },
      {
        callId: 'c-2',
        name: 'echo',
        content:
          'The arguments do not match the schema of "echo": $: "text" is required',
        error: true
      },
      {
        callId: 'c-3',
        name: 'gone',
        content: 'No client tool named "gone" is available.',
        error: true
      }
    ]);
    expect(toolCards(model).map(card => card.status)).toEqual([
      'error',
      'error',
      'error'
    ]);
  });

  it('are cancelled by Stop through their signal; the results go with the next message', async () => {
    const { model, transport } = setUp();
    let signal: AbortSignal | null = null;
    model.clientTools.register({
      ...ECHO,
      // Ignores its signal: the panel does not wait for it after Stop.
      run: (_args, context) => {
        signal = context.signal;
        return new Promise(() => undefined);
      }
    });
    model.send('go');
    finishWithCalls(transport, [
      { id: 'c-1', name: 'echo', args: { text: 'a' } },
      { id: 'c-2', name: 'echo', args: { text: 'b' } }
    ]);
    await settle();
    expect(model.status).toBe('running');
    model.stop();
    await settle();
    expect(signal!.aborted).toBe(true);
    expect(model.status).toBe('idle');
    expect(transport.turns).toHaveLength(1);
    const cancelled = {
      name: 'echo',
      content: 'Cancelled by the user.',
      error: true
    };
    model.send('never mind');
    expect(transport.lastTurn.request).toMatchObject({
      kind: 'chat',
      message: 'never mind',
      toolResults: [
        { callId: 'c-1', ...cancelled },
        { callId: 'c-2', ...cancelled }
      ]
    });
    finish(transport);
    expect(toolCards(model).map(card => card.clientTool)).toEqual([
      { delivered: true },
      { delivered: true }
    ]);
  });

  it('stay owed when the run that carried them fails', async () => {
    const { model, transport } = setUp();
    model.clientTools.register(ECHO);
    model.send('go');
    finishWithCalls(transport, [
      { id: 'c-1', name: 'echo', args: { text: 'a' } }
    ]);
    await settle();
    transport.lastTurn.sink.end('network error');
    expect(model.status).toBe('idle');
    model.send('retry');
    expect(transport.lastTurn.request.toolResults).toHaveLength(1);
  });

  it('continue by themselves only so many times in a row', async () => {
    const { model, transport } = setUp();
    model.clientTools.register(ECHO);
    model.send('loop');
    for (let run = 0; run <= MAX_TOOL_FOLLOW_UPS; run++) {
      finishWithCalls(transport, [
        { id: `c-${run}`, name: 'echo', args: { text: 'again' } }
      ]);
      await settle();
    }
    expect(transport.turns).toHaveLength(MAX_TOOL_FOLLOW_UPS + 1);
    expect(model.status).toBe('idle');
    const last = model.entries[model.entries.length - 1];
    expect(last.kind === 'turn' && last.state.diagnostics).toEqual([
      `The agent called client tools ${MAX_TOOL_FOLLOW_UPS} times in a row: their results go with your next message.`
    ]);
    model.send('go on');
    expect(transport.lastTurn.request.toolResults).toHaveLength(1);
  });

  it('that were running when the page went away fail, and their results are owed', () => {
    const { model, transport } = setUp();
    const card: IToolCard = {
      kind: 'tool',
      key: 1,
      callId: 'c-1',
      name: 'echo',
      args: {},
      rawArgs: null,
      status: 'pending',
      result: undefined,
      truncated: false,
      durationMs: null,
      orphan: false,
      clientTool: { delivered: false }
    };
    const state: ITurnState = {
      items: [card],
      outcome: 'complete',
      error: null,
      cancelMessage: null,
      diagnostics: []
    };
    model.restore({
      threadId: 't',
      entries: [
        {
          kind: 'turn',
          key: 'k',
          request: null,
          state,
          startedAt: 1,
          endedAt: 2
        }
      ]
    });
    expect(card).toMatchObject({
      status: 'error',
      result: 'Interrupted by a page reload.'
    });
    model.send('hello');
    expect(transport.lastTurn.request.toolResults).toEqual([
      {
        callId: 'c-1',
        name: 'echo',
        content: 'Interrupted by a page reload.',
        error: true
      }
    ]);
  });

  it('are not run for a run the chunk wire or another client started', async () => {
    const { model, transport } = setUp();
    model.clientTools.register(ECHO);
    model.send('go');
    const { sink } = transport.lastTurn;
    sink.frame(callFrame('c-1', 'echo', { text: 'a' }));
    sink.frame(complete());
    sink.end();
    await settle();
    expect(transport.turns).toHaveLength(1);
    expect(model.status).toBe('idle');
  });
});

const request = (fields: Record<string, unknown>, ids: string[] = ['i-1']) =>
  frame({
    status: 'interrupt',
    interrupt: {
      action_requests: [{ name: 'input_required', args: {} }],
      review_configs: [],
      allowed_decisions: null
    },
    interrupt_ids: ids,
    request: {
      reason: 'input_required',
      message: 'What is your name?',
      ...fields
    }
  });

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name']
};

function paused(...frames: ReturnType<typeof frame>[]) {
  const context = setUp();
  context.model.send('ask');
  const { sink } = context.transport.lastTurn;
  frames.forEach(found => sink.frame(found));
  sink.frame(complete('interrupted'));
  sink.end();
  const cards = context.model.pendingInterrupts;
  return { ...context, cards };
}

describe('AG-UI requests', () => {
  it('are answered with a payload that fits their schema, on a resume of their own', () => {
    const { model, transport, cards } = paused(
      request({ response_schema: NAME_SCHEMA })
    );
    expect(model.status).toBe('awaiting-decision');
    expect(() =>
      model.respond(cards[0], { status: 'resolved', payload: { name: '' } })
    ).toThrow(
      'The answer does not match what the agent asked for: $.name: must not be empty'
    );
    expect(() => model.answer([{ type: 'approve' }])).toThrow(
      'The agent asks for an answer here, not a decision.'
    );
    expect(transport.turns).toHaveLength(1);
    model.respond(cards[0], { status: 'resolved', payload: { name: 'Ada' } });
    expect(transport.lastTurn.request).toEqual({
      kind: 'resume',
      threadId: 't',
      decisions: [],
      reviews: [
        {
          interruptIds: ['i-1'],
          rows: 0,
          response: { status: 'resolved', payload: { name: 'Ada' } }
        }
      ]
    });
    expect(cards[0]).toMatchObject({
      answered: [],
      response: { status: 'resolved', payload: { name: 'Ada' } }
    });
    const saved = JSON.parse(JSON.stringify(snapshotOf(model)));
    const { snapshot, problems } = readSnapshot(saved);
    expect(problems).toEqual([]);
    expect(snapshot.entries).toMatchObject(saved.entries);
  });

  it('are dismissed with "cancelled"', () => {
    const { model, transport, cards } = paused(request({}));
    model.respond(cards[0], { status: 'cancelled' });
    expect(transport.lastTurn.request).toMatchObject({
      kind: 'resume',
      reviews: [{ interruptIds: ['i-1'], response: { status: 'cancelled' } }]
    });
  });

  it('of one turn go together, once every one is answered', () => {
    const { model, transport, cards } = paused(
      request({}, ['i-1']),
      request({ message: 'And your age?' }, ['i-2'])
    );
    expect(cards).toHaveLength(2);
    model.respond(cards[1], { status: 'resolved', payload: 'Ada' });
    expect(transport.turns).toHaveLength(1);
    expect(model.status).toBe('awaiting-decision');
    model.respond(cards[0], { status: 'cancelled' });
    expect(transport.turns).toHaveLength(2);
    expect(
      (transport.lastTurn.request as { reviews: unknown[] }).reviews
    ).toEqual([
      { interruptIds: ['i-1'], rows: 0, response: { status: 'cancelled' } },
      {
        interruptIds: ['i-2'],
        rows: 0,
        response: { status: 'resolved', payload: 'Ada' }
      }
    ]);
  });

  it('past their expiresAt are not sent, and the conversation goes on', async () => {
    // The clock is the test's: a busy machine cannot make 60 ms late
    // (real timers are back after each test).
    jest.useFakeTimers();
    const soon = new Date(Date.now() + 60).toISOString();
    const { model, transport, cards } = paused(request({ expires_at: soon }));
    expect(model.status).toBe('awaiting-decision');
    const updates: IInterruptCard[] = [];
    model.turnChanged.connect((_, update) => {
      for (const change of update.changes) {
        if (change.type === 'updated' && change.item.kind === 'interrupt') {
          updates.push(change.item);
        }
      }
    });
    await jest.advanceTimersByTimeAsync(120);
    expect(model.status).toBe('idle');
    expect(updates).toEqual([cards[0]]);
    expect(() => model.respond(cards[0], { status: 'cancelled' })).toThrow(
      /^This request expired at .*: it can no longer be answered\.$/
    );
    expect(transport.turns).toHaveLength(1);
    model.send('hello');
    expect(transport.lastTurn.request.kind).toBe('chat');
  });
});
