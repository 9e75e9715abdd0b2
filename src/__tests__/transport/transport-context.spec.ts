/**
 * The four context fields on every transport (issue: "check all three paths
 * carry each field"): `chat` body fields over HTTP, `start_turn.context`
 * over the comm, `RunAgentInput.context` entries over AG-UI (the entries in
 * fixtures/agui/context-entries.json, which a pytest sends to langstage-agui).
 */
import * as fs from 'fs';
import * as path from 'path';
import { runInput } from '../../agui/request';
import { AguiThread } from '../../agui/thread';
import { KernelCommTransport } from '../../transport/comm/comm';
import { ChunkWireHttpTransport } from '../../transport/http/http';
import { KernelBinding } from '../../transport/comm/kernel-binding';
import type { ITurnContext, ITurnSink, TurnRequest } from '../../wire/turn';
import {
  FakeAgentHelper,
  FakeKernel,
  FakeNotebook,
  FakeNotebookTracker,
  flush
} from '../support/transport-comm-fakes';

const FIXTURE = JSON.parse(
  fs.readFileSync(
    path.resolve(__dirname, '../../../fixtures/agui/context-entries.json'),
    'utf-8'
  )
);
const CONTEXT: ITurnContext = FIXTURE.turnContext;
const REQUEST: TurnRequest = {
  kind: 'chat',
  threadId: 'thread-1',
  message: 'what is this?',
  context: CONTEXT
};

const sink = (): ITurnSink => ({
  frame: () => undefined,
  diagnostic: () => undefined,
  end: () => undefined
});

it('has all four fields in the shared fixture', () => {
  expect(Object.keys(CONTEXT).sort()).toEqual([
    'current_directory',
    'focused_widget',
    'selected_text',
    'selection_metadata'
  ]);
});

it('sends them as the optional fields of the HTTP chat body', async () => {
  const bodies: unknown[] = [];
  const transport = new ChunkWireHttpTransport({
    baseUrl: 'http://127.0.0.1:1/agent-panel/',
    connectTimeoutMs: 1000,
    idleTimeoutMs: 0,
    fetch: async (_url, init) => {
      bodies.push(JSON.parse(String(init.body)));
      return new Response(
        'data: {"status": "complete", "outcome": "complete"}\n\n',
        { status: 200, headers: { 'Content-Type': 'text/event-stream' } }
      );
    }
  });
  await transport.startTurn(REQUEST, sink()).done;
  expect(bodies).toEqual([
    { message: 'what is this?', thread_id: 'thread-1', ...CONTEXT }
  ]);
  transport.dispose();
});

it("sends an attached image's bytes to this Jupyter server's routes only", async () => {
  const image = {
    kind: 'image' as const,
    source: 'cell 1 of a.ipynb',
    text: '[image output: image/png, 3 bytes; not sent as an image]',
    image: { mimeType: 'image/png', data: 'AAAA' }
  };
  const request: TurnRequest = {
    ...REQUEST,
    context: { attachments: [image] }
  };
  const sent = async (isJupyterRoute: boolean) => {
    const bodies: { attachments: object[] }[] = [];
    const transport = new ChunkWireHttpTransport({
      baseUrl: 'http://127.0.0.1:1/agent-panel/',
      connectTimeoutMs: 1000,
      idleTimeoutMs: 0,
      isJupyterRoute,
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init.body)));
        return new Response(
          'data: {"status": "complete", "outcome": "complete"}\n\n',
          { status: 200, headers: { 'Content-Type': 'text/event-stream' } }
        );
      }
    });
    await transport.startTurn(request, sink()).done;
    transport.dispose();
    return bodies[0].attachments;
  };
  const { image: bytes, ...placeholder } = image;
  expect(await sent(true)).toEqual([
    { ...placeholder, image: { mime_type: 'image/png', data: bytes.data } }
  ]);
  expect(await sent(false)).toEqual([placeholder]);
});

it('sends them as the context object of the comm start_turn', async () => {
  const kernel = new FakeKernel();
  const helper = new FakeAgentHelper(kernel).load();
  const tracker = new FakeNotebookTracker();
  tracker.open(new FakeNotebook('work/Untitled.ipynb', kernel));
  const binding = new KernelBinding({ notebooks: tracker, pinnedPath: '' });
  const transport = new KernelCommTransport({
    binding,
    commTarget: 'agent_panel',
    connectTimeoutMs: 2000,
    idleTimeoutMs: 0,
    cancelGraceMs: 2000
  });
  transport.startTurn(REQUEST, sink());
  await flush();
  expect(helper.lastTurn.message).toMatchObject({
    type: 'start_turn',
    message: 'what is this?',
    context: CONTEXT
  });
  transport.dispose();
  binding.dispose();
});

it('sends them as AG-UI context entries', () => {
  const { input } = runInput(
    {
      kind: 'chat',
      threadId: 'thread-1',
      message: 'what is this?',
      context: CONTEXT
    },
    new AguiThread('thread-1')
  );
  expect(input.context).toEqual(FIXTURE.context);
});
