import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import { ChatPanel } from '../../panel/chat-panel';
import { WorkingIndicator } from '../../panel/composer/working-indicator';
import { DEFAULT_SETTINGS } from '../../contracts/settings';
import {
  chunk,
  click,
  complete,
  FakeTransport,
  frame,
  libraryFor,
  makeContext,
  trans,
  typeInto,
  waitFor
} from '../support/panel-fakes';

/** Disposed after each test, with the services they own. */
const panels: ChatPanel[] = [];
const services: AgentPanelService[] = [];

function panelWith(withTransport = true) {
  const transport = withTransport ? new FakeTransport() : null;
  const model = new ChatModel('thread-1', trans);
  const service = new AgentPanelService(model);
  if (transport) {
    service.registerTransport('http', () => transport);
  }
  const context = makeContext();
  const panel = new ChatPanel({
    service,
    library: libraryFor(service),
    rendermime: context.rendermime,
    trans,
    commands: context.commands
  });
  Widget.attach(panel, document.body);
  panels.push(panel);
  services.push(service);
  const $ = <T extends Element = HTMLElement>(selector: string) =>
    panel.node.querySelector<T>(selector)!;
  const input = $<HTMLTextAreaElement>('.jp-AgentPanel-input');
  const key = (init: KeyboardEventInit & { keyCode?: number }) =>
    input.dispatchEvent(
      new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init })
    );
  return { model, service, panel, transport: transport!, $, input, key };
}

const ASK = frame({
  status: 'interrupt',
  interrupt: {
    action_requests: [{ action: 'ask_user', args: { question: 'Name?' } }],
    review_configs: [],
    allowed_decisions: ['respond', 'approve']
  }
});

afterEach(() => {
  panels.splice(0).forEach(panel => panel.dispose());
  services.splice(0).forEach(service => service.dispose());
  document.body.replaceChildren();
});

describe('ChatPanel composer', () => {
  it('sends on Enter, not on Shift+Enter nor while an IME composes', () => {
    const { input, key, transport } = panelWith();
    typeInto(input, 'hello');
    key({ key: 'Enter', shiftKey: true });
    key({ key: 'Enter', isComposing: true });
    key({ key: 'Enter', keyCode: 229 });
    expect(transport.turns).toHaveLength(0);
    key({ key: 'Enter' });
    expect(transport.turns).toHaveLength(1);
    expect(transport.lastTurn.request).toMatchObject({
      kind: 'chat',
      message: 'hello'
    });
    expect(input.value).toBe('');
  });

  it('shows Stop while a turn runs; Stop and Escape stop it before the first token', () => {
    const { input, key, transport, $ } = panelWith();
    typeInto(input, 'hello');
    key({ key: 'Enter' });
    expect($('.jp-AgentPanel-stop').hidden).toBe(false);
    expect($('.jp-AgentPanel-send').hidden).toBe(true);
    typeInto(input, 'next question');
    key({ key: 'Enter' });
    // Queued for when the turn completes, not sent.
    expect(transport.turns).toHaveLength(1);
    expect(input.value).toBe('');
    expect($('.jp-AgentPanel-queueText').textContent).toBe('next question');
    click($('.jp-AgentPanel-stop'));
    key({ key: 'Escape' });
    expect(transport.lastTurn.stops).toBe(2);
    transport.lastTurn.sink.frame(
      frame({ status: 'cancelled', message: 'Execution cancelled by user' })
    );
    expect($('.jp-AgentPanel-stop').hidden).toBe(true);
    expect($('.jp-AgentPanel-transcript').textContent).toContain(
      'Stopped: Execution cancelled by user'
    );
  });

  it('explains why it is locked while a review is pending, and the review resumes once', () => {
    const { input, key, transport, $, model } = panelWith();
    typeInto(input, 'ask me a question');
    key({ key: 'Enter' });
    transport.lastTurn.sink.frame(ASK);
    transport.lastTurn.sink.frame(complete('interrupted'));
    expect(input.disabled).toBe(true);
    expect($('.jp-AgentPanel-composerNotice').textContent).toContain(
      'Waiting for your review above.'
    );
    click($('[data-verb="respond"]'));
    typeInto($('.jp-AgentPanel-reviewForm textarea'), 'Ada');
    const confirm = $('.jp-AgentPanel-confirm');
    click(confirm);
    click(confirm);
    const resumes = transport.turns.filter(t => t.request.kind === 'resume');
    expect(resumes).toHaveLength(1);
    expect(resumes[0].request).toEqual({
      kind: 'resume',
      threadId: 'thread-1',
      decisions: [{ type: 'respond', message: 'Ada' }],
      reviews: [{ interruptIds: [], rows: 1 }]
    });
    expect(model.status).toBe('running');
    expect(input.disabled).toBe(false);
    expect($('.jp-AgentPanel-review').textContent).toContain(
      'Sent: Responded: Ada'
    );
  });

  it('explains that there is no agent when the endpoint has no transport', () => {
    const { input, $, service } = panelWith(false);
    service.setSettings(DEFAULT_SETTINGS);
    expect(input.disabled).toBe(true);
    expect($('.jp-AgentPanel-composerNotice').textContent).toContain(
      'No agent to talk to: No http transport is available'
    );
  });
});

describe('ChatPanel status', () => {
  it('announces turn start and end politely, not each delta', () => {
    const { input, key, transport, $ } = panelWith();
    const announcer = $('.jp-AgentPanel-announcer');
    expect(announcer.getAttribute('aria-live')).toBe('polite');
    expect($('.jp-AgentPanel-transcript').getAttribute('role')).toBe('log');
    typeInto(input, 'hello');
    key({ key: 'Enter' });
    expect(announcer.textContent).toBe('The agent is answering.');
    transport.lastTurn.sink.frame(chunk('one'));
    transport.lastTurn.sink.frame(chunk(' two'));
    expect(announcer.textContent).toBe('The agent is answering.');
    transport.lastTurn.sink.frame(
      frame({ status: 'error', error: 'ValueError: bad' })
    );
    expect(announcer.textContent).toBe('The turn failed: ValueError: bad');
  });

  it('shows the endpoint health and checks again when clicked', async () => {
    const { service, $, transport } = panelWith();
    const check = jest.spyOn(transport, 'checkHealth');
    const health = $('.jp-AgentPanel-health');
    expect(health.textContent).toContain('Checking…');
    service.health.start();
    await Promise.resolve();
    await Promise.resolve();
    expect(health.dataset.state).toBe('healthy');
    expect(health.textContent).toContain('Ready');
    expect(health.title).toContain('Fake');
    transport.health = async () => {
      throw new Error('HTTP 503 from fake');
    };
    click(health);
    await Promise.resolve();
    await Promise.resolve();
    expect(check).toHaveBeenCalledTimes(2);
    expect(health.textContent).toContain('Unreachable');
    expect(health.getAttribute('aria-label')).toBe(
      'Agent: Unreachable — HTTP 503 from fake'
    );
    service.dispose();
  });

  it('checks the health again when a turn fails, not when one completes', async () => {
    const { service, input, key, transport } = panelWith();
    service.health.start();
    await Promise.resolve();
    const check = jest.spyOn(transport, 'checkHealth');
    typeInto(input, 'hello');
    key({ key: 'Enter' });
    transport.lastTurn.sink.frame(frame({ status: 'complete' }));
    transport.lastTurn.sink.end('done');
    expect(check).not.toHaveBeenCalled();
    typeInto(input, 'again');
    key({ key: 'Enter' });
    transport.lastTurn.sink.frame(
      frame({
        status: 'error',
        error: 'ConnectError: All connection attempts failed'
      })
    );
    transport.lastTurn.sink.end('done');
    expect(check).toHaveBeenCalledTimes(1);
    service.dispose();
  });

  it('shows "Jump to latest" only while the reader is away from the end', () => {
    const { panel, $ } = panelWith();
    const jump = $('.jp-AgentPanel-jump');
    const isHidden = () => jump.classList.contains('lm-mod-hidden');
    expect(isHidden()).toBe(true);
    const transcript = $('.jp-AgentPanel-transcript');
    Object.defineProperty(transcript, 'scrollHeight', { value: 1000 });
    Object.defineProperty(transcript, 'clientHeight', { value: 100 });
    transcript.scrollTop = 500;
    transcript.dispatchEvent(new Event('scroll'));
    transcript.scrollTop = 100;
    transcript.dispatchEvent(new Event('scroll'));
    expect(panel.transcript.scroller.following).toBe(false);
    expect(isHidden()).toBe(false);
    click(jump);
    expect(isHidden()).toBe(true);
  });

  it('New starts a new thread with an empty transcript, and keeps the old one', async () => {
    const { input, key, transport, $, model, service } = panelWith();
    typeInto(input, 'hello');
    key({ key: 'Enter' });
    transport.lastTurn.sink.frame(complete());
    // The toolbar button is a React component: wait for it to render.
    click(await waitFor(() => $('.jp-AgentPanel-newChat')));
    expect(service.model).not.toBe(model);
    expect(service.model.threadId).not.toBe('thread-1');
    expect($('.jp-AgentPanel-transcript').children).toHaveLength(0);
    // The old conversation is kept: saved, then released.
    expect(model.threadId).toBe('thread-1');
    expect(model.entries).toHaveLength(2);
  });
});

describe('WorkingIndicator', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('counts the elapsed time of the running turn and stops its timer', () => {
    const model = new ChatModel('t', trans);
    const transport = new FakeTransport();
    model.transport = transport;
    const indicator = new WorkingIndicator(model, trans);
    expect(indicator.isHidden).toBe(true);
    model.send('hi');
    expect(indicator.isHidden).toBe(false);
    expect(indicator.node.textContent).toBe('Working… 0:00');
    jest.advanceTimersByTime(65000);
    expect(indicator.node.textContent).toBe('Working… 1:05');
    transport.lastTurn.sink.frame(complete());
    expect(indicator.isHidden).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
    model.send('again');
    expect(jest.getTimerCount()).toBe(1);
    indicator.dispose();
    expect(jest.getTimerCount()).toBe(0);
  });
});
