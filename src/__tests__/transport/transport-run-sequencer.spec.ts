/**
 * The websocket's seq sequencer on its own: order, replays, joins, gaps.
 * Pure, so each case is events in and the steps that come out.
 */
import type { IAguiEvent } from '../../agui/events';
import {
  isTerminalEvent,
  MAX_REORDER,
  RunSequencer,
  type SequencerStep
} from '../../transport/agui/run-sequencer';

const started = (runId: string): IAguiEvent => ({
  type: 'RUN_STARTED',
  threadId: 't',
  runId
});
const text = (delta: string): IAguiEvent => ({
  type: 'TEXT_MESSAGE_CONTENT',
  messageId: 'm',
  delta
});
const finished = (runId: string): IAguiEvent => ({
  type: 'RUN_FINISHED',
  threadId: 't',
  runId
});

/** A step in a short form: `run:r1`, `a` (a text delta), `gap:r1:2-3`. */
function brief(step: SequencerStep): string {
  switch (step.kind) {
    case 'run':
      return `run:${step.runId}`;
    case 'gap':
      return `gap:${step.runId}:${step.from}-${step.to}`;
    case 'event':
      return typeof step.event.delta === 'string'
        ? step.event.delta
        : step.event.type;
  }
}

/** Push each `[seq, event]`; all the steps, in order. */
function feed(
  sequencer: RunSequencer,
  events: [number, IAguiEvent][]
): string[] {
  return events.flatMap(([seq, event]) =>
    sequencer.push(seq, event).map(brief)
  );
}

describe('RunSequencer', () => {
  it('begins a run at RUN_STARTED and passes its events in order', () => {
    const sequencer = new RunSequencer();
    expect(sequencer.broadcast).toBe(false);
    expect(
      feed(sequencer, [
        [1, started('r1')],
        [2, text('a')],
        [3, text('b')],
        [4, finished('r1')]
      ])
    ).toEqual(['run:r1', 'RUN_STARTED', 'a', 'b', 'RUN_FINISHED']);
    expect(sequencer.broadcast).toBe(true);
  });

  it('holds an event that came early and releases it after the missing one', () => {
    const sequencer = new RunSequencer();
    feed(sequencer, [[1, started('r1')]]);
    expect(sequencer.push(3, text('b'))).toEqual([]);
    expect(sequencer.push(4, text('c'))).toEqual([]);
    expect(sequencer.push(2, text('a')).map(brief)).toEqual(['a', 'b', 'c']);
  });

  it('drops a replay of what was applied and goes on after it', () => {
    const sequencer = new RunSequencer();
    feed(sequencer, [
      [1, started('r1')],
      [2, text('a')]
    ]);
    // A reconnect: the server replays the run from its start.
    expect(
      feed(sequencer, [
        [1, started('r1')],
        [2, text('a')],
        [3, text('b')]
      ])
    ).toEqual(['b']);
  });

  it('drops a whole replay of a run that is over, then sees the next run', () => {
    const sequencer = new RunSequencer();
    const run = (runId: string): [number, IAguiEvent][] => [
      [1, started(runId)],
      [2, text(`${runId}-text`)],
      [3, finished(runId)]
    ];
    feed(sequencer, run('r1'));
    expect(feed(sequencer, run('r1'))).toEqual([]);
    expect(feed(sequencer, run('r2'))).toEqual([
      'run:r2',
      'RUN_STARTED',
      'r2-text',
      'RUN_FINISHED'
    ]);
  });

  it('keeps a live event that overtook the replay of a join for its run', () => {
    const sequencer = new RunSequencer();
    // Joined mid-run: live seq 4 arrives before the replay of 1..3.
    expect(sequencer.push(4, text('d'))).toEqual([]);
    expect(
      feed(sequencer, [
        [1, started('r1')],
        [2, text('a')],
        [3, text('c')]
      ])
    ).toEqual(['run:r1', 'RUN_STARTED', 'a', 'c', 'd']);
  });

  it('gives a new run only the early events after its RUN_STARTED', () => {
    const sequencer = new RunSequencer();
    sequencer.push(1, text('old'));
    sequencer.push(3, text('b'));
    expect(
      feed(sequencer, [
        [2, started('r1')],
        [4, text('c')]
      ])
    ).toEqual(['run:r1', 'RUN_STARTED', 'b', 'c']);
  });

  it('passes nothing after the terminal event, yet keeps counting', () => {
    const sequencer = new RunSequencer();
    feed(sequencer, [[1, started('r1')]]);
    sequencer.push(4, text('late'));
    expect(
      feed(sequencer, [
        [3, finished('r1')],
        [2, text('a')]
      ])
    ).toEqual(['a', 'RUN_FINISHED']);
    // Over: a later event waits for the next run instead.
    expect(sequencer.push(5, text('next'))).toEqual([]);
  });

  it('reports a gap once too much is held, and goes on from the first held', () => {
    const sequencer = new RunSequencer();
    feed(sequencer, [[1, started('r1')]]);
    const held: [number, IAguiEvent][] = [];
    for (let seq = 5; seq < 5 + MAX_REORDER; seq++) {
      held.push([seq, text(`e${seq}`)]);
    }
    expect(feed(sequencer, held)).toEqual([]);
    const steps = sequencer.push(5 + MAX_REORDER, text('last')).map(brief);
    expect(steps[0]).toBe('gap:r1:2-4');
    expect(steps.slice(1)).toEqual([...held.map(([seq]) => `e${seq}`), 'last']);
    // Seq 2..4 arriving now are replays of the skipped part: dropped.
    expect(sequencer.push(3, text('too late'))).toEqual([]);
  });

  it('keeps at most MAX_REORDER early events, forgetting the oldest', () => {
    const sequencer = new RunSequencer();
    for (let seq = 2; seq <= MAX_REORDER + 2; seq++) {
      sequencer.push(seq, text(`e${seq}`));
    }
    const steps = sequencer.push(1, started('r1')).map(brief);
    // e2 was forgotten: the run waits for seq 2 with 3.. held.
    expect(steps).toEqual(['run:r1', 'RUN_STARTED']);
    expect(sequencer.push(2, text('again')).map(brief)).toEqual([
      'again',
      ...Array.from({ length: MAX_REORDER }, (_, i) => `e${i + 3}`)
    ]);
  });

  it('treats a RUN_STARTED for another run as a new run', () => {
    const sequencer = new RunSequencer();
    feed(sequencer, [
      [1, started('r1')],
      [2, text('a')]
    ]);
    expect(
      feed(sequencer, [
        [1, started('r2')],
        [2, text('b')]
      ])
    ).toEqual(['run:r2', 'RUN_STARTED', 'b']);
  });

  it('knows the events that end a run', () => {
    expect(isTerminalEvent(finished('r'))).toBe(true);
    expect(isTerminalEvent({ type: 'RUN_ERROR', message: 'x' })).toBe(true);
    expect(isTerminalEvent(started('r'))).toBe(false);
    expect(isTerminalEvent(text('a'))).toBe(false);
  });
});
