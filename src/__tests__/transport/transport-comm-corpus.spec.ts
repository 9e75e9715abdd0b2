/**
 * The chunk-wire corpus through the comm envelope: each fixture line sent by
 * the (fake) kernel helper as `{"type": "frame", "turn_id", "seq": n,
 * "frame": <line>}`, then `turn_end`, through the comm transport into the
 * reducer; the result must match `expected.json` exactly as over SSE.
 */
import { KernelCommTransport } from '../../transport/comm/comm';
import { KernelBinding } from '../../transport/comm/kernel-binding';
import type { WireFrame } from '../../wire/frame-types';
import { TurnReducer } from '../../wire/reduce';
import {
  FakeAgentHelper,
  FakeKernel,
  FakeNotebook,
  FakeNotebookTracker
} from '../support/transport-comm-fakes';
import { expectTurn, loadCorpus } from '../support/wire-harness';

const TERMINAL = new Set(['complete', 'error', 'cancelled']);

async function reduceOverComm(lines: string[]): Promise<TurnReducer> {
  const kernel = new FakeKernel();
  const helper = new FakeAgentHelper(kernel).load();
  helper.onTurn = turn => {
    lines.forEach((line, seq) => helper.frame(turn, seq, JSON.parse(line)));
    helper.turnEnd(turn);
  };
  const tracker = new FakeNotebookTracker();
  tracker.open(new FakeNotebook('corpus.ipynb', kernel));
  const transport = new KernelCommTransport({
    binding: new KernelBinding({ notebooks: tracker, pinnedPath: '' }),
    commTarget: 'agent_panel',
    connectTimeoutMs: 2000,
    idleTimeoutMs: 0
  });
  const reducer = new TurnReducer();
  const ends: (string | undefined)[] = [];
  await transport.startTurn(
    { kind: 'chat', threadId: 'corpus', message: 'replay' },
    {
      frame: (frame: WireFrame) => reducer.apply(frame),
      diagnostic: (message: string) => reducer.diagnostic(message),
      end: (reason?: string) => {
        ends.push(reason);
        reducer.endOfStream(reason);
      }
    }
  ).done;
  transport.dispose();
  // The comm itself never fails a corpus turn: any error is the fixture's.
  expect(ends).toEqual([undefined]);
  return reducer;
}

describe.each(
  loadCorpus('fixtures/chunk-wire').map(file => [file.name, file] as const)
)('%s over the kernel comm', (_name, file) => {
  it('reduces to its expected turn', async () => {
    const reducer = await reduceOverComm(file.lines);
    expectTurn(reducer.state, file.expected);
    // Every frame arrived, in order: no seq diagnostics.
    expect(
      reducer.state.diagnostics.filter(d => /seq|Messages lost|order/.test(d))
    ).toEqual([]);
  });
});

it('the corpus has a file without a terminal frame (the EOF rule over comm)', () => {
  const withoutTerminal = loadCorpus('fixtures/chunk-wire').filter(
    file =>
      !file.lines.some(line => TERMINAL.has(JSON.parse(line).status ?? ''))
  );
  expect(withoutTerminal.map(file => file.name)).toEqual([
    'F14c-eof-no-terminal.jsonl'
  ]);
});
