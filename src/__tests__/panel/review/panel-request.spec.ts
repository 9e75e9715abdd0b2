/**
 * What an AG-UI turn shows beyond the chunk wire: a 1.0 request with the
 * form its responseSchema describes (the review rows' form), checked as the
 * user types, Dismiss, an expired request, a request under the tool call it
 * is about; a client tool's status; the tokens a turn and the conversation
 * used.
 */
import { Widget } from '@lumino/widgets';
import { ChatModel } from '../../../model/conversation/chat-model';
import { RequestCardView } from '../../../panel/review/request-card';
import { TranscriptView } from '../../../panel/transcript/transcript';
import type { IInterruptCard, IInterruptRequest } from '../../../wire/types';
import {
  click,
  complete,
  FakeTransport,
  frame,
  makeContext,
  typeInto
} from '../../support/panel-fakes';

afterEach(() => document.body.replaceChildren());

function card(request: Partial<IInterruptRequest>): IInterruptCard {
  return {
    kind: 'interrupt',
    key: 1,
    actions: [],
    allowedDecisions: [],
    interruptIds: ['i-1'],
    answered: null,
    request: {
      reason: 'input_required',
      message: 'What is your name?',
      responseSchema: null,
      expiresAt: null,
      toolCallId: null,
      ...request
    }
  };
}

function show(request: Partial<IInterruptRequest>, settled = true) {
  const context = makeContext();
  const item = card(request);
  const view = new RequestCardView(context.trans, context.onResponse);
  document.body.appendChild(view.widget.node);
  view.update(item);
  if (settled) {
    view.settle('interrupted');
  }
  const node = view.widget.node;
  const answer = (name: string) =>
    node.querySelector<HTMLButtonElement>(`[data-answer="${name}"]`)!;
  return { context, item, view, node, answer };
}

const NAME_SCHEMA = {
  type: 'object',
  properties: {
    // A schema's title, as an agent sends it: not the panel's text.
    // eslint-disable-next-line jupyter/no-untranslated-string
    name: { type: 'string', title: 'Name', minLength: 2 }
  },
  required: ['name']
};

describe('request card', () => {
  it('builds the answer form from the responseSchema and sends only a valid payload', () => {
    const { context, item, node, answer } = show({
      responseSchema: NAME_SCHEMA
    });
    expect(
      node.querySelector('.jp-AgentPanel-reviewHeading')!.textContent
    ).toBe('The agent asks for your input (input_required)');
    expect(node.textContent).toContain('What is your name?');
    expect(node.querySelector('.jp-AgentPanel-fieldTitle')!.textContent).toBe(
      'Name (required)'
    );
    expect(answer('send').disabled).toBe(true);
    const input = node.querySelector('.jp-AgentPanel-field input');
    typeInto(input, 'A');
    expect(answer('send').disabled).toBe(true);
    expect(node.querySelector('.jp-AgentPanel-reviewError')!.textContent).toBe(
      '$.name: needs at least 2 character(s)'
    );
    typeInto(input, 'Ada');
    expect(answer('send').disabled).toBe(false);
    click(answer('send'));
    expect(context.responses).toEqual([
      [item, { status: 'resolved', payload: { name: 'Ada' } }]
    ]);
    expect(node.dataset.state).toBe('sent');
    expect(node.textContent).toContain('Your answer: {');
  });

  it('edits a schema a form cannot show as JSON, checked against the schema', () => {
    const { context, node, answer } = show({
      responseSchema: { type: 'array', items: { type: 'number' } }
    });
    const text = node.querySelector<HTMLTextAreaElement>('textarea')!;
    expect(text.getAttribute('aria-label')).toBe('Your answer (JSON)');
    typeInto(text, '[1, "two"]');
    expect(answer('send').disabled).toBe(true);
    typeInto(text, '[1, 2]');
    click(answer('send'));
    expect(context.responses[0][1]).toEqual({
      status: 'resolved',
      payload: [1, 2]
    });
  });

  it('approves or rejects a tool call without a schema, and Dismiss cancels', () => {
    const approved = show({ reason: 'tool_call', toolCallId: 'c-1' });
    expect(
      [...approved.node.querySelectorAll<HTMLElement>('[data-answer]')].map(
        button => button.textContent
      )
    ).toEqual(['Approve', 'Reject', 'Dismiss']);
    click(approved.answer('approve'));
    expect(approved.context.responses[0][1]).toEqual({
      status: 'resolved',
      payload: { approved: true }
    });
    document.body.replaceChildren();
    const dismissed = show({ reason: 'tool_call', toolCallId: 'c-1' });
    click(dismissed.answer('dismiss'));
    expect(dismissed.context.responses[0][1]).toEqual({ status: 'cancelled' });
    expect(dismissed.node.textContent).toContain(
      'Dismissed: the agent was told you did not answer.'
    );
  });

  it('takes text for input asked for without a schema', () => {
    const { context, node, answer } = show({});
    expect(answer('send').disabled).toBe(true);
    typeInto(node.querySelector('textarea'), 'Ada');
    click(answer('send'));
    expect(context.responses[0][1]).toEqual({
      status: 'resolved',
      payload: 'Ada'
    });
  });

  it('says an expired request can no longer be answered, and offers nothing', () => {
    const { node } = show({
      reason: 'confirmation',
      expiresAt: '2000-01-01T00:00:00Z'
    });
    expect(node.dataset.state).toBe('expired');
    expect(
      node.querySelector('.jp-AgentPanel-reviewHeading')!.textContent
    ).toMatch(/^This request expired at .+: it can no longer be answered\.$/);
    expect(
      node.querySelector<HTMLElement>('.jp-AgentPanel-reviewButtons')!.hidden
    ).toBe(true);
  });

  it('waits for the turn to pause, unlocks when the answer is refused, shows the answer sent', () => {
    const { context, item, view, node, answer } = show(
      { reason: 'tool_call', toolCallId: 'c-1' },
      false
    );
    expect(answer('approve').disabled).toBe(true);
    view.settle('interrupted');
    context.accept = false;
    click(answer('reject'));
    expect(node.dataset.state).toBe('open');
    context.accept = true;
    click(answer('reject'));
    item.answered = [];
    item.response = { status: 'resolved', payload: { approved: false } };
    view.update(item);
    expect(node.dataset.state).toBe('answered');
    expect(node.textContent).toContain('Sent: {');
  });
});

describe('an AG-UI turn in the transcript', () => {
  function harness() {
    const context = makeContext();
    const model = new ChatModel('t1');
    const transport = new FakeTransport();
    model.transport = transport;
    const view = new TranscriptView(model, context);
    Widget.attach(view, document.body);
    model.send('question');
    const push = (json: Record<string, unknown>) =>
      transport.lastTurn.sink.frame(frame(json));
    return { context, model, transport, view, push };
  }

  it('shows a request about a tool call right under that call', () => {
    const { view, push } = harness();
    push({
      status: 'streaming',
      tool_calls: [{ name: 'delete_file', args: { path: 'a' }, id: 'c-1' }]
    });
    push({ status: 'streaming', chunk: 'More text.', node: 'agent' });
    push({
      status: 'interrupt',
      interrupt: { action_requests: [], review_configs: [] },
      interrupt_ids: ['i-1'],
      request: { reason: 'tool_call', tool_call_id: 'c-1' }
    });
    const turn = view.node.querySelector('.jp-AgentPanel-turn')!;
    const tool = turn.querySelector('.jp-AgentPanel-tool')!;
    expect(tool.nextElementSibling!.classList).toContain(
      'jp-AgentPanel-request'
    );
    expect(tool.classList).toContain('jp-AgentPanel-toolWithRequest');
  });

  it('says a client tool runs here, and the tokens of the turn and the conversation', async () => {
    const { model, transport, view, push } = harness();
    model.clientTools.register({
      name: 'echo',
      description: '',
      parameters: {},
      run: () => new Promise(() => undefined)
    });
    push({
      status: 'streaming',
      tool_calls: [{ name: 'echo', args: {}, id: 'c-1' }]
    });
    push({ status: 'usage', input_tokens: 1200, output_tokens: 34 });
    const { sink } = transport.lastTurn;
    sink.clientToolCalls!([{ id: 'c-1', name: 'echo', args: {} }]);
    sink.frame(complete());
    sink.end();
    const status = view.node.querySelector('.jp-AgentPanel-toolStatus')!;
    expect(status.textContent).toBe('Running in JupyterLab…');
    expect(view.node.querySelector('.jp-AgentPanel-usage')!.textContent).toBe(
      `${(1200).toLocaleString()} tokens in · 34 out`
    );
    expect(model.tokenUsage).toEqual({ inputTokens: 1200, outputTokens: 34 });
    model.stop();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(status.textContent).toBe('Failed in JupyterLab');
    model.dispose();
  });
});
