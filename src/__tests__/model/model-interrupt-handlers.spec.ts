/**
 * Reviews a plugin answers in the user's place (docs/protocol.md §12.3): a
 * notebook tool call's interrupt over the chunk wire is decided by the
 * handler and the review answered once; a review with a row no handler takes
 * stays the user's; answering it otherwise aborts the handler.
 */
import { ChatModel } from '../../model/conversation/chat-model';
import { InterruptHandlers } from '../../model/conversation/interrupt-handlers';
import type { IInterruptHandler } from '../../contracts/extension-points';
import { notebookToolCall } from '../../contracts/notebook-tools';
import { respond } from '../../wire/decisions';
import type { Decision } from '../../wire/types';
import {
  complete,
  FakeTransport,
  frame,
  trans
} from '../support/fake-transport';

const marker = { notebook_tool: 1, mutates: false, tool_call_id: 'call_0' };
const notebookCall = (extra: Record<string, unknown>[] = []) =>
  frame({
    status: 'interrupt',
    interrupt: {
      action_requests: [
        {
          name: 'list_notebooks',
          args: {},
          description: 'List the open notebooks',
          jupyterlab_agent_panel: marker
        },
        ...extra
      ],
      review_configs: [],
      allowed_decisions: ['reject', 'respond']
    }
  });

const disposables: { dispose(): void }[] = [];
afterEach(() => disposables.splice(0).forEach(d => d.dispose()));

function paused(interrupt = notebookCall()) {
  const model = new ChatModel('thread', trans);
  const transport = new FakeTransport();
  model.transport = transport;
  const handlers = new InterruptHandlers(model);
  disposables.push(handlers, model);
  const pause = () => {
    transport.lastTurn.sink.frame(interrupt);
    transport.lastTurn.sink.frame(complete('interrupted'));
    transport.lastTurn.sink.end();
  };
  return { model, transport, handlers, pause };
}

/** A handler of notebook tool rows whose decisions the test settles. */
function notebookHandler() {
  const calls: {
    name: string;
    signal: AbortSignal;
    decide(d: Decision): void;
  }[] = [];
  const handler: IInterruptHandler = {
    handles: action => notebookToolCall(action) !== null,
    decide: (action, signal) =>
      new Promise(resolve =>
        calls.push({ name: action.name!, signal, decide: resolve })
      )
  };
  return { handler, calls };
}

const flush = () => new Promise(resolve => setTimeout(resolve, 0));

describe('InterruptHandlers', () => {
  it('answers a review whose rows it takes, once, with its decisions', async () => {
    const { model, transport, handlers, pause } = paused();
    const { handler, calls } = notebookHandler();
    handlers.register(handler);
    model.send('list them');
    pause();
    expect(model.status).toBe('awaiting-decision');
    expect(calls.map(call => call.name)).toEqual(['list_notebooks']);
    calls[0].decide(respond('{"status": "ok", "notebooks": []}'));
    await flush();
    expect(transport.turns).toHaveLength(2);
    expect(transport.lastTurn.request).toMatchObject({
      kind: 'resume',
      decisions: [
        { type: 'respond', message: '{"status": "ok", "notebooks": []}' }
      ]
    });
    expect(model.status).toBe('running');
  });

  it('takes up a review already pending when it registers (after a reload)', async () => {
    const { model, transport, handlers, pause } = paused();
    model.send('list them');
    pause();
    const { handler, calls } = notebookHandler();
    handlers.register(handler);
    expect(calls).toHaveLength(1);
    calls[0].decide(respond('{"status": "ok"}'));
    await flush();
    expect(transport.turns).toHaveLength(2);
  });

  it('leaves a review with a row it does not take to the user', () => {
    const { model, handlers, pause } = paused(
      notebookCall([{ name: 'delete_file', args: { path: 'x' } }])
    );
    const { handler, calls } = notebookHandler();
    handlers.register(handler);
    model.send('do both');
    pause();
    expect(calls).toHaveLength(0);
    expect(model.status).toBe('awaiting-decision');
  });

  it('aborts its work when the user answers first, and sends nothing more', async () => {
    const { model, transport, handlers, pause } = paused();
    const { handler, calls } = notebookHandler();
    handlers.register(handler);
    model.send('list them');
    pause();
    model.answer([{ type: 'reject', message: 'no' }]);
    expect(calls[0].signal.aborted).toBe(true);
    calls[0].decide(respond('late'));
    await flush();
    expect(transport.turns).toHaveLength(2);
    expect(transport.lastTurn.request).toMatchObject({
      decisions: [{ type: 'reject', message: 'no' }]
    });
  });
});
