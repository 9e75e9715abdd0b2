/**
 * The AG-UI websocket transport against a scripted chanx server: the
 * envelope it speaks, seq ordering and replay, a refused (busy) run, Stop,
 * reconnect, and following a run another client started.
 */
import { Gettext } from '@jupyterlab/translation';
import type { IWebSocketLike } from '../../transport/agui/chanx';
import { AguiWsTransport } from '../../transport/agui/agui-ws';
import type { TurnRequest } from '../../wire/turn';
import type { TurnReducer } from '../../wire/reduce';
import { reducingSink } from '../support/agui-harness';
import { panelStrings } from '../../contracts/translation';

const URL = 'ws://127.0.0.1:9/ws/agent';
const TOPIC = 'agui:thread:t-1';

class FakeSocket implements IWebSocketLike {
  constructor(private readonly _server: FakeServer) {}
  readyState = 0;
  sent: Record<string, any>[] = [];
  onopen: IWebSocketLike['onopen'] = null;
  onclose: IWebSocketLike['onclose'] = null;
  onmessage: IWebSocketLike['onmessage'] = null;
  onerror: IWebSocketLike['onerror'] = null;

  send(data: string): void {
    const frame = JSON.parse(data);
    this.sent.push(frame);
    this._server.received(this, frame);
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState === 3) {
      return;
    }
    this.readyState = 3;
    this.onclose?.({ code, reason } as CloseEvent);
  }

  /** Server → client. */
  deliver(frame: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(frame) } as MessageEvent);
  }
}

/** Answers `subscribe`; everything else is scripted by the test. */
class FakeServer {
  sockets: FakeSocket[] = [];
  runs: Record<string, any>[] = [];
  cancels: Record<string, any>[] = [];
  refuseTopics = false;

  create = (url: string): IWebSocketLike => {
    expect(url).toBe(URL);
    const socket = new FakeSocket(this);
    this.sockets.push(socket);
    setTimeout(() => {
      socket.readyState = 1;
      socket.onopen?.({} as Event);
    }, 0);
    return socket;
  };

  get socket(): FakeSocket {
    return this.sockets[this.sockets.length - 1];
  }

  received(socket: FakeSocket, frame: Record<string, any>): void {
    expect(frame.version).toBe(1);
    if (frame.action === 'subscribe') {
      socket.deliver(
        this.refuseTopics
          ? {
              action: 'error',
              topic: frame.topic,
              payload: {
                reason: 'unauthorized',
                detail: `Not allowed to subscribe to '${frame.topic}'`
              }
            }
          : { action: 'subscribed', topic: frame.topic, payload: null }
      );
    } else if (frame.action === 'ag_ui_run') {
      this.runs.push(frame);
    } else if (frame.action === 'ag_ui_cancel') {
      this.cancels.push(frame);
    }
  }

  /** One AG-UI event on the thread topic, with or without `seq`. */
  event(
    event: Record<string, unknown>,
    seq?: number,
    socket = this.socket
  ): void {
    socket.deliver({
      topic: TOPIC,
      action: 'ag_ui_event',
      payload: event,
      ...(seq === undefined ? {} : { seq })
    });
  }
}

const tick = () => new Promise(resolve => setTimeout(resolve, 5));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) {
    await tick();
  }
  expect(check()).toBe(true);
}

function texts(reducer: TurnReducer): string[] {
  return reducer.state.items.map(item =>
    item.kind === 'text' ? item.text : item.kind
  );
}

const chat: TurnRequest = { kind: 'chat', threadId: 't-1', message: 'hello' };

/** A short run: start, "Hello world" in two deltas, finish. */
function helloRun(runId: string): Record<string, unknown>[] {
  return [
    { type: 'RUN_STARTED', threadId: 't-1', runId },
    { type: 'TEXT_MESSAGE_START', messageId: `m-${runId}` },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: `m-${runId}`, delta: 'Hello ' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: `m-${runId}`, delta: 'world' },
    { type: 'TEXT_MESSAGE_END', messageId: `m-${runId}` },
    { type: 'RUN_FINISHED', threadId: 't-1', runId }
  ];
}

describe('AguiWsTransport', () => {
  let server: FakeServer;
  let transport: AguiWsTransport;

  beforeEach(() => {
    server = new FakeServer();
    transport = new AguiWsTransport({
      url: URL,
      connectTimeoutMs: 2000,
      idleTimeoutMs: 0,
      cancelGraceMs: 200,
      createSocket: server.create,
      backoffMs: [5]
    });
  });

  afterEach(() => transport.dispose());

  it('subscribes the thread, sends ag_ui_run with our run id, applies the run', async () => {
    const { sink, reducer, ended } = reducingSink();
    const handle = transport.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    expect(server.socket.sent[0]).toEqual({
      version: 1,
      action: 'subscribe',
      topic: TOPIC
    });
    const run = server.runs[0];
    expect(run).toEqual({
      version: 1,
      topic: TOPIC,
      action: 'ag_ui_run',
      payload: {
        threadId: 't-1',
        runId: expect.any(String),
        protocolVersion: '1.0',
        messages: [{ id: expect.any(String), role: 'user', content: 'hello' }],
        tools: [],
        context: [],
        forwardedProps: {},
        state: {}
      }
    });
    helloRun(run.payload.runId).forEach((event, index) =>
      server.event(event, index + 1)
    );
    await handle.done;
    expect(ended).toEqual([undefined]);
    expect(texts(reducer)).toEqual(['Hello world']);
    expect(reducer.state.outcome).toBe('complete');
  });

  it('leaves the topic between turns and resumes with the interrupt ids', async () => {
    const first = reducingSink();
    const asking = transport.startTurn(chat, first.sink);
    await until(() => server.runs.length === 1);
    const runId = server.runs[0].payload.runId;
    [
      { type: 'RUN_STARTED', threadId: 't-1', runId },
      {
        type: 'CUSTOM',
        name: 'on_interrupt',
        value: '{"action_requests": [{"action": "ask_user"}]}',
        rawEvent: { id: 'i-1' }
      },
      { type: 'RUN_FINISHED', threadId: 't-1', runId }
    ].forEach((event, index) => server.event(event, index + 1));
    await asking.done;
    expect(first.reducer.state.outcome).toBe('interrupted');
    expect(server.socket.sent.map(frame => frame.action)).toEqual([
      'subscribe',
      'ag_ui_run',
      'unsubscribe'
    ]);
    const decisions = [{ type: 'respond' as const, message: 'Ada' }];
    const second = reducingSink();
    transport.startTurn(
      { kind: 'resume', threadId: 't-1', decisions, memory: first.memory },
      second.sink
    );
    await until(() => server.runs.length === 2);
    expect(server.runs[1].payload).toMatchObject({
      // The thread so far: the question the paused run answered.
      messages: [server.runs[0].payload.messages[0]],
      forwardedProps: { command: { resume: { decisions } } },
      resume: [
        { interruptId: 'i-1', status: 'resolved', payload: { decisions } }
      ]
    });
  });

  it('applies events in seq order and drops a replay after a reconnect', async () => {
    const { sink, reducer } = reducingSink();
    const handle = transport.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    const events = helloRun(server.runs[0].payload.runId);
    server.event(events[0], 1);
    server.event(events[2], 3); // ahead of seq 2: held back
    server.event(events[1], 2);
    expect(texts(reducer)).toEqual(['Hello ']);
    // The socket drops; the server replays the run from RUN_STARTED.
    const first = server.socket;
    first.close(1006, 'network');
    await until(
      () => server.sockets.length === 2 && server.socket.readyState === 1
    );
    await until(() =>
      server.socket.sent.some(frame => frame.action === 'subscribe')
    );
    events.forEach((event, index) => server.event(event, index + 1));
    await handle.done;
    expect(texts(reducer)).toEqual(['Hello world']);
    expect(reducer.state.outcome).toBe('complete');
    // Only one run was asked for: the reconnect does not resend it.
    expect(server.runs).toHaveLength(1);
    expect(reducer.state.diagnostics).toEqual([
      `the connection to ${URL} closed (code 1006: network); reconnecting to replay the run`
    ]);
  });

  it('ends a refused run (thread busy) without ending the run in flight', async () => {
    const follower = reducingSink();
    transport.followThread('t-1', () => follower.sink);
    await until(() => server.socket?.readyState === 1);
    // Another client's run is in flight on the thread.
    const other = helloRun('r-other');
    server.event(other[0], 1);
    server.event(other[1], 2);
    const ours = reducingSink();
    const handle = transport.startTurn(chat, ours.sink);
    await until(() => server.runs.length === 1);
    server.event({
      type: 'RUN_ERROR',
      message: 'thread is already running r-other'
    });
    await handle.done;
    expect(ours.ended).toEqual([`${URL}: thread is already running r-other`]);
    expect(ours.reducer.state.outcome).toBe('error');
    // The other run goes on and ends normally for the follower.
    other.slice(2).forEach((event, index) => server.event(event, index + 3));
    expect(texts(follower.reducer)).toEqual(['Hello world']);
    expect(follower.reducer.state.outcome).toBe('complete');
  });

  it('shows a run another tab started, once, from RUN_STARTED', async () => {
    const runs: string[] = [];
    const follower = reducingSink();
    transport.followThread('t-1', run => {
      runs.push(run.runId);
      return follower.sink;
    });
    await until(() => server.socket?.readyState === 1);
    const events = helloRun('r-tab2');
    // Joined mid-run: the server replays seq 1..3, then live 4..6; a
    // reconnect replays 1..4 again.
    events
      .slice(0, 3)
      .forEach((event, index) => server.event(event, index + 1));
    server.event(events[3], 4);
    server.socket.close(1006);
    await until(
      () => server.sockets.length === 2 && server.socket.readyState === 1
    );
    events
      .slice(0, 4)
      .forEach((event, index) => server.event(event, index + 1));
    events.slice(4).forEach((event, index) => server.event(event, index + 5));
    expect(runs).toEqual(['r-tab2']);
    expect(texts(follower.reducer)).toEqual(['Hello world']);
    expect(follower.ended).toEqual([undefined]);
  });

  it('keeps a live event that overtook the replay of a join', async () => {
    const follower = reducingSink();
    transport.followThread('t-1', () => follower.sink);
    await until(() => server.socket?.readyState === 1);
    const events = helloRun('r-tab2');
    server.event(events[3], 4);
    events
      .slice(0, 3)
      .forEach((event, index) => server.event(event, index + 1));
    events.slice(4).forEach((event, index) => server.event(event, index + 5));
    expect(texts(follower.reducer)).toEqual(['Hello world']);
    expect(follower.reducer.state.diagnostics).toEqual([]);
  });

  it('drops a replay of a run that is over, and sees the next run whole', async () => {
    const runs: string[] = [];
    const follower = reducingSink();
    transport.followThread('t-1', run => {
      runs.push(run.runId);
      return run.runId === 'r-2' ? follower.sink : null;
    });
    await until(() => server.socket?.readyState === 1);
    const first = helloRun('r-1');
    first.forEach((event, index) => server.event(event, index + 1));
    // Nobody showed r-1, yet its end was noticed; a late replay of it is
    // not mistaken for the next run.
    first.forEach((event, index) => server.event(event, index + 1));
    helloRun('r-2').forEach((event, index) => server.event(event, index + 1));
    expect(runs).toEqual(['r-1', 'r-2']);
    expect(texts(follower.reducer)).toEqual(['Hello world']);
    expect(follower.ended).toEqual([undefined]);
  });

  it('stops with ag_ui_cancel; the run error that follows means cancelled', async () => {
    const { sink, reducer } = reducingSink();
    const handle = transport.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    const runId = server.runs[0].payload.runId;
    const events = helloRun(runId);
    server.event(events[0], 1);
    server.event(events[1], 2);
    handle.stop();
    expect(server.cancels).toEqual([
      { version: 1, topic: TOPIC, action: 'ag_ui_cancel', payload: { runId } }
    ]);
    server.event(
      { type: 'RUN_ERROR', message: `Run ${runId} was cancelled` },
      3
    );
    await handle.done;
    expect(reducer.state.outcome).toBe('cancelled');
    expect(reducer.state.cancelMessage).toBe('Execution cancelled by user');
  });

  it('ends a stopped turn here when the server never answers', async () => {
    const { sink, reducer } = reducingSink();
    const handle = transport.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    handle.stop();
    await handle.done;
    expect(reducer.state.outcome).toBe('cancelled');
  });

  it('fails the turn when the thread topic is refused', async () => {
    server.refuseTopics = true;
    const { sink, ended } = reducingSink();
    await transport.startTurn(chat, sink).done;
    expect(ended).toEqual([
      `${URL} refused ${TOPIC}: Not allowed to subscribe to '${TOPIC}'`
    ]);
  });

  it('works with a server that does not broadcast (no seq)', async () => {
    const { sink, reducer } = reducingSink();
    const handle = transport.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    for (const event of helloRun(server.runs[0].payload.runId)) {
      server.event(event);
    }
    await handle.done;
    expect(texts(reducer)).toEqual(['Hello world']);
  });

  it('fails a run without broadcast when its socket closes', async () => {
    const { sink, ended } = reducingSink();
    const handle = transport.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    server.event(helloRun(server.runs[0].payload.runId)[0]);
    server.socket.close(1006);
    await handle.done;
    expect(ended).toEqual([
      `the connection to ${URL} closed (code 1006); the server stops a run when its socket closes`
    ]);
  });

  it('reports health by opening the socket', async () => {
    await expect(transport.checkHealth()).resolves.toEqual({
      state: 'healthy',
      message: 'connected',
      agentName: null
    });
  });

  it('fails a run that goes quiet, not one that keeps sending', async () => {
    const msgids: string[] = [];
    const idle = new AguiWsTransport({
      url: URL,
      connectTimeoutMs: 2000,
      idleTimeoutMs: 40,
      createSocket: server.create,
      backoffMs: [5],
      trans: Object.assign(Object.create(panelStrings()), {
        __: (msgid: string, ...args: string[]) => {
          msgids.push(msgid);
          return Gettext.strfmt(msgid, ...args);
        }
      })
    });
    const { sink, reducer, ended } = reducingSink();
    const handle = idle.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    const runId = server.runs[0].payload.runId;
    server.event({ type: 'RUN_STARTED', threadId: 't-1', runId }, 1);
    server.event({ type: 'TEXT_MESSAGE_START', messageId: 'm' }, 2);
    // Events for twice the idle timeout, then silence.
    let lastEventAt = 0;
    for (let seq = 3; seq < 11; seq++) {
      await new Promise(resolve => setTimeout(resolve, 10));
      expect(ended).toEqual([]);
      server.event(
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: `${seq} ` },
        seq
      );
      lastEventAt = Date.now();
    }
    await handle.done;
    expect(Date.now() - lastEventAt).toBeGreaterThanOrEqual(35);
    expect(ended).toEqual([`no event from ${URL} for 0.04 s (idle timeout)`]);
    expect(msgids).toContain('no event from %1 for %2 s (idle timeout)');
    expect(reducer.state.items).toHaveLength(1);
    idle.dispose();
  });

  it('fails a turn on dispose', async () => {
    const { sink, ended } = reducingSink();
    const handle = transport.startTurn(chat, sink);
    await until(() => server.runs.length === 1);
    transport.dispose();
    await handle.done;
    expect(ended).toEqual([`the AG-UI connection to ${URL} was closed`]);
  });
});
