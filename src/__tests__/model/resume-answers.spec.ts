/**
 * A resume names the review it answers (docs/protocol.md §5.9): the panel
 * sends the interrupt ids its review cards got on their interrupt frames,
 * over HTTP and the kernel comm, and shows a `stale_review` refusal like
 * `nothing_pending` ("answered elsewhere"). The chat model drives the real
 * transports against a scripted server and kernel helper.
 */
import { ChatModel } from '../../model/conversation/chat-model';
import type { ITurnEntry } from '../../model/conversation/chat/chat-entries';
import { KernelCommTransport } from '../../transport/comm/comm';
import { ChunkWireHttpTransport } from '../../transport/http/http';
import { KernelBinding } from '../../transport/comm/kernel-binding';
import type { IInterruptCard } from '../../wire/types';
import { resumeAnswers } from '../../wire/turn';
import { trans } from '../support/fake-transport';
import { response, ScriptedBody } from '../support/http-fakes';
import {
  FakeAgentHelper,
  FakeKernel,
  FakeNotebook,
  FakeNotebookTracker,
  flush
} from '../support/transport-comm-fakes';

const ASK = {
  status: 'interrupt',
  interrupt: {
    action_requests: [{ action: 'ask_user', args: { question: 'Name?' } }],
    review_configs: [],
    allowed_decisions: ['respond', 'approve']
  },
  interrupt_ids: ['i-2']
};
const PAUSED = { status: 'complete', outcome: 'interrupted' };
const STALE =
  'This answers a review that is no longer pending (interrupt i-2): the agent now waits on i-3 (action 1 (ask_user)).';

async function until(model: ChatModel, status: string): Promise<void> {
  for (let i = 0; i < 20 && model.status !== status; i++) {
    await flush();
  }
  expect(model.status).toBe(status);
}

function cardOf(model: ChatModel): IInterruptCard {
  return (model.entries[1] as ITurnEntry).state.items[0] as IInterruptCard;
}

/**
 * The chat model on the HTTP transport: `join` finds no run in flight, each
 * other POST is answered by `answer`; `resumes` are the resume bodies.
 */
function overHttp(answer: (route: string) => Response) {
  const resumes: unknown[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const route = url.slice(url.lastIndexOf('/') + 1);
    if (route === 'resume') {
      resumes.push(JSON.parse(String(init.body)));
    }
    return route === 'join' ? response(204, null) : answer(route);
  };
  const model = new ChatModel('thread-1', trans);
  model.transport = new ChunkWireHttpTransport({
    baseUrl: 'http://agent.test/agent-panel/',
    fetch,
    connectTimeoutMs: 1000,
    idleTimeoutMs: 0
  });
  return { model, resumes };
}

function sse(...frames: unknown[]): Response {
  const body = new ScriptedBody();
  body.push(frames.map(f => `data: ${JSON.stringify(f)}\n\n`).join(''));
  body.close();
  return response(200, body);
}

describe('a resume over HTTP', () => {
  it('names the interrupts it answers, and a stale_review marks the cards answered elsewhere', async () => {
    const { model, resumes } = overHttp(route =>
      route === 'chat'
        ? sse(ASK, PAUSED)
        : response(
            409,
            JSON.stringify({ reason: 'stale_review', message: STALE }),
            'application/json'
          )
    );
    model.send('ask me');
    await until(model, 'awaiting-decision');

    model.answer([{ type: 'approve' }]);
    await until(model, 'idle');

    expect(resumes).toEqual([
      {
        thread_id: 'thread-1',
        decisions: [{ type: 'approve' }],
        interrupt_ids: ['i-2']
      }
    ]);
    expect(cardOf(model).answeredElsewhere).toBe(true);
    const resume = model.entries[2] as ITurnEntry;
    expect(resume.state.error?.message).toBe(
      `HTTP 409 Conflict from http://agent.test/agent-panel/resume: ${STALE}`
    );
    model.dispose();
  });

  it('names none when the producer revealed no id (another chunk-wire server)', async () => {
    const { interrupt_ids, ...withoutIds } = ASK;
    expect(interrupt_ids).toHaveLength(1);
    const { model, resumes } = overHttp(route =>
      route === 'chat'
        ? sse(withoutIds, PAUSED)
        : sse({ status: 'complete', outcome: 'complete' })
    );
    model.send('ask me');
    await until(model, 'awaiting-decision');

    model.answer([{ type: 'respond', message: 'Ada' }]);
    await until(model, 'idle');

    expect(resumes).toEqual([
      {
        thread_id: 'thread-1',
        decisions: [{ type: 'respond', message: 'Ada' }]
      }
    ]);
    expect(cardOf(model).answeredElsewhere).toBeUndefined();
    model.dispose();
  });
});

describe('a resume over the kernel comm', () => {
  function overComm() {
    const kernel = new FakeKernel();
    const helper = new FakeAgentHelper(kernel).load();
    const tracker = new FakeNotebookTracker();
    tracker.open(new FakeNotebook('work/Untitled.ipynb', kernel));
    const model = new ChatModel('thread-1', trans);
    model.transport = new KernelCommTransport({
      binding: new KernelBinding({ notebooks: tracker, pinnedPath: '' }),
      commTarget: 'agent_panel',
      connectTimeoutMs: 2000,
      idleTimeoutMs: 0,
      cancelGraceMs: 2000
    });
    return { model, helper };
  }

  it('names the interrupts it answers, and a rejected stale_review marks the cards answered elsewhere', async () => {
    const { model, helper } = overComm();
    model.send('ask me');
    await flush();
    helper.frame(helper.lastTurn, 0, ASK);
    helper.frame(helper.lastTurn, 1, PAUSED);
    helper.turnEnd(helper.lastTurn, 'interrupted');
    await until(model, 'awaiting-decision');

    model.answer([{ type: 'approve' }]);
    await flush();
    const resume = helper.lastTurn;
    expect(resume.message).toEqual({
      type: 'resume',
      turn_id: resume.turnId,
      thread_id: 'thread-1',
      decisions: [{ type: 'approve' }],
      interrupt_ids: ['i-2']
    });
    helper.reject(resume, 'stale_review', STALE);
    await until(model, 'idle');

    expect(cardOf(model).answeredElsewhere).toBe(true);
    expect((model.entries[2] as ITurnEntry).state.error?.message).toBe(
      `The kernel did not resume: ${STALE}`
    );
    model.dispose();
  });
});

describe('resumeAnswers', () => {
  it('names every review’s ids, or none when one review has none', () => {
    const review = (...ids: string[]) => ({ interruptIds: ids, rows: 1 });
    expect(resumeAnswers([review('a'), review('b', 'c')])).toEqual({
      interrupt_ids: ['a', 'b', 'c']
    });
    expect(resumeAnswers([review('a'), review()])).toEqual({});
    expect(resumeAnswers([])).toEqual({});
    expect(resumeAnswers(undefined)).toEqual({});
  });
});
