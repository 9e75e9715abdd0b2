/**
 * The AG-UI adapter's parts: chunk normalisation, interrupt normalisation
 * (against langstage-core's own output), request bodies, JSON Patch, the
 * wire model's AG-UI additions, and a fuzz check that no input makes the
 * adapter or the reducer throw.
 */
import { type IProblem, problemText } from '../../wire/problem';
import * as fs from 'fs';
import * as path from 'path';

import fc from 'fast-check';

import { ChunkNormaliser } from '../../agui/chunks';
import { contentText, type IAguiEvent } from '../../agui/events';
import { patched } from '../../agui/patch';
import { runInput } from '../../agui/request';
import { AguiThread, type IOpenInterrupt } from '../../agui/thread';
import { AguiRunMapper } from '../../agui/to-chunk-frames';
import { decodeFrame } from '../../wire/frames';
import { type WireFrame } from '../../wire/frame-types';
import { normalizeInterrupt } from '../../wire/interrupts';
import { TurnReducer } from '../../wire/reduce';
import type { ITurnContext } from '../../wire/turn';
import type { Decision } from '../../wire/types';
import { AGUI_DIR, fixtureSse, mapRun } from '../support/agui-harness';

function run(events: IAguiEvent[], thread = new AguiThread('t')) {
  return mapRun(thread, events);
}

/** The input of a chat turn on a new thread. */
function chatInput(threadId: string, message: string, context?: ITurnContext) {
  return runInput(
    { kind: 'chat', threadId, message, context },
    new AguiThread(threadId)
  ).input;
}

/** A resume on a thread whose last run paused on `open`. */
function resumeInput(
  threadId: string,
  decisions: Decision[],
  open: IOpenInterrupt[]
) {
  const thread = new AguiThread(threadId);
  thread.openInterrupts = open;
  return runInput({ kind: 'resume', threadId, decisions }, thread);
}

const START: IAguiEvent = { type: 'RUN_STARTED', threadId: 't', runId: 'r' };
const FINISH: IAguiEvent = { type: 'RUN_FINISHED', threadId: 't', runId: 'r' };

describe('ChunkNormaliser', () => {
  it('drops a first chunk without an id and says why', () => {
    const problems: string[] = [];
    const out = new ChunkNormaliser().normalise(
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'orphan' },
      found => problems.push(problemText(found))
    );
    expect(out).toEqual([]);
    expect(problems).toEqual([
      'TEXT_MESSAGE_CHUNK without an id and no open sequence: dropped'
    ]);
  });

  it('opens with the chunk fields and closes on the next non-RAW event', () => {
    const normaliser = new ChunkNormaliser();
    const fail = (found: IProblem) => {
      throw new Error(problemText(found));
    };
    expect(
      normaliser.normalise(
        {
          type: 'TOOL_CALL_CHUNK',
          toolCallId: 'c1',
          toolCallName: 'f',
          delta: '{',
          subagentRunId: 's'
        },
        fail
      )
    ).toEqual([
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'c1',
        toolCallName: 'f',
        subagentRunId: 's'
      },
      {
        type: 'TOOL_CALL_ARGS',
        toolCallId: 'c1',
        delta: '{',
        subagentRunId: 's'
      }
    ]);
    expect(normaliser.normalise({ type: 'RAW', event: {} }, fail)).toEqual([
      { type: 'RAW', event: {} }
    ]);
    expect(normaliser.normalise({ type: 'STEP_FINISHED' }, fail)).toEqual([
      { type: 'TOOL_CALL_END', toolCallId: 'c1', subagentRunId: 's' },
      { type: 'STEP_FINISHED' }
    ]);
  });
});

describe('normalizeInterrupt', () => {
  // Recorded from the installed langstage-core's `_normalize_interrupt` by
  // scripts/record-agui.py; a pytest checks the file against the package.
  const cases: {
    value: unknown;
    action_requests: unknown;
    review_configs: unknown;
    allowed_decisions: unknown;
  }[] = JSON.parse(
    fs.readFileSync(path.join(AGUI_DIR, 'normalize-interrupt.json'), 'utf-8')
  );

  it.each(cases.map(c => [JSON.stringify(c.value), c]))(
    '%s reads like core',
    (_, { value, ...core }) => {
      // Compared as the panel reads both: through the frame decoder.
      const ours = decodeFrame({
        status: 'interrupt',
        interrupt: normalizeInterrupt(value)
      });
      const theirs = decodeFrame({ status: 'interrupt', interrupt: core });
      expect(ours).toEqual(theirs);
    }
  );
});

describe('request bodies', () => {
  it('declares 1.0 and sends the user message, with fresh ids every time', () => {
    const first = chatInput('t-1', 'hello');
    const second = chatInput('t-1', 'hello');
    expect(first).toEqual({
      threadId: 't-1',
      runId: expect.any(String),
      protocolVersion: '1.0',
      messages: [{ id: expect.any(String), role: 'user', content: 'hello' }],
      tools: [],
      context: [],
      forwardedProps: {},
      state: {}
    });
    expect(second.runId).not.toBe(first.runId);
    expect(second.messages[0].id).not.toBe(first.messages[0].id);
  });

  it('describes the workspace context as AG-UI context entries', () => {
    const input = chatInput('t', 'hi', {
      current_directory: 'work/notebooks',
      selected_text: 'x = 1',
      focused_widget: ''
    });
    expect(input.context).toEqual([
      {
        description: 'The current directory in JupyterLab',
        value: 'work/notebooks'
      },
      { description: 'The text the user has selected', value: 'x = 1' }
    ]);
  });

  it('resumes on both channels, each interrupt with its own rows', () => {
    const decisions = [
      { type: 'approve' as const },
      { type: 'reject' as const, message: 'no' },
      { type: 'respond' as const, message: 'Ada' }
    ];
    const { input, note } = resumeInput('t', decisions, [
      { id: 'i1', rows: 2 },
      { id: 'i2', rows: 1 }
    ]);
    expect(note).toBeNull();
    expect(input.messages).toEqual([]);
    expect(input.forwardedProps).toEqual({
      command: { resume: { decisions } }
    });
    expect(input.resume).toEqual([
      {
        interruptId: 'i1',
        status: 'resolved',
        payload: { decisions: decisions.slice(0, 2) }
      },
      {
        interruptId: 'i2',
        status: 'resolved',
        payload: { decisions: decisions.slice(2) }
      }
    ]);
  });

  it('falls back to the legacy channel alone when it cannot cover every interrupt', () => {
    const approve = [{ type: 'approve' as const }];
    const unknownId = resumeInput('t', approve, [{ id: null, rows: 1 }]);
    expect(unknownId.input.resume).toBeUndefined();
    expect(problemText(unknownId.note!)).toMatch(
      /did not reveal every interrupt id/
    );
    const mismatch = resumeInput('t', approve, [{ id: 'i', rows: 2 }]);
    expect(mismatch.input.resume).toBeUndefined();
    expect(problemText(mismatch.note!)).toBe(
      '1 decision(s) for 2 open review row(s): resuming through forwardedProps only'
    );
    const nothingOpen = resumeInput('t', approve, []);
    expect(nothingOpen.input.resume).toBeUndefined();
    expect(nothingOpen.note).toBeNull();
  });

  it('remembers the interrupt ids of a paused run for the resume', () => {
    const thread = new AguiThread('t');
    run(
      [
        START,
        {
          type: 'CUSTOM',
          name: 'on_interrupt',
          value: '{"action_requests": [{"name": "a"}, {"name": "b"}]}',
          rawEvent: { id: 'i-1' }
        },
        FINISH
      ],
      thread
    );
    expect(thread.openInterrupts).toEqual([{ id: 'i-1', rows: 2 }]);
    run([START, FINISH], thread);
    expect(thread.openInterrupts).toEqual([]);
  });
});

describe('patched', () => {
  it('applies a patch to a copy', () => {
    const state = { a: [1] };
    const result = patched(state, [{ op: 'add', path: '/a/-', value: 2 }]);
    expect(result).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(state).toEqual({ a: [1] });
  });

  it('applies all or nothing', () => {
    const state = { a: 1 };
    const result = patched(state, [
      { op: 'replace', path: '/a', value: 2 },
      { op: 'remove', path: '/missing' }
    ]);
    expect(result.ok).toBe(false);
    expect(state).toEqual({ a: 1 });
  });

  it('refuses to touch prototypes', () => {
    const result = patched({}, [
      { op: 'add', path: '/__proto__/polluted', value: true }
    ]);
    expect(result.ok).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('contentText', () => {
  it('joins text parts and keeps anything else as JSON', () => {
    expect(contentText('plain')).toBe('plain');
    expect(
      contentText([
        { type: 'text', text: 'a' },
        { type: 'image', source: { type: 'url', value: 'u' } },
        { type: 'text', text: 'b' }
      ])
    ).toBe('ab');
    expect(contentText({ rows: 2 })).toBe('{"rows":2}');
    expect(contentText(undefined)).toBe('');
  });
});

describe('the wire model, AG-UI additions', () => {
  it('decodes state, activity and subagent frames and tags', () => {
    expect(decodeFrame({ status: 'state', state: { n: 1 } })).toEqual({
      ok: true,
      frame: { status: 'state', state: { n: 1 } }
    });
    expect(
      decodeFrame({
        status: 'activity',
        id: 'a',
        activity_type: 'search',
        content: { q: 1 },
        subagent: { id: 's', name: 'r' }
      })
    ).toEqual({
      ok: true,
      frame: {
        status: 'activity',
        id: 'a',
        activity_type: 'search',
        content: { q: 1 },
        subagent: { id: 's', name: 'r' }
      }
    });
    expect(decodeFrame({ status: 'activity', content: {} })).toEqual({
      ok: true,
      frame: {
        status: 'ignored',
        reason: 'activity frame without a string "id" and "activity_type"'
      }
    });
    expect(
      decodeFrame({ status: 'subagent', id: 's', subagent_status: 'paused' })
    ).toEqual({
      ok: true,
      frame: {
        status: 'ignored',
        reason:
          'subagent frame without a string "id" and a known "subagent_status"'
      }
    });
    const tagged = decodeFrame({
      status: 'streaming',
      chunk: 'x',
      subagent: 'researcher'
    });
    expect(
      tagged.ok && tagged.frame.status === 'streaming' && tagged.frame.problems
    ).toEqual(['"subagent" is not an object with a string "id"']);
  });

  it('keeps state, activities and subagents beside the transcript', () => {
    const reducer = new TurnReducer();
    const apply = (frame: unknown) => {
      const decoded = decodeFrame(frame);
      if (!decoded.ok) {
        throw new Error(decoded.reason);
      }
      return reducer.apply(decoded.frame);
    };
    apply({ status: 'streaming', chunk: 'a', node: 'n', message_id: 'm' });
    expect(apply({ status: 'state', state: { k: 1 } })).toEqual([
      { type: 'state', state: { k: 1 } }
    ]);
    const activity = {
      status: 'activity',
      id: 'a1',
      activity_type: 'search',
      content: { hits: 1 }
    };
    expect(apply(activity)).toEqual([
      {
        type: 'activity',
        activity: { id: 'a1', activityType: 'search', content: { hits: 1 } }
      }
    ]);
    apply({ ...activity, content: { hits: 2 } });
    apply({
      status: 'subagent',
      id: 's1',
      name: 'researcher',
      subagent_status: 'running'
    });
    apply({ status: 'subagent', id: 's1', subagent_status: 'finished' });
    // Still one text block: the side frames did not close it.
    apply({ status: 'streaming', chunk: 'b', node: 'n', message_id: 'm' });
    expect(reducer.state.items).toHaveLength(1);
    expect(reducer.state.agentState).toEqual({ k: 1 });
    expect(reducer.state.activities).toEqual([
      { id: 'a1', activityType: 'search', content: { hits: 2 } }
    ]);
    expect(reducer.state.subagents).toEqual([
      {
        id: 's1',
        name: 'researcher',
        description: null,
        parentId: null,
        status: 'finished',
        message: null
      }
    ]);
  });

  it('starts a new block when another subagent speaks', () => {
    const turn = run([
      START,
      { type: 'SUBAGENT_STARTED', subagentRunId: 's1', name: 'one' },
      { type: 'SUBAGENT_STARTED', subagentRunId: 's2', name: 'two' },
      { type: 'REASONING_MESSAGE_START', messageId: 'r1', subagentRunId: 's1' },
      {
        type: 'REASONING_MESSAGE_CONTENT',
        messageId: 'r1',
        delta: 'a',
        subagentRunId: 's1'
      },
      { type: 'REASONING_MESSAGE_END', messageId: 'r1' },
      { type: 'REASONING_MESSAGE_START', messageId: 'r2' },
      {
        type: 'REASONING_MESSAGE_CONTENT',
        messageId: 'r2',
        delta: 'b',
        subagentRunId: 's2'
      },
      { type: 'REASONING_MESSAGE_END', messageId: 'r2' },
      FINISH
    ]);
    expect(
      turn.reducer.state.items.map(item =>
        item.kind === 'reasoning' ? [item.text, item.subagent?.name] : null
      )
    ).toEqual([
      ['a', 'one'],
      ['b', 'two']
    ]);
  });

  it('carries the interrupt ids to the card', () => {
    const turn = run([
      START,
      {
        type: 'CUSTOM',
        name: 'on_interrupt',
        value: '"Proceed?"',
        rawEvent: { id: 'i-9' }
      },
      FINISH
    ]);
    const card = turn.reducer.state.items[0];
    expect(card.kind === 'interrupt' && card.interruptIds).toEqual(['i-9']);
  });
});

describe('the terminal latch', () => {
  it('drops what follows RUN_FINISHED with one warning and one diagnostic', () => {
    const turn = run([
      START,
      FINISH,
      { type: 'TEXT_MESSAGE_START', messageId: 'late' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'late', delta: 'late' },
      { type: 'RUN_ERROR', message: 'late too' }
    ]);
    expect(turn.reducer.state.outcome).toBe('complete');
    expect(turn.reducer.state.items).toEqual([]);
    const late =
      'ignored TEXT_MESSAGE_START and any later events: the run already ended with RUN_FINISHED';
    expect(turn.diagnostics).toEqual([late]);
    // The transport logs the warning (the mapper is pure: no console).
    expect(turn.warnings).toEqual([late]);
  });

  it('reports an unknown event type once, as a diagnostic and a warning', () => {
    const turn = run([
      START,
      { type: 'SOMETHING_NEW' },
      { type: 'SOMETHING_NEW' },
      FINISH
    ]);
    const unknown = 'unknown event type SOMETHING_NEW: ignored';
    expect(turn.diagnostics).toEqual([unknown]);
    expect(turn.warnings).toEqual([unknown]);
    expect(turn.reducer.state.outcome).toBe('complete');
  });

  it('maps our own abort (RUN_ERROR code "abort") to cancelled', () => {
    const turn = run([
      START,
      { type: 'RUN_ERROR', message: 'x', code: 'abort' }
    ]);
    expect(turn.reducer.state.outcome).toBe('cancelled');
    expect(turn.reducer.state.cancelMessage).toBe(
      'Execution cancelled by user'
    );
  });

  it('maps a RUN_ERROR after our cancel request to cancelled', () => {
    const frames: WireFrame[] = [];
    const mapper = new AguiRunMapper(new AguiThread('t'), {
      frame: frame => frames.push(frame),
      diagnostic: () => undefined
    });
    mapper.apply(START);
    mapper.noteCancelRequested();
    mapper.apply({ type: 'RUN_ERROR', message: 'Run r was cancelled' });
    expect(frames).toEqual([
      { status: 'cancelled', message: 'Execution cancelled by user' }
    ]);
  });
});

describe('fuzz: no input makes the adapter or the reducer throw', () => {
  const pool: IAguiEvent[] = [];
  for (const name of fs
    .readdirSync(AGUI_DIR)
    .filter(n => n.endsWith('.jsonl'))) {
    for (const line of fixtureSse(name).split('\n')) {
      if (line.startsWith('data: ')) {
        pool.push(JSON.parse(line.slice(6)));
      }
    }
  }
  const json = fc.jsonValue();
  const mutated = fc.oneof(
    fc.constantFrom(...pool),
    fc
      .tuple(fc.constantFrom(...pool), fc.string(), json)
      .map(([event, key, value]) => ({ ...event, [key]: value })),
    fc
      .tuple(
        fc.constantFrom(...pool),
        fc.constantFrom(
          'messageId',
          'toolCallId',
          'delta',
          'content',
          'messages',
          'snapshot',
          'delta',
          'patch',
          'outcome',
          'value',
          'rawEvent',
          'subagentRunId',
          'type'
        ),
        json
      )
      .map(([event, key, value]) => ({ ...event, [key]: value }))
  );

  it('for random sequences of mutated events and raw text', () => {
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(mutated, fc.string(), json), { maxLength: 40 }),
        events => {
          const thread = new AguiThread('fuzz');
          const inputs = events.map(event =>
            typeof event === 'string' ? event : JSON.stringify(event)
          );
          // mapRun also throws if the mapper makes a frame that does not decode.
          const turn = mapRun(thread, inputs);
          expect(turn.reducer.state.outcome).not.toBeNull();
        }
      ),
      { numRuns: 400 }
    );
  });
});
