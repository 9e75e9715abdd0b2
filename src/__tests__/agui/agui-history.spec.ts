/**
 * The conversation the panel keeps for an AG-UI agent
 * (docs/protocol.md §8.8–8.11): the message list built from a run's events with the stream's
 * ids, replaced by MESSAGES_SNAPSHOT, saved as the transport memory and read
 * back after a reload; what each run's input carries of it; the open
 * interrupts, the calls of offered tools and the token usage a run leaves.
 */
import { problemText } from '../../wire/problem';
import { AguiHistory } from '../../agui/history';
import type { IAguiEvent } from '../../agui/events';
import { runInput } from '../../agui/request';
import { AguiThread } from '../../agui/thread';
import { AguiRunMapper } from '../../agui/to-chunk-frames';
import type { WireFrame } from '../../wire/frame-types';
import type { JsonObject } from '../../wire/json';
import type { IClientToolCall, TurnRequest } from '../../wire/turn';
import { fixtureSse, loadExpected, runFixture } from '../support/agui-harness';

const START: IAguiEvent = { type: 'RUN_STARTED', threadId: 't', runId: 'r' };
const FINISH: IAguiEvent = { type: 'RUN_FINISHED', threadId: 't', runId: 'r' };

function text(id: string, delta: string): IAguiEvent[] {
  return [
    { type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta },
    { type: 'TEXT_MESSAGE_END', messageId: id }
  ];
}

function call(
  id: string,
  name: string,
  args: string,
  parentMessageId?: string
): IAguiEvent[] {
  return [
    {
      type: 'TOOL_CALL_START',
      toolCallId: id,
      toolCallName: name,
      ...(parentMessageId ? { parentMessageId } : {})
    },
    { type: 'TOOL_CALL_ARGS', toolCallId: id, delta: args },
    { type: 'TOOL_CALL_END', toolCallId: id }
  ];
}

interface IMapped {
  frames: WireFrame[];
  diagnostics: string[];
  /** What `finished` reported, when the run finished. */
  finished: { memory: JsonObject; calls: IClientToolCall[] } | null;
}

/** Map one run's events on `thread`, recording what the output receives. */
function map(thread: AguiThread, events: IAguiEvent[]): IMapped {
  const mapped: IMapped = { frames: [], diagnostics: [], finished: null };
  const mapper = new AguiRunMapper(thread, {
    frame: frame => mapped.frames.push(frame),
    diagnostic: found => mapped.diagnostics.push(problemText(found)),
    finished: (memory, calls) => {
      // Reported before the terminal frame: the model keeps it first.
      expect(mapped.frames.some(frame => frame.status === 'complete')).toBe(
        false
      );
      mapped.finished = { memory, calls };
    }
  });
  events.forEach(event => mapper.apply(event));
  mapper.endOfStream();
  return mapped;
}

/** A turn the way a transport runs it: input from memory, run, remembered memory. */
function turn(
  request: TurnRequest,
  events: (input: JsonObject) => IAguiEvent[],
  history: 'full' | 'latest' = 'full'
): { input: JsonObject; mapped: IMapped } {
  const thread = new AguiThread(request.threadId);
  thread.load(request.memory);
  const { input } = runInput(request, thread, history);
  return { input, mapped: map(thread, events(input)) };
}

describe('AguiHistory', () => {
  it('keeps the ids the stream gave: text, tool calls with their arguments, results', () => {
    const history = new AguiHistory();
    history.addUser('u-1', 'delete it');
    history.startText('m-1', null);
    history.appendText('m-1', 'Deleting ', null);
    history.appendText('m-1', 'now.', null);
    history.startCall('c-1', 'delete_file', 'm-1', null);
    history.appendArgs('c-1', '{"path": ');
    history.appendArgs('c-1', '"a.txt"}');
    history.addToolResult('r-1', 'c-1', 'deleted', null, null);
    expect(history.messages).toEqual([
      { id: 'u-1', role: 'user', content: 'delete it' },
      {
        id: 'm-1',
        role: 'assistant',
        content: 'Deleting now.',
        toolCalls: [
          {
            id: 'c-1',
            type: 'function',
            function: { name: 'delete_file', arguments: '{"path": "a.txt"}' }
          }
        ]
      },
      { id: 'r-1', role: 'tool', toolCallId: 'c-1', content: 'deleted' }
    ]);
    expect(history.isAnswered('c-1')).toBe(true);
  });

  it('puts a call without a usable parent on the last assistant message, else on a new one', () => {
    const history = new AguiHistory();
    history.addUser('u-1', 'go');
    history.startCall('c-1', 'a', null, null);
    history.startCall('c-2', 'b', null, null);
    history.addToolResult('r-1', 'c-1', 'x', null, null);
    // Named after the tool message (ag-ui-langgraph does this for calls at tool end).
    history.startCall('c-3', 'c', 'r-1', 'sub-1');
    const [, first, result, second] = history.messages;
    expect(first.toolCalls).toHaveLength(2);
    expect(result.id).toBe('r-1');
    expect(second).toMatchObject({ role: 'assistant', subagentRunId: 'sub-1' });
    expect(second.id).not.toBe('r-1');
    expect((second.toolCalls as unknown[]).length).toBe(1);
  });

  it('is replaced by a snapshot and never sends activity messages', () => {
    const history = new AguiHistory();
    history.addUser('u-1', 'old');
    history.setActivity('a-1', 'search', { step: 1 }, null);
    history.setActivity('a-1', 'search', { step: 2 }, null);
    expect(history.messages[1]).toMatchObject({ content: { step: 2 } });
    history.replace([
      { id: 'u-1', role: 'user', content: 'hi' },
      { id: 'm-1', role: 'assistant', content: 'hello' },
      { id: 'a-2', role: 'activity', activityType: 'plan', content: {} },
      { role: 'user', content: 'no id: dropped' },
      { id: 'm-1', role: 'assistant', content: 'a second m-1: dropped' }
    ]);
    expect(history.messages.map(message => message.id)).toEqual([
      'u-1',
      'm-1',
      'a-2'
    ]);
    expect(history.forAgent().map(message => message.id)).toEqual([
      'u-1',
      'm-1'
    ]);
  });

  it('keeps every character of a very long message', () => {
    const history = new AguiHistory();
    history.appendText('m', 'x'.repeat(2_000_000), null);
    history.appendText('m', 'the end', null);
    const content = history.messages[0].content as string;
    expect(content.length).toBe(2_000_007);
    expect(content.endsWith('xthe end')).toBe(true);
  });
});

describe('the thread as the conversation’s memory', () => {
  it('sends the whole conversation on every run, with the state back', () => {
    const first = turn(
      { kind: 'chat', threadId: 't', message: 'one' },
      input => [
        START,
        { type: 'STATE_SNAPSHOT', snapshot: { turns_seen: 1 } },
        ...text(`m-${input.runId}`, 'Reply 1'),
        FINISH
      ]
    );
    const second = turn(
      {
        kind: 'chat',
        threadId: 't',
        message: 'two',
        memory: first.mapped.finished!.memory
      },
      () => [START, FINISH]
    );
    expect(second.input.state).toEqual({ turns_seen: 1 });
    expect(second.input.protocolVersion).toBe('1.0');
    const messages = second.input.messages as JsonObject[];
    expect(messages).toEqual([
      (first.input.messages as JsonObject[])[0],
      {
        id: `m-${first.input.runId}`,
        role: 'assistant',
        content: 'Reply 1'
      },
      { id: expect.any(String), role: 'user', content: 'two' }
    ]);
  });

  it('sends only the new messages with history "latest"', () => {
    const first = turn({ kind: 'chat', threadId: 't', message: 'one' }, () => [
      START,
      ...text('m-1', 'Reply 1'),
      FINISH
    ]);
    const memory = first.mapped.finished!.memory;
    const second = turn(
      { kind: 'chat', threadId: 't', message: 'two', memory },
      () => [START, FINISH],
      'latest'
    );
    expect(second.input.messages).toEqual([
      { id: expect.any(String), role: 'user', content: 'two' }
    ]);
    const results = turn(
      {
        kind: 'tool_results',
        threadId: 't',
        memory,
        toolResults: [
          { callId: 'c-1', name: 'echo', content: 'boom', error: true }
        ]
      },
      () => [START, FINISH],
      'latest'
    );
    expect(results.input.messages).toEqual([
      {
        id: expect.any(String),
        role: 'tool',
        toolCallId: 'c-1',
        content: 'boom',
        error: 'boom'
      }
    ]);
  });

  it('round-trips through JSON (a reload) and counts everything in it as shown', () => {
    const first = turn(
      { kind: 'chat', threadId: 't', message: 'use it' },
      () => [
        START,
        ...text('m-1', 'Calling.'),
        ...call('c-1', 'lookup', '{"q": 1}', 'm-1'),
        {
          type: 'TOOL_CALL_RESULT',
          messageId: 'r-1',
          toolCallId: 'c-1',
          content: '42'
        },
        { type: 'STATE_SNAPSHOT', snapshot: { n: 1 } },
        FINISH
      ]
    );
    const saved = JSON.parse(JSON.stringify(first.mapped.finished!.memory));
    const thread = new AguiThread('t');
    thread.load(saved);
    expect(thread.memory()).toEqual(saved);
    expect([...thread.deliveredMessages]).toEqual(['m-1']);
    expect([...thread.deliveredCalls]).toEqual(['c-1']);
    expect([...thread.deliveredResults].sort()).toEqual(['c-1', 'r-1']);
    expect(thread.callNames.get('c-1')).toBe('lookup');
    // A snapshot that repeats the thread shows nothing again.
    const again = map(thread, [
      START,
      { type: 'MESSAGES_SNAPSHOT', messages: saved.messages },
      FINISH
    ]);
    expect(again.frames.map(frame => frame.status)).toEqual(['complete']);
  });

  it('starts empty from memory it cannot read', () => {
    const thread = new AguiThread('t');
    thread.load({ agui: 99, messages: [{ id: 'x', role: 'user' }] });
    expect(thread.memory()).toEqual({
      agui: 1,
      messages: [],
      state: {},
      interrupts: [],
      context: []
    });
  });

  it('is replaced by MESSAGES_SNAPSHOT, and remembered only when the run finishes', () => {
    const snapshot = [
      { id: 'u-server', role: 'user', content: 'one' },
      { id: 'm-server', role: 'assistant', content: 'hi' }
    ];
    const finished = turn(
      { kind: 'chat', threadId: 't', message: 'one' },
      () => [
        START,
        ...text('m-streamed', 'hi'),
        { type: 'MESSAGES_SNAPSHOT', messages: snapshot },
        FINISH
      ]
    );
    expect(finished.mapped.finished!.memory.messages).toEqual(snapshot);
    const failed = turn({ kind: 'chat', threadId: 't', message: 'one' }, () => [
      START,
      ...text('m', 'partly'),
      { type: 'RUN_ERROR', message: 'boom' }
    ]);
    expect(failed.mapped.finished).toBeNull();
  });

  it('sends the context of the last message again on a resume', () => {
    const asked = turn(
      {
        kind: 'chat',
        threadId: 't',
        message: 'ask',
        context: { current_directory: 'notes' }
      },
      () => [START, FINISH]
    );
    const resumed = turn(
      {
        kind: 'resume',
        threadId: 't',
        decisions: [],
        memory: asked.mapped.finished!.memory
      },
      () => [START, FINISH]
    );
    expect(resumed.input.context).toEqual([
      { description: 'The current directory in JupyterLab', value: 'notes' }
    ]);
  });

  it('offers the request’s tools, or none when the agent takes none', () => {
    const echo = {
      name: 'echo',
      description: 'Say it back.',
      parameters: { type: 'object' }
    };
    const request: TurnRequest = {
      kind: 'chat',
      threadId: 't',
      message: 'hi',
      tools: [echo]
    };
    expect(runInput(request, new AguiThread('t')).input.tools).toEqual([echo]);
    expect(
      runInput(request, new AguiThread('t'), 'full', false).input.tools
    ).toEqual([]);
  });
});

describe('interrupts the run leaves open', () => {
  it('counts an interrupt announced without an id, then with one, once (ag-ui-langgraph with emit_interrupt_outcome)', async () => {
    const name = 'Q16-outcome-after-legacy-without-id.jsonl';
    const finished = fixtureSse(name)
      .split('\n')
      .filter(line => line.startsWith('data: '))
      .map(line => JSON.parse(line.slice(6)))
      .find(event => event.type === 'RUN_FINISHED');
    const id: string = finished.outcome.interrupts[0].id;
    const thread = new AguiThread('t-q16');
    const run = await runFixture(name, loadExpected(), thread);
    const cards = run.reducer.state.items.filter(
      item => item.kind === 'interrupt'
    );
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ interruptIds: [id] });
    expect(thread.openInterrupts).toEqual([{ id, rows: 1 }]);
    const decisions = [{ type: 'respond' as const, message: 'Ada' }];
    const { input, note } = runInput(
      { kind: 'resume', threadId: 't-q16', decisions },
      thread
    );
    expect(note).toBeNull();
    expect(input.resume).toEqual([
      {
        interruptId: id,
        status: 'resolved',
        payload: { decisions }
      }
    ]);
    expect(input.forwardedProps).toEqual({
      command: { resume: { decisions } }
    });
  });

  it('makes 1.0 interrupts of other servers requests, answered on resume[] alone', async () => {
    const name = 'Q17-request-with-schema-and-usage.jsonl';
    const thread = new AguiThread('t-q17');
    const run = await runFixture(name, loadExpected(), thread);
    const cards = run.reducer.state.items.filter(
      item => item.kind === 'interrupt'
    );
    expect(
      cards.map(card => card.kind === 'interrupt' && card.request)
    ).toEqual([
      {
        reason: 'input_required',
        message: 'What is your name?',
        responseSchema: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 } },
          required: ['name']
        },
        expiresAt: null,
        toolCallId: null
      },
      {
        reason: 'tool_call',
        message: 'Delete notes.txt?',
        responseSchema: null,
        expiresAt: '2999-01-01T00:00:00Z',
        toolCallId: 'call-q17'
      }
    ]);
    expect(run.reducer.state.usage).toEqual({
      inputTokens: 125,
      outputTokens: 32
    });
    expect(thread.openInterrupts).toEqual([
      { id: 'int-name', rows: 0, request: true },
      { id: 'int-delete', rows: 0, request: true }
    ]);
    const { input, note } = runInput(
      {
        kind: 'resume',
        threadId: 't-q17',
        decisions: [],
        reviews: [
          {
            interruptIds: ['int-name'],
            rows: 0,
            response: { status: 'resolved', payload: { name: 'Ada' } }
          },
          {
            interruptIds: ['int-delete'],
            rows: 0,
            response: { status: 'cancelled' }
          }
        ]
      },
      thread
    );
    expect(note).toBeNull();
    expect(input.forwardedProps).toEqual({});
    expect(input.resume).toEqual([
      { interruptId: 'int-name', status: 'resolved', payload: { name: 'Ada' } },
      { interruptId: 'int-delete', status: 'cancelled' }
    ]);
  });

  it('reads a LangGraph interrupt value with a responseSchema as a request, on both signals', () => {
    const value = {
      reason: 'input_required',
      message: 'Name?',
      responseSchema: { type: 'string' }
    };
    const mapped = map(new AguiThread('t'), [
      START,
      { type: 'CUSTOM', name: 'on_interrupt', value: JSON.stringify(value) },
      {
        ...FINISH,
        outcome: {
          type: 'interrupt',
          interrupts: [
            {
              id: 'i-1',
              reason: 'input_required',
              message: 'Name?',
              responseSchema: { type: 'string' },
              metadata: { langgraph: { raw: value } }
            }
          ]
        }
      }
    ]);
    const interrupts = mapped.frames.filter(
      frame => frame.status === 'interrupt'
    );
    expect(interrupts).toHaveLength(2);
    expect(interrupts[1]).toMatchObject({
      interrupt_ids: ['i-1'],
      request: {
        reason: 'input_required',
        message: 'Name?',
        response_schema: { type: 'string' }
      }
    });
    expect(interrupts[0]).toEqual({
      ...interrupts[1],
      interrupt_ids: undefined
    });
    expect(mapped.finished!.memory.interrupts).toEqual([
      { id: 'i-1', rows: 0, request: true }
    ]);
  });
});

describe('calls of offered tools', () => {
  const offered: TurnRequest = {
    kind: 'chat',
    threadId: 't',
    message: 'echo hi',
    tools: [{ name: 'echo', description: '', parameters: {} }]
  };

  it('reports the unanswered calls of offered tools, with their arguments, before the terminal frame', () => {
    const { mapped } = turn(offered, () => [
      START,
      ...text('m-1', 'Calling.'),
      ...call('c-1', 'echo', '{"text": "hi"}', 'm-1'),
      ...call('c-2', 'server_tool', '{}', 'm-1'),
      ...call('c-3', 'echo', '{"text": "answered"}', 'm-1'),
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'r-3',
        toolCallId: 'c-3',
        content: 'done on the server'
      },
      FINISH
    ]);
    expect(mapped.finished!.calls).toEqual([
      { id: 'c-1', name: 'echo', args: { text: 'hi' } }
    ]);
  });

  it('takes the producer’s pendingToolCallIds when it names them', () => {
    const { mapped } = turn(offered, () => [
      START,
      ...call('c-1', 'echo', '{"text": "a"}'),
      ...call('c-2', 'echo', '{"text": "b"}'),
      { ...FINISH, outcome: { type: 'success', pendingToolCallIds: ['c-2'] } }
    ]);
    expect(mapped.finished!.calls.map(found => found.id)).toEqual(['c-2']);
  });

  it('reports none when the run paused, was cancelled, or offered nothing', () => {
    const paused = turn(offered, () => [
      START,
      ...call('c-1', 'echo', '{}'),
      {
        ...FINISH,
        outcome: {
          type: 'interrupt',
          interrupts: [{ id: 'i', reason: 'confirmation' }]
        }
      }
    ]);
    expect(paused.mapped.finished!.calls).toEqual([]);
    const cancelled = turn(offered, () => [
      START,
      ...call('c-1', 'echo', '{}'),
      { ...FINISH, outcome: { type: 'cancelled' } }
    ]);
    expect(cancelled.mapped.finished!.calls).toEqual([]);
    const notOffered = turn({ ...offered, tools: [] }, () => [
      START,
      ...call('c-1', 'echo', '{}'),
      FINISH
    ]);
    expect(notOffered.mapped.finished!.calls).toEqual([]);
  });

  it('puts the results the request carries into the thread before the message', () => {
    const first = turn(offered, () => [
      START,
      ...call('c-1', 'echo', '{"text": "hi"}'),
      FINISH
    ]);
    const second = turn(
      {
        kind: 'tool_results',
        threadId: 't',
        memory: first.mapped.finished!.memory,
        toolResults: [
          {
            callId: 'c-1',
            name: 'echo',
            content: '{"echoed":"hi"}',
            error: false
          }
        ]
      },
      () => [START, FINISH]
    );
    const messages = second.input.messages as JsonObject[];
    expect(messages.map(message => message.role)).toEqual([
      'user',
      'assistant',
      'tool'
    ]);
    expect(messages[2]).toEqual({
      id: expect.any(String),
      role: 'tool',
      toolCallId: 'c-1',
      content: '{"echoed":"hi"}'
    });
  });
});

describe('token usage', () => {
  it('sums a terminal event’s usage over its models, before the terminal frame', () => {
    const finished = map(new AguiThread('t'), [
      START,
      {
        ...FINISH,
        usage: [
          { inputTokens: 3, outputTokens: 4 },
          { inputTokens: 5 },
          { outputTokens: 'many' }
        ]
      }
    ]);
    expect(finished.frames).toEqual([
      { status: 'usage', input_tokens: 8, output_tokens: 4 },
      { status: 'complete', outcome: 'complete' }
    ]);
    const failed = map(new AguiThread('t'), [
      START,
      { type: 'RUN_ERROR', message: 'boom', usage: [{ outputTokens: 2 }] }
    ]);
    expect(failed.frames[0]).toEqual({
      status: 'usage',
      input_tokens: null,
      output_tokens: 2
    });
    const none = map(new AguiThread('t'), [START, { ...FINISH, usage: [] }]);
    expect(none.frames.map(frame => frame.status)).toEqual(['complete']);
  });
});
