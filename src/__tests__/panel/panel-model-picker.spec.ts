/**
 * The header's model picker and the empty conversation's hint about the
 * keyless demo agent (docs/protocol.md §16.3): shown only when the
 * conversation's endpoint lets it choose, its options, the tooltip, the
 * lock while a turn runs, and what a choice does.
 */
/* eslint-disable jupyter/no-untranslated-string -- test data: the options as the English bundle words them */
import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import { type IModelOffer, NO_MODEL_CHOICE } from '../../contracts/models';
import {
  parseSettings,
  type IEndpointSettings
} from '../../contracts/settings';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import { ChatPanel } from '../../panel/chat-panel';
import { CONNECT_MODEL_URL } from '../../panel/transcript/demo-agent-hint';
import { FakeModelsTransport, offerOf } from '../support/fake-transport';
import {
  afterFrame,
  complete,
  FakeTransport,
  libraryFor,
  makeContext,
  trans
} from '../support/panel-fakes';

const GPT = 'openai:gpt-4.1-mini';
const CLAUDE = 'anthropic:claude-sonnet-4-5';
const NO_KEY = 'ANTHROPIC_API_KEY is not set (in the server’s environment)';

const SETTINGS = {
  endpoints: [
    { name: 'Builtin', transport: 'http', url: 'agent-panel/' },
    { name: 'Remote', transport: 'agui', url: 'https://agui.example.org/' }
  ],
  defaultEndpoint: 'Builtin'
};

const settle = () => new Promise(resolve => setTimeout(resolve, 0));

const panels: ChatPanel[] = [];
const disposables: { dispose(): void }[] = [];

afterEach(() => {
  panels.splice(0).forEach(panel => panel.dispose());
  disposables.splice(0).forEach(item => item.dispose());
  document.body.replaceChildren();
  jest.restoreAllMocks();
});

/** A panel whose `Builtin` endpoint offers `offer`; `Remote` lists no models. */
async function panelWith(offer: IModelOffer | Error) {
  const model = new ChatModel('thread-1', trans);
  const service = new AgentPanelService(model, { trans });
  const library = libraryFor(service);
  disposables.push(library, service, model);
  const built: FakeTransport[] = [];
  const factory = (endpoint: IEndpointSettings) => {
    const transport =
      endpoint.name === 'Builtin'
        ? new FakeModelsTransport(offer)
        : new FakeTransport();
    built.push(transport);
    return transport;
  };
  service.setSettings(parseSettings(SETTINGS).settings);
  service.registerTransport('http', factory);
  service.registerTransport('agui', factory);
  const panel = new ChatPanel({
    service,
    library,
    rendermime: makeContext().rendermime,
    trans,
    commands: makeContext().commands
  });
  panels.push(panel);
  Widget.attach(panel, document.body);
  await settle();
  const picker = panel.node.querySelector<HTMLSelectElement>(
    '.jp-AgentPanel-modelPicker'
  )!;
  const box = picker.parentElement!;
  const hint = () =>
    panel.node.querySelector<HTMLElement>('.jp-AgentPanel-demoHint')!;
  const options = () =>
    [...picker.options].map(option => ({
      value: option.value,
      label: option.textContent,
      disabled: option.disabled,
      title: option.title
    }));
  const choose = (value: string) => {
    picker.value = value;
    picker.dispatchEvent(new Event('change'));
  };
  const transport = () => built[built.length - 1];
  return {
    service,
    library,
    model,
    panel,
    picker,
    box,
    hint,
    options,
    choose,
    transport
  };
}

const hidden = (element: Element) =>
  element.classList.contains('lm-mod-hidden');

describe('the model picker', () => {
  it('offers the demo agent first when there is no default, then every model, the unusable disabled with the reason', async () => {
    const { picker, box, options } = await panelWith(
      offerOf(
        null,
        [GPT, [CLAUDE, NO_KEY]],
        ['http://localhost:11434/v1 did not answer']
      )
    );
    expect(hidden(box)).toBe(false);
    expect(box.classList).toContain('jp-HTMLSelect');
    expect(picker.getAttribute('aria-label')).toBe('Agent model');
    expect(options()).toEqual([
      {
        value: '',
        label: 'Demo agent (no model)',
        disabled: false,
        title: 'The keyless demo agent answers.'
      },
      { value: GPT, label: GPT, disabled: false, title: '' },
      {
        value: CLAUDE,
        label: `${CLAUDE} (unavailable)`,
        disabled: true,
        title: NO_KEY
      }
    ]);
    expect(picker.value).toBe('');
    expect(picker.title).toBe(
      [
        'Model of this conversation: Demo agent (no model)',
        `${CLAUDE} cannot be used: ${NO_KEY}`,
        'http://localhost:11434/v1 did not answer',
        'Choose the model of this conversation’s next messages.'
      ].join('\n')
    );
  });

  it('offers the default first when there is one', async () => {
    const { options, picker } = await panelWith(offerOf(GPT, [GPT]));
    expect(options().map(option => option.label)).toEqual([
      `${GPT} (default)`,
      GPT
    ]);
    expect(picker.title).toContain(
      `Model of this conversation: ${GPT} (default)`
    );
  });

  it('says when the default cannot be used', async () => {
    const { options } = await panelWith(offerOf(CLAUDE, [[CLAUDE, NO_KEY]]));
    expect(options()[0]).toEqual({
      value: '',
      label: `${CLAUDE} (default, unavailable)`,
      disabled: false,
      title: NO_KEY
    });
  });

  it('sets the conversation’s model when one is chosen, for the next request', async () => {
    const { choose, model, picker, transport } = await panelWith(
      offerOf(null, [GPT])
    );
    choose(GPT);
    expect(model.chosenModel).toBe(GPT);
    expect(picker.value).toBe(GPT);
    expect(picker.title).toContain(`Model of this conversation: ${GPT}`);
    model.send('hi');
    expect(transport().lastTurn.request.model).toBe(GPT);
    transport().lastTurn.sink.frame(complete());
    choose('');
    expect(model.chosenModel).toBeNull();
  });

  it('is locked while a turn runs, from the next frame, and says why', async () => {
    const { choose, model, picker, transport } = await panelWith(
      offerOf(null, [GPT])
    );
    model.send('hi');
    expect(picker.title).toContain(
      'A turn is running: choose a model once it ends (or press Stop).'
    );
    expect(picker.disabled).toBe(false);
    await afterFrame();
    expect(picker.disabled).toBe(true);
    choose(GPT);
    expect(model.chosenModel).toBeNull();
    expect(picker.value).toBe('');
    transport().lastTurn.sink.frame(complete());
    await afterFrame();
    expect(picker.disabled).toBe(false);
  });

  it('writes nothing while the offer and the choice stay as they are, and the lock once a frame', async () => {
    const { box, picker, model, service, transport } = await panelWith(
      offerOf(null, [GPT, [CLAUDE, NO_KEY]])
    );
    const writes: MutationRecord[] = [];
    const observer = new MutationObserver(records => writes.push(...records));
    observer.observe(box, { attributes: true, childList: true, subtree: true });
    service.modelChoice.refresh(true);
    service.setSettings(parseSettings(SETTINGS).settings);
    await settle();
    expect(observer.takeRecords()).toEqual([]);
    expect(writes).toEqual([]);
    model.send('hi');
    transport().lastTurn.sink.frame(complete());
    model.send('again');
    await afterFrame();
    const locks = [...writes, ...observer.takeRecords()].filter(
      record => record.attributeName === 'disabled'
    );
    expect(locks).toHaveLength(1);
    expect(picker.disabled).toBe(true);
    observer.disconnect();
  });

  it('shows a chosen model the endpoint no longer offers', async () => {
    const { service, options, picker } = await panelWith(offerOf(null, [GPT]));
    service.model.chosenModel = 'openai:gone';
    expect(options()[2]).toEqual({
      value: 'openai:gone',
      label: 'openai:gone (not offered)',
      disabled: true,
      title: 'This endpoint no longer offers this model: choose another.'
    });
    expect(picker.value).toBe('openai:gone');
  });

  it('is hidden when the endpoint offers no choice, and follows the conversation’s endpoint', async () => {
    const none = await panelWith(NO_MODEL_CHOICE);
    expect(hidden(none.box)).toBe(true);

    const { service, box } = await panelWith(offerOf(null, [GPT]));
    service.selectEndpoint('Remote');
    await settle();
    expect(hidden(box)).toBe(true);
    service.selectEndpoint('Builtin');
    await settle();
    expect(hidden(box)).toBe(false);
  });

  it('shows the model of the conversation shown', async () => {
    const { library, picker, choose, service } = await panelWith(
      offerOf(null, [GPT])
    );
    await library.start();
    choose(GPT);
    const fresh = library.create();
    await settle();
    expect(picker.value).toBe('');
    expect(fresh.model.chosenModel).toBeNull();
    await library.open('thread-1');
    await settle();
    expect(service.model.chosenModel).toBe(GPT);
    expect(picker.value).toBe(GPT);
  });

  it('is hidden, with a warning in the console, when the models cannot be listed', async () => {
    const warn = jest
      .spyOn(console, 'warn')
      .mockImplementation(() => undefined);
    const { box } = await panelWith(new Error('HTTP 500 Error'));
    expect(hidden(box)).toBe(true);
    expect(warn).toHaveBeenCalledWith(
      'Agent Panel: could not list the models of endpoint "Builtin": HTTP 500 Error'
    );
  });

  it('stops following the choice once disposed', async () => {
    const { panel, service, picker } = await panelWith(offerOf(null, [GPT]));
    panel.dispose();
    service.model.chosenModel = GPT;
    expect(picker.value).toBe('');
  });
});

describe('the empty conversation’s hint', () => {
  const TEXT =
    'This is the keyless demo agent. To use your own model, set a key or a local server — see Connecting a model.';

  it('says the demo agent answers and links to connecting a model', async () => {
    const { hint } = await panelWith(offerOf(null, [GPT]));
    expect(hidden(hint())).toBe(false);
    expect(hint().textContent).toBe(TEXT);
    const link = hint().querySelector('a')!;
    expect(link.textContent).toBe('Connecting a model');
    expect(link.href).toBe(CONNECT_MODEL_URL);
    expect(link.target).toBe('_blank');
    expect(link.rel).toBe('noopener');
  });

  it('goes once a model is chosen', async () => {
    const { hint, choose } = await panelWith(offerOf(null, [GPT]));
    choose(GPT);
    expect(hidden(hint())).toBe(true);
    choose('');
    expect(hidden(hint())).toBe(false);
  });

  it('goes once the first message is sent', async () => {
    const { hint, model } = await panelWith(offerOf(null, [GPT]));
    model.send('hi');
    expect(hidden(hint())).toBe(true);
  });

  it('is not there when the endpoint has a default model or offers no choice', async () => {
    const keyed = await panelWith(offerOf(GPT, [GPT]));
    expect(hidden(keyed.hint())).toBe(true);
    const graph = await panelWith(NO_MODEL_CHOICE);
    expect(hidden(graph.hint())).toBe(true);
    const { hint, service } = await panelWith(offerOf(null, [GPT]));
    service.selectEndpoint('Remote');
    await settle();
    expect(hidden(hint())).toBe(true);
  });
});
