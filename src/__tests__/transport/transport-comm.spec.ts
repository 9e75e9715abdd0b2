/**
 * The kernel comm transport against a fake kernel and a scripted kernel
 * helper: the comm protocol (docs/protocol.md §7), timeouts, stop, kernel
 * restarts and deaths, and cleanup.
 */
import * as fs from 'fs';
import * as path from 'path';
import { PromiseDelegate } from '@lumino/coreutils';

import { CLIENT, KernelCommTransport } from '../../transport/comm/comm';
import { KernelBinding } from '../../transport/comm/kernel-binding';
import type { ITurnSink, TurnRequest } from '../../wire/turn';
import type { WireFrame } from '../../wire/frame-types';
import type { JsonObject } from '../../wire/json';
import { TurnReducer } from '../../wire/reduce';
import {
  FakeAgentHelper,
  FakeKernel,
  FakeNotebook,
  FakeNotebookTracker,
  flush
} from '../support/transport-comm-fakes';

const UUID_PATTERN =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LOAD_EXT = 'run `%load_ext jupyterlab_agent_panel` in the notebook';

/** Feeds the reducer like the chat model does, and keeps what `end` said. */
class ReducerSink implements ITurnSink {
  readonly reducer = new TurnReducer();
  readonly ends: (string | undefined)[] = [];

  get state() {
    return this.reducer.state;
  }

  get text(): string {
    return this.state.items
      .map(item => (item.kind === 'text' ? item.text : ''))
      .join('');
  }

  frame(frame: WireFrame): void {
    this.reducer.apply(frame);
  }

  diagnostic(message: string): void {
    this.reducer.diagnostic(message);
  }

  end(reason?: string): void {
    this.ends.push(reason);
    this.reducer.endOfStream(reason);
  }

  remember(memory: JsonObject): void {
    this.memory = memory;
  }

  memory: JsonObject | null = null;
}

interface ISetupOptions {
  load?: boolean;
  pinnedPath?: string;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  cancelGraceMs?: number;
}

function setup(options: ISetupOptions = {}) {
  const kernel = new FakeKernel();
  const helper = new FakeAgentHelper(kernel);
  if (options.load !== false) {
    helper.load();
  }
  const tracker = new FakeNotebookTracker();
  const notebook = tracker.open(
    new FakeNotebook('work/Untitled.ipynb', kernel)
  );
  const binding = new KernelBinding({
    notebooks: tracker,
    pinnedPath: options.pinnedPath ?? ''
  });
  const transport = new KernelCommTransport({
    binding,
    commTarget: 'agent_panel',
    connectTimeoutMs: options.connectTimeoutMs ?? 2000,
    idleTimeoutMs: options.idleTimeoutMs ?? 0,
    cancelGraceMs: options.cancelGraceMs ?? 2000
  });
  let labelChanges = 0;
  transport.labelChanged.connect(() => {
    labelChanges += 1;
  });
  return {
    kernel,
    helper,
    tracker,
    notebook,
    binding,
    transport,
    labelChanges: () => labelChanges
  };
}

const chat = (message = 'use a tool'): TurnRequest => ({
  kind: 'chat',
  threadId: 'thread-1',
  message
});

/** Start a turn and wait until the helper has it. */
async function startTurn(
  env: ReturnType<typeof setup>,
  request: TurnRequest = chat()
) {
  const sink = new ReducerSink();
  const handle = env.transport.startTurn(request, sink);
  await flush();
  return { sink, handle, turn: env.helper.lastTurn };
}

const text = (chunk: string) => ({ status: 'streaming', chunk, node: 'agent' });

afterEach(() => {
  jest.restoreAllMocks();
});

describe('KernelCommTransport: the protocol', () => {
  it('opens the comm on the notebook kernel with the protocol and client, then starts the turn', async () => {
    const env = setup();
    const request: TurnRequest = {
      kind: 'chat',
      threadId: 'thread-1',
      message: 'use a tool',
      context: { current_directory: 'work', selected_text: undefined }
    };
    const { turn } = await startTurn(env, request);

    expect(env.kernel.created.map(comm => comm.targetName)).toEqual([
      'agent_panel'
    ]);
    expect(turn.side.openData).toEqual({ protocol: 1, client: CLIENT });
    expect(turn.message).toEqual({
      type: 'start_turn',
      turn_id: turn.turnId,
      thread_id: 'thread-1',
      message: 'use a tool',
      context: { current_directory: 'work' }
    });
    expect(turn.turnId).toMatch(UUID_PATTERN);
  });

  it('names the package version in the open data', () => {
    const pkg = JSON.parse(
      fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf-8')
    );
    expect(CLIENT).toBe(`${pkg.name}@${pkg.version}`);
  });

  it('gives every turn its own turn_id and reuses the open comm', async () => {
    const env = setup();
    const first = await startTurn(env);
    env.helper.frame(first.turn, 0, { status: 'complete' });
    env.helper.turnEnd(first.turn);
    await first.handle.done;
    const second = await startTurn(env);

    expect(second.turn.turnId).not.toBe(first.turn.turnId);
    expect(env.kernel.created).toHaveLength(1);
  });

  it('sends resume with the decisions', async () => {
    const env = setup();
    const { turn } = await startTurn(env, {
      kind: 'resume',
      threadId: 'thread-1',
      decisions: [{ type: 'respond', message: 'Ada' }]
    });

    expect(turn.message).toEqual({
      type: 'resume',
      turn_id: turn.turnId,
      thread_id: 'thread-1',
      decisions: [{ type: 'respond', message: 'Ada' }]
    });
  });

  it('delivers frames in seq order and ends on turn_end', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, text('Hello '));
    env.helper.frame(turn, 1, text('Ada'));
    env.helper.frame(turn, 2, { status: 'complete' });
    env.helper.turnEnd(turn);
    await handle.done;

    expect(sink.text).toBe('Hello Ada');
    expect(sink.state.outcome).toBe('complete');
    expect(sink.state.diagnostics).toEqual([]);
    expect(sink.ends).toEqual([undefined]);
    // onMsg never hands the kernel a promise to wait for.
    expect(env.kernel.created[0].handlerResults.length).toBeGreaterThan(3);
    expect(
      env.kernel.created[0].handlerResults.every(r => r === undefined)
    ).toBe(true);
  });

  it('reports a seq gap as lost messages and keeps what arrived', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, text('one '));
    env.helper.frame(turn, 3, text('four'));
    env.helper.frame(turn, 4, { status: 'complete' });
    env.helper.turnEnd(turn);
    await handle.done;

    expect(sink.text).toBe('one four');
    expect(sink.state.outcome).toBe('complete');
    expect(sink.state.diagnostics).toEqual([
      'Messages lost: expected frame 1 from the kernel, got frame 3 (2 missing); the answer may be incomplete.'
    ]);
  });

  it('reports frames that arrive out of order or without seq', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, text('a'));
    env.helper.frame(turn, 0, text('b'));
    turn.side.send({ type: 'frame', turn_id: turn.turnId, frame: text('c') });
    env.helper.frame(turn, 1, { status: 'complete' });
    env.helper.turnEnd(turn);
    await handle.done;

    expect(sink.text).toBe('abc');
    expect(sink.state.diagnostics).toEqual([
      'Frame 0 from the kernel arrived out of order (expected 1).',
      'A frame from the kernel had no valid seq number.'
    ]);
  });

  it('drops a frame that is not an object with a diagnostic', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, '{"status": "complete"}');
    env.helper.frame(turn, 1, [1, 2]);
    env.helper.frame(turn, 2, { status: 'complete' });
    env.helper.turnEnd(turn);
    await handle.done;

    expect(sink.state.outcome).toBe('complete');
    expect(sink.state.diagnostics).toEqual([
      'Kernel frame 0: frame is a string, not an object',
      'Kernel frame 1: frame is not a JSON object (got an array)'
    ]);
  });

  it('applies the EOF rule when turn_end comes without a terminal frame', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, text('partial'));
    env.helper.turnEnd(turn, 'error');
    await handle.done;

    expect(sink.ends).toEqual([undefined]);
    expect(sink.state.outcome).toBe('error');
    expect(sink.state.error?.message).toBe('stream ended unexpectedly');
    expect(sink.text).toBe('partial');
  });

  it('ignores messages for other turns and after turn_end', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    turn.side.send({
      type: 'frame',
      turn_id: 'someone-else',
      seq: 0,
      frame: text('not mine')
    });
    env.helper.frame(turn, 0, { status: 'complete' });
    env.helper.turnEnd(turn);
    env.helper.frame(turn, 1, text('late'));
    await handle.done;
    await flush();

    expect(sink.text).toBe('');
    expect(sink.state.diagnostics).toEqual([]);
    expect(sink.ends).toHaveLength(1);
  });

  it.each([
    [
      'busy',
      "a turn ('x') is already running on thread 'thread-1'",
      'The kernel rejected the turn: a turn is already running on this conversation.'
    ],
    [
      'bad_request',
      "missing field 'message' (a non-empty string)",
      "The kernel rejected the request: missing field 'message' (a non-empty string)"
    ],
    [
      'no_agent',
      'No graph is served: run jupyterlab_agent_panel.serve(...) in this kernel.',
      'The kernel has no agent to run the turn: No graph is served: run jupyterlab_agent_panel.serve(...) in this kernel.'
    ],
    [
      'unknown_type',
      "unknown message type 'chat'",
      "The kernel does not know this request (update jupyterlab_agent_panel in the kernel): unknown message type 'chat'"
    ]
  ])(
    'ends a turn rejected as %s with a clear error',
    async (reason, detail, shown) => {
      const env = setup();
      const { sink, handle, turn } = await startTurn(env);
      env.helper.reject(turn, reason, detail);
      await handle.done;

      expect(sink.ends).toEqual([shown]);
      expect(sink.state.outcome).toBe('error');
      expect(sink.state.error?.message).toBe(shown);
    }
  );
});

describe('KernelCommTransport: setup problems', () => {
  it('tells the user to run %load_ext when the comm target is missing', async () => {
    const env = setup({ load: false });
    const sink = new ReducerSink();
    const handle = env.transport.startTurn(chat(), sink);
    await handle.done;

    expect(sink.ends).toEqual([
      `The kernel of Untitled.ipynb has no agent_panel comm target: ${LOAD_EXT}.`
    ]);
    expect(sink.state.error?.message).toContain(LOAD_EXT);
    expect(await env.transport.checkHealth()).toEqual({
      state: 'needs_setup',
      message: `The kernel of Untitled.ipynb has no agent_panel comm target: ${LOAD_EXT}.`,
      agentName: null
    });
  });

  it('works once %load_ext has run, on a new comm', async () => {
    const env = setup({ load: false });
    expect((await env.transport.checkHealth()).state).toBe('needs_setup');
    env.helper.load();

    expect(await env.transport.checkHealth()).toEqual({
      state: 'healthy',
      message: 'Tool Demo Agent is ready',
      agentName: 'Tool Demo Agent'
    });
    expect(env.kernel.created).toHaveLength(2);
    expect(env.kernel.created[0].isDisposed).toBe(true);
  });

  it('says what to open when no notebook is open', async () => {
    const env = setup();
    env.tracker.close(env.notebook);
    const sink = new ReducerSink();
    await env.transport.startTurn(chat(), sink).done;

    const message =
      'Open a notebook: this endpoint talks to the kernel of the active notebook.';
    expect(sink.ends).toEqual([message]);
    expect(env.transport.label).toBe('no notebook open');
    expect(await env.transport.checkHealth()).toEqual({
      state: 'needs_setup',
      message,
      agentName: null
    });
  });

  it('says when the notebook has no kernel', async () => {
    const env = setup();
    env.notebook.setKernel(null, 'No Kernel');
    const sink = new ReducerSink();
    await env.transport.startTurn(chat(), sink).done;

    expect(sink.ends).toEqual([
      'Untitled.ipynb has no running kernel: start one from the Kernel menu.'
    ]);
    expect(env.transport.label).toBe('Untitled.ipynb · No Kernel');
  });

  it('says when the kernel is restarting', async () => {
    const env = setup();
    env.kernel.setStatus('restarting');
    const health = await env.transport.checkHealth();

    expect(health.state).toBe('unreachable');
    expect(health.message).toBe(
      'The kernel of Untitled.ipynb is restarting; then run `%load_ext jupyterlab_agent_panel` in the notebook again.'
    );
    expect(env.kernel.created).toHaveLength(0);
  });

  it('times out when the kernel never says hello', async () => {
    const env = setup({ load: false, connectTimeoutMs: 50 });
    // A target that accepts the comm but never answers.
    env.kernel.targets.set('agent_panel', () => undefined);
    const sink = new ReducerSink();
    await env.transport.startTurn(chat(), sink).done;

    expect(sink.ends).toEqual([
      'No answer from the agent_panel comm in the kernel of Untitled.ipynb within 0.05 s (a running cell delays it until the cell ends).'
    ]);
    expect(env.kernel.created[0].kernelSide?.closedByPanel).toBe(true);
    expect((await env.transport.checkHealth()).state).toBe('unreachable');
  });

  it('ends a silent turn after the idle timeout and cancels it', async () => {
    const env = setup({ idleTimeoutMs: 50 });
    const { sink, handle, turn } = await startTurn(env);
    await handle.done;
    await flush();

    expect(sink.ends).toEqual([
      'No message from the kernel of Untitled.ipynb for 0.05 s (idle timeout).'
    ]);
    expect(env.helper.cancels).toEqual([turn.turnId]);
  });

  it('reports hello fields as health', async () => {
    const env = setup();
    env.helper.hello = {
      ...env.helper.hello,
      ready: false,
      status: 'not_runnable',
      message: 'graph.py:graph is not a runnable graph',
      agent_name: null
    };
    expect(await env.transport.checkHealth()).toEqual({
      state: 'needs_setup',
      message: 'graph.py:graph is not a runnable graph',
      agentName: null
    });
  });

  it('refuses a kernel that speaks another protocol', async () => {
    const env = setup();
    env.helper.hello = { ...env.helper.hello, protocol: 2 };
    const health = await env.transport.checkHealth();

    expect(health.state).toBe('needs_setup');
    expect(health.message).toContain('protocol 2, this panel speaks 1');
  });

  it('announces a hello the kernel sends later (serve() switched graphs)', async () => {
    const env = setup();
    await env.transport.checkHealth();
    const before = env.labelChanges();
    env.helper.sides[0].send({
      ...env.helper.hello,
      agent_name: 'My Graph',
      message: 'My Graph is ready'
    });
    await flush();

    expect(env.labelChanges()).toBe(before + 1);
    expect((await env.transport.checkHealth()).agentName).toBe('My Graph');
    expect(env.labelChanges()).toBe(before + 1);
  });
});

describe('KernelCommTransport: stop', () => {
  it('sends cancel and ends with the kernel’s cancelled frame', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, text('working'));
    await flush();
    handle.stop();
    handle.stop();
    await flush();

    expect(env.helper.cancels).toEqual([turn.turnId]);
    env.helper.frame(turn, 1, {
      status: 'cancelled',
      message: 'Execution cancelled by user'
    });
    env.helper.turnEnd(turn, 'cancelled');
    await handle.done;
    expect(sink.state.outcome).toBe('cancelled');
    expect(sink.ends).toEqual([undefined]);
  });

  it('ends after the grace period when the kernel never confirms', async () => {
    const env = setup({ cancelGraceMs: 50 });
    const { sink, handle, turn } = await startTurn(env);
    handle.stop();
    await handle.done;

    expect(env.helper.cancels).toEqual([turn.turnId]);
    // No reason: the chat model ends a stopped turn as cancelled locally.
    expect(sink.ends).toEqual([undefined]);
  });

  it('ends at once, sending nothing, when stopped before the comm opened', async () => {
    const env = setup();
    const sink = new ReducerSink();
    const handle = env.transport.startTurn(chat(), sink);
    handle.stop();
    await handle.done;
    await flush();

    expect(sink.ends).toEqual([undefined]);
    expect(env.helper.turns).toEqual([]);
    expect(env.helper.cancels).toEqual([]);
  });
});

describe('KernelCommTransport: subshells', () => {
  it('opens the comm once its subshell runs, so a running cell does not delay it', async () => {
    const env = setup();
    env.kernel.supportsSubshells = true;
    const subshell = new PromiseDelegate<void>();
    env.kernel.subshellStarted = subshell.promise;
    const sink = new ReducerSink();
    const handle = env.transport.startTurn(chat(), sink);
    await flush();

    expect(env.kernel.created).toHaveLength(1);
    expect(env.helper.sides).toEqual([]); // no comm_open yet: it would go to the main shell
    subshell.resolve();
    await flush();
    expect(env.helper.sides).toHaveLength(1);
    expect(env.helper.turns).toHaveLength(1);

    env.kernel.setStatus('busy');
    handle.stop();
    expect(sink.state.diagnostics).toEqual([]); // Stop reaches the subshell at once
  });

  it('gives up on a comm whose subshell does not start, without opening it', async () => {
    const env = setup({ connectTimeoutMs: 50 });
    env.kernel.supportsSubshells = true;
    env.kernel.subshellStarted = new Promise<void>(() => undefined);
    const sink = new ReducerSink();
    const handle = env.transport.startTurn(chat(), sink);
    await handle.done;

    expect(sink.ends[0]).toContain('No answer from the agent_panel comm');
    const [comm] = env.kernel.created;
    expect(comm.isDisposed).toBe(true);
    expect(env.helper.sides).toEqual([]); // no comm_open reached the kernel
  });

  it('says why a new turn and Stop wait while a cell runs on a kernel without subshells', async () => {
    const env = setup();
    env.kernel.setStatus('busy');
    const { sink, handle } = await startTurn(env);
    handle.stop();

    const reason =
      'the kernel has no subshells (ipykernel 7 and later have them)';
    expect(sink.state.diagnostics).toEqual([
      `The agent starts when the running cell of Untitled.ipynb ends: ${reason}.`,
      `Stop reaches the kernel of Untitled.ipynb when its running cell ends: ${reason}.`
    ]);
  });

  it('names the setting when comms over subshells are turned off', async () => {
    const env = setup();
    env.kernel.supportsSubshells = true;
    env.kernel.commsOverSubshells = 'disabled';
    env.kernel.subshellStarted = new Promise<void>(() => undefined); // never, as services does
    env.kernel.setStatus('busy');
    const { sink } = await startTurn(env);

    expect(sink.state.diagnostics).toEqual([
      'The agent starts when the running cell of Untitled.ipynb ends: comms over subshells are turned off (Settings › Kernels › Kernel Comms over subshells).'
    ]);
  });

  it('says nothing while the kernel is idle', async () => {
    const env = setup();
    const { sink, handle } = await startTurn(env);
    handle.stop();

    expect(sink.state.diagnostics).toEqual([]);
  });
});

describe('KernelCommTransport: the kernel keeps the thread', () => {
  it('remembers the kernel of a turn; after a restart, or on another kernel, the thread is forgotten', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, { status: 'complete' });
    env.helper.turnEnd(turn);
    await handle.done;
    expect(sink.memory).toEqual({ kernelId: env.kernel.id });
    const thread = {
      threadId: 'thread-1',
      memory: sink.memory,
      lastTurnAt: Date.now()
    };
    expect(await env.transport.threadMemory(thread)).toBe(true);
    // A conversation the panel kept before it knew kernels: it cannot tell.
    expect(
      await env.transport.threadMemory({ ...thread, memory: null })
    ).toBeNull();
    expect(
      await env.transport.threadMemory({
        ...thread,
        memory: { kernelId: 'another-kernel' }
      })
    ).toBe(false);

    jest.spyOn(Date, 'now').mockReturnValue(thread.lastTurnAt + 1000);
    env.kernel.restart();
    env.kernel.setStatus('idle');
    await flush();
    expect(await env.transport.threadMemory(thread)).toBe(false);
    env.transport.dispose();
  });
});

describe('KernelCommTransport: kernel lifecycle', () => {
  it('fails the turn on a restart and reopens the comm when the kernel is idle again', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, text('partial'));
    await flush();
    const changesBefore = env.labelChanges();

    env.kernel.restart();
    await handle.done;
    expect(sink.ends).toEqual([
      'The kernel of Untitled.ipynb restarted; the turn was lost.'
    ]);
    expect(sink.state.outcome).toBe('error');
    expect(sink.text).toBe('partial');
    expect(env.labelChanges()).toBe(changesBefore + 1);
    expect(env.kernel.created).toHaveLength(1);

    // Back and idle: the comm is opened again; %load_ext is gone with the
    // old process, so health says what to run.
    env.kernel.setStatus('idle');
    await flush();
    expect(env.kernel.created).toHaveLength(2);
    expect(env.labelChanges()).toBe(changesBefore + 2);
    expect(await env.transport.checkHealth()).toEqual({
      state: 'needs_setup',
      message: `The kernel of Untitled.ipynb has no agent_panel comm target: ${LOAD_EXT}.`,
      agentName: null
    });

    env.helper.load();
    const again = await startTurn(env);
    env.helper.frame(again.turn, 0, text('back'));
    env.helper.frame(again.turn, 1, { status: 'complete' });
    env.helper.turnEnd(again.turn);
    await again.handle.done;
    expect(again.sink.state.outcome).toBe('complete');
    expect(again.sink.text).toBe('back');
  });

  it('names a death when the server restarts the kernel after its process died', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.helper.frame(turn, 0, text('partial'));
    await flush();

    env.kernel.autoRestart();
    await handle.done;
    expect(sink.ends).toEqual([
      'The kernel of Untitled.ipynb died and restarted; the turn was lost.'
    ]);
    expect(sink.state.outcome).toBe('error');
    expect(sink.text).toBe('partial');
  });

  it('fails the turn when the kernel dies', async () => {
    const env = setup();
    const { sink, handle } = await startTurn(env);
    env.kernel.die();
    await handle.done;

    expect(sink.ends).toEqual([
      'The kernel of Untitled.ipynb died; the turn was lost.'
    ]);
    expect(env.transport.label).toBe('Untitled.ipynb · Python 3 (ipykernel)');
    const health = await env.transport.checkHealth();
    expect(health.state).toBe('needs_setup');
    expect(health.message).toBe(
      'Untitled.ipynb has no running kernel: start one from the Kernel menu.'
    );
  });

  it('fails the turn when the kernel connection is lost for good', async () => {
    const env = setup();
    const { sink, handle } = await startTurn(env);
    env.kernel.setConnectionStatus('disconnected');
    await handle.done;

    expect(sink.ends).toEqual([
      'The connection to the kernel of Untitled.ipynb was lost; the turn was lost.'
    ]);
    expect((await env.transport.checkHealth()).state).toBe('unreachable');
  });

  it('fails the turn when the kernel closes the comm', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    turn.side.close();
    await handle.done;

    expect(sink.ends).toEqual([
      'The kernel of Untitled.ipynb closed the agent_panel comm (was `%unload_ext jupyterlab_agent_panel` run?); the turn was lost.'
    ]);
  });
});

describe('KernelCommTransport: following notebooks', () => {
  it('re-binds to the notebook that becomes active and says so', async () => {
    const env = setup();
    await env.transport.checkHealth();
    expect(env.transport.label).toBe('Untitled.ipynb · Python 3 (ipykernel)');
    const other = new FakeKernel('julia');
    new FakeAgentHelper(other).load();
    const before = env.labelChanges();

    env.tracker.open(new FakeNotebook('Other.ipynb', other, 'Julia 1.10'));

    expect(env.labelChanges()).toBe(before + 1);
    expect(env.transport.label).toBe('Other.ipynb · Julia 1.10');
    // The idle comm to the previous kernel is closed.
    expect(env.kernel.created[0].kernelSide?.closedByPanel).toBe(true);
    expect((await env.transport.checkHealth()).state).toBe('healthy');
    expect(other.created).toHaveLength(1);
  });

  it('lets a running turn finish on the previous kernel', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    env.tracker.open(new FakeNotebook('Other.ipynb', new FakeKernel()));
    env.helper.frame(turn, 0, text('still here'));
    env.helper.frame(turn, 1, { status: 'complete' });
    env.helper.turnEnd(turn);
    await handle.done;
    await flush();

    expect(sink.text).toBe('still here');
    expect(sink.state.outcome).toBe('complete');
    expect(turn.side.closedByPanel).toBe(true);
  });

  it('re-binds when the notebook changes kernel or is renamed', async () => {
    const env = setup();
    await env.transport.checkHealth();
    const before = env.labelChanges();
    const other = new FakeKernel();
    new FakeAgentHelper(other).load();

    env.notebook.setKernel(other, 'Python 3.12');
    expect(env.transport.label).toBe('Untitled.ipynb · Python 3.12');
    env.notebook.rename('work/Renamed.ipynb');
    expect(env.transport.label).toBe('Renamed.ipynb · Python 3.12');

    expect(env.labelChanges()).toBe(before + 2);
    expect(env.kernel.created[0].kernelSide?.closedByPanel).toBe(true);
    expect((await env.transport.checkHealth()).state).toBe('healthy');
    expect(other.created).toHaveLength(1);
  });

  it('names the renamed notebook in messages of a comm opened before', async () => {
    const env = setup({ load: false });
    // Galata's createNew: the comm opens as Untitled.ipynb, then the rename.
    const health = env.transport.checkHealth();
    env.notebook.rename('work/no-target.ipynb');
    const sink = new ReducerSink();
    await env.transport.startTurn(chat(), sink).done;

    expect((await health).message).toBe(
      `The kernel of no-target.ipynb has no agent_panel comm target: ${LOAD_EXT}.`
    );
    expect(sink.ends).toEqual([
      `The kernel of no-target.ipynb has no agent_panel comm target: ${LOAD_EXT}.`
    ]);
    expect(env.kernel.created).toHaveLength(1);
  });

  it('stays with a pinned notebook', async () => {
    const kernel = new FakeKernel();
    new FakeAgentHelper(kernel).load();
    const tracker = new FakeNotebookTracker();
    tracker.open(new FakeNotebook('a.ipynb', new FakeKernel()));
    const transport = new KernelCommTransport({
      binding: new KernelBinding({
        notebooks: tracker,
        pinnedPath: '/work/b.ipynb'
      }),
      commTarget: 'agent_panel',
      connectTimeoutMs: 2000,
      idleTimeoutMs: 0
    });
    let changes = 0;
    transport.labelChanged.connect(() => (changes += 1));

    expect(transport.label).toBe('b.ipynb (not open)');
    expect((await transport.checkHealth()).message).toBe(
      'Open b.ipynb: this endpoint is pinned to that notebook.'
    );

    const pinned = tracker.open(new FakeNotebook('work/b.ipynb', kernel));
    expect(changes).toBe(1);
    expect(transport.label).toBe('b.ipynb · Python 3 (ipykernel)');
    tracker.activate(tracker.notebooks[0]);
    expect(changes).toBe(1);
    expect((await transport.checkHealth()).state).toBe('healthy');

    tracker.close(pinned);
    expect(transport.label).toBe('b.ipynb (not open)');
    transport.dispose();
  });
});

describe('KernelCommTransport: dispose', () => {
  it('closes its comms, ends running turns and disconnects every listener', async () => {
    const env = setup();
    const { sink, handle, turn } = await startTurn(env);
    const changes = env.labelChanges();

    env.transport.dispose();
    env.transport.dispose();
    await handle.done;

    expect(sink.ends).toEqual([
      'The connection to the kernel of Untitled.ipynb was closed by the panel; the turn was lost.'
    ]);
    expect(turn.side.closedByPanel).toBe(true);
    expect(env.kernel.comms.size).toBe(0);
    expect(env.kernel.connections).toBe(0);
    expect(env.notebook.connections).toBe(0);
    expect(env.tracker.connections).toBe(0);
    expect(env.binding.isDisposed).toBe(true);
    expect(env.transport.isDisposed).toBe(true);

    // Late events reach nobody.
    env.kernel.restart();
    env.kernel.setStatus('idle');
    env.tracker.open(new FakeNotebook('Other.ipynb', new FakeKernel()));
    await flush();
    expect(env.labelChanges()).toBe(changes);
    expect(env.kernel.created).toHaveLength(1);
  });

  it('closes a comm kept open for a running turn on the previous kernel', async () => {
    const env = setup();
    const { handle, turn } = await startTurn(env);
    env.tracker.open(new FakeNotebook('Other.ipynb', new FakeKernel()));
    expect(turn.side.closedByPanel).toBe(false);

    env.transport.dispose();
    await handle.done;
    expect(turn.side.closedByPanel).toBe(true);
    expect(env.kernel.connections).toBe(0);
  });

  it('ends a turn that was still waiting for the comm', async () => {
    const env = setup();
    const sink = new ReducerSink();
    const handle = env.transport.startTurn(chat(), sink);
    env.transport.dispose();
    await handle.done;

    expect(sink.ends).toHaveLength(1);
    expect(sink.ends[0]).toContain('closed by the panel');
    expect(env.kernel.comms.size).toBe(0);
  });
});
