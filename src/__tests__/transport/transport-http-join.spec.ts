/**
 * `followThread` of the chunk-wire HTTP transport: one `POST join` per
 * thread; a run still in flight is handed to the model as a foreign run,
 * no run (404, or an endpoint without the route) shows nothing, and another
 * client's turn it cannot stream (409 busy) is reported as such.
 */
import type { WireFrame } from '../../wire/frame-types';
import type { ITurnSink } from '../../wire/turn';
import { ChunkWireHttpTransport } from '../../transport/http/http';
import type { FetchLike } from '../../transport/types';
import { response, ScriptedBody } from '../support/http-fakes';

const BASE = 'http://agent.test/agent-panel/agents/team/';

interface ICall {
  url: string;
  body: unknown;
}

function transport(answer: (url: string) => Promise<Response>): {
  transport: ChunkWireHttpTransport;
  calls: ICall[];
} {
  const calls: ICall[] = [];
  const fetch: FetchLike = (url, init) => {
    calls.push({ url, body: JSON.parse(init?.body as string) });
    return answer(url);
  };
  return {
    transport: new ChunkWireHttpTransport({
      baseUrl: BASE,
      fetch,
      connectTimeoutMs: 1000,
      idleTimeoutMs: 0
    }),
    calls
  };
}

function recordingSink(): {
  sink: ITurnSink;
  frames: WireFrame[];
  ended: Promise<string | undefined>;
} {
  const frames: WireFrame[] = [];
  let end: (reason?: string) => void = () => undefined;
  const ended = new Promise<string | undefined>(resolve => (end = resolve));
  return {
    sink: { frame: f => frames.push(f), diagnostic: () => undefined, end },
    frames,
    ended
  };
}

const settle = () => new Promise(resolve => setTimeout(resolve, 20));

describe('ChunkWireHttpTransport.followThread', () => {
  it('streams the run in flight into the sink onRun gives', async () => {
    const body = new ScriptedBody();
    const { transport: http, calls } = transport(async () =>
      response(200, body)
    );
    const recorded = recordingSink();
    const runs: string[] = [];
    http.followThread('t-1', run => {
      runs.push(run.runId);
      return recorded.sink;
    });
    body.push(
      'data: {"status": "streaming", "chunk": "tick1", "node": "tick"}\n\n'
    );
    body.push('data: {"status": "complete", "outcome": "complete"}\n\n');
    body.close();

    await expect(recorded.ended).resolves.toBeUndefined();
    expect(calls).toEqual([{ url: `${BASE}join`, body: { thread_id: 't-1' } }]);
    expect(runs).toEqual(['t-1']);
    expect(recorded.frames).toMatchObject([
      { status: 'streaming', chunk: 'tick1', node: 'tick' },
      { status: 'complete', outcome: 'complete' }
    ]);
  });

  it.each([
    ['no run is in flight', 204, ''],
    ['the server has no join route', 404, '<html>Not Found</html>']
  ])('shows nothing when %s', async (_, status, body) => {
    const { transport: http, calls } = transport(async () =>
      response(status, body, 'text/html')
    );
    const onRun = jest.fn(() => recordingSink().sink);
    http.followThread('t-1', onRun);
    await settle();

    expect(calls).toHaveLength(1);
    expect(onRun).not.toHaveBeenCalled();
  });

  it('stops reading when the model takes no foreign run', async () => {
    const body = new ScriptedBody();
    const { transport: http } = transport(async () => response(200, body));
    http.followThread('t-1', () => null);
    body.push('data: {"status": "streaming", "chunk": "tick1"}\n\n');
    await settle();

    expect(body.cancelled).toBe(true);
  });

  it("says when another client's turn runs there, which join cannot stream (409 busy)", async () => {
    const answers: Record<number, string> = {
      409: '{"message": "A turn is already running on thread \'t-1\'", "reason": "busy"}',
      404: '{"message": "no such agent", "reason": "not_found"}'
    };
    for (const [status, busy] of [
      [409, 1],
      [404, 0]
    ]) {
      const { transport: http } = transport(async () =>
        response(status, answers[status], 'application/json')
      );
      let told = 0;
      const onRun = jest.fn(() => null);
      http.followThread('t-1', onRun, undefined, () => (told += 1));
      await settle();
      expect([status, told]).toEqual([status, busy]);
      expect(onRun).not.toHaveBeenCalled();
    }
  });

  it('Stop on the adopted run POSTs cancel for the thread', async () => {
    const body = new ScriptedBody();
    const { transport: http, calls } = transport(async url =>
      url.endsWith('cancel')
        ? response(200, '{"status": "not_found"}', 'application/json')
        : response(200, body)
    );
    const recorded = recordingSink();
    let stop: () => void = () => undefined;
    http.followThread('t-1', run => {
      stop = () => run.stop();
      return recorded.sink;
    });
    body.push('data: {"status": "streaming", "chunk": "tick1"}\n\n');
    await settle();
    stop();
    await recorded.ended;

    expect(calls[1]).toEqual({
      url: `${BASE}cancel`,
      body: { thread_id: 't-1' }
    });
  });

  it('dispose stops following', async () => {
    const body = new ScriptedBody();
    const { transport: http } = transport(async () => response(200, body));
    const onRun = jest.fn(() => recordingSink().sink);
    const following = http.followThread('t-1', onRun);
    await settle();
    following.dispose();
    body.push('data: {"status": "streaming", "chunk": "late"}\n\n');
    await settle();

    expect(following.isDisposed).toBe(true);
    expect(onRun).not.toHaveBeenCalled();
  });
});
