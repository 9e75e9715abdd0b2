/**
 * The prompts an endpoint suggests (its health answer's `prompts`,
 * docs/protocol.md §6.1), as buttons above an empty conversation: shown
 * while the endpoint is healthy and the conversation has no message and no
 * model of its own; a click sends the prompt with the chips' context and
 * leaves what the message box holds; none for an endpoint that suggests none.
 */
import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import type { IHealthReport } from '../../contracts/transport';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import { ChatPanel } from '../../panel/chat-panel';
import { SuggestedPrompts } from '../../panel/transcript/suggested-prompts';
import {
  click,
  complete,
  FakeTransport,
  libraryFor,
  makeContext,
  trans,
  typeInto,
  waitFor
} from '../support/panel-fakes';

const PROMPTS = ['Write a long answer', 'What did I attach?', 'Quiz me'];
const ERROR_OUTPUT = {
  attachment: {
    kind: 'error' as const,
    source: 'cell 3 of a.ipynb',
    text: 'NameError: name "prnt" is not defined'
  },
  kept: 37,
  total: 37
};

const panels: ChatPanel[] = [];
const disposables: { dispose(): void }[] = [];

afterEach(() => {
  panels.splice(0).forEach(panel => panel.dispose());
  disposables.splice(0).forEach(item => item.dispose());
  document.body.replaceChildren();
});

const settle = async () => {
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
  }
};

/** A panel whose endpoint's health answers `report`, its health checked once. */
async function panelWith(report: Partial<IHealthReport>) {
  const transport = new FakeTransport();
  transport.health = async () => ({
    state: 'healthy',
    message: 'ready',
    agentName: 'Tool Demo Agent',
    ...report
  });
  const model = new ChatModel('thread-1', trans);
  const service = new AgentPanelService(model, { trans });
  service.registerTransport('http', () => transport);
  const library = libraryFor(service);
  disposables.push(library, service);
  const context = makeContext();
  const panel = new ChatPanel({
    service,
    library,
    rendermime: context.rendermime,
    trans,
    commands: context.commands
  });
  panels.push(panel);
  Widget.attach(panel, document.body);
  service.health.start();
  await settle();
  const view = () =>
    panel.node.querySelector<HTMLElement>('.jp-AgentPanel-prompts')!;
  const buttons = () =>
    [...view().querySelectorAll<HTMLButtonElement>('.jp-AgentPanel-prompt')]
      .filter(() => !view().classList.contains('lm-mod-hidden'))
      .map(button => button.textContent);
  const input = panel.node.querySelector<HTMLTextAreaElement>(
    '.jp-AgentPanel-input'
  )!;
  return { panel, service, library, transport, view, buttons, input };
}

describe('the suggested prompts', () => {
  it('are buttons above the empty transcript, in the order suggested', async () => {
    const { buttons, view, panel } = await panelWith({ prompts: PROMPTS });
    expect(buttons()).toEqual(PROMPTS);
    expect(view().getAttribute('role')).toBe('group');
    expect(view().getAttribute('aria-label')).toBe('Suggested messages');
    // Above the transcript, with the conversation's notices.
    const area = panel.node.querySelector('.jp-AgentPanel-transcriptArea')!;
    expect(
      view().compareDocumentPosition(area) & Node.DOCUMENT_POSITION_FOLLOWING
    ).toBeTruthy();
  });

  it('send the one clicked, with the chips’ context, and leave the typed draft', async () => {
    const { view, buttons, service, transport, input } = await panelWith({
      prompts: PROMPTS
    });
    service.composerContext.attach(ERROR_OUTPUT);
    typeInto(input, 'my own words');
    click(view().querySelector('[data-prompt="What did I attach?"]'));
    expect(transport.lastTurn.request).toMatchObject({
      kind: 'chat',
      message: 'What did I attach?',
      context: { attachments: [ERROR_OUTPUT.attachment] }
    });
    expect(input.value).toBe('my own words');
    // Gone once the conversation has a message.
    expect(buttons()).toEqual([]);
    transport.lastTurn.sink.frame(complete());
    expect(buttons()).toEqual([]);
  });

  it('come back in a new conversation, and go while a model of its own is chosen', async () => {
    const { buttons, service, library, transport, view } = await panelWith({
      prompts: PROMPTS
    });
    click(view().querySelector('[data-prompt="Quiz me"]'));
    transport.lastTurn.sink.frame(complete());
    library.create();
    await settle();
    expect(buttons()).toEqual(PROMPTS);
    service.model.chosenModel = 'openai:gpt-4.1-mini';
    expect(buttons()).toEqual([]);
    service.model.chosenModel = null;
    expect(buttons()).toEqual(PROMPTS);
  });

  it('are none when the endpoint suggests none, or is not healthy', async () => {
    const silent = await panelWith({});
    expect(silent.buttons()).toEqual([]);
    expect(silent.view().classList).toContain('lm-mod-hidden');

    const unready = await panelWith({
      state: 'needs_setup',
      message: 'loading',
      prompts: PROMPTS
    });
    expect(unready.buttons()).toEqual([]);
  });

  it('follow the health answer when it changes', async () => {
    const { buttons, service, transport } = await panelWith({
      prompts: PROMPTS
    });
    transport.health = async () => ({
      state: 'healthy',
      message: 'ready',
      agentName: null,
      prompts: ['Make a plan']
    });
    service.health.refresh();
    await waitFor(() => buttons().length === 1);
    expect(buttons()).toEqual(['Make a plan']);
    transport.health = async () => {
      throw new Error('HTTP 503 from fake');
    };
    service.health.refresh();
    await waitFor(() => buttons().length === 0);
  });
});

describe('SuggestedPrompts', () => {
  it('stops following the conversation and the health once disposed', async () => {
    const { service, transport } = await panelWith({ prompts: PROMPTS });
    const view = new SuggestedPrompts(service.model, service.health, trans);
    expect(view.prompts).toEqual(PROMPTS);
    expect(view.isHidden).toBe(false);
    view.dispose();
    service.model.chosenModel = 'openai:gpt-4.1-mini';
    transport.health = async () => ({
      state: 'healthy',
      message: 'ready',
      agentName: null,
      prompts: ['Make a plan']
    });
    service.health.refresh();
    await settle();
    expect(service.health.status.prompts).toEqual(['Make a plan']);
    // Neither hidden for the chosen model nor rebuilt for the new prompts.
    expect(view.node.classList).not.toContain('lm-mod-hidden');
    expect(view.prompts).toEqual(PROMPTS);
    view.dispose();
  });
});
