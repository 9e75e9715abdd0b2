/**
 * Endpoints in the panel: each conversation belongs to one, the header's
 * picker moves it, settings apply live, a reload reconnects to it, and
 * "Test connection" reports inline.
 */
import '../support/clipboard-shim';
import { Widget } from '@lumino/widgets';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ChatModel } from '../../model/conversation/chat-model';
import type { IConnectionReport } from '../../model/connection/connection-check';
import { ConversationLibrary } from '../../model/library/library';
import { readSnapshot, snapshotOf } from '../../model/persistence/persistence';
import { CommandIDs } from '../../commands';
import { ChatPanel } from '../../panel/chat-panel';
import {
  BUILT_IN_ENDPOINTS,
  parseSettings,
  type IEndpointSettings
} from '../../contracts/settings';
import type { IConnectionProbe } from '../../transport/http/probe';
import { FakeConversationStore, MemoryState } from '../support/store-fakes';
import {
  afterFrame,
  complete,
  FakeTransport,
  frame,
  libraryFor,
  makeContext,
  trans,
  waitFor
} from '../support/panel-fakes';

const SETTINGS = {
  endpoints: [
    { name: 'Alpha', transport: 'http', url: 'agent-panel/agents/alpha/' },
    { name: 'Beta', transport: 'http', url: 'agent-panel/agents/beta/' },
    { name: 'Gamma', transport: 'agui', url: 'https://gamma.example.org/' }
  ],
  defaultEndpoint: 'Alpha'
};

/** A probe that answers every GET with the chunk-wire health of `name`. */
function healthyProbe(): IConnectionProbe {
  return {
    pageUrl: 'http://lab.example.org/lab',
    httpTarget: endpoint => ({
      url: `http://lab.example.org/${endpoint.url}health`,
      isJupyterRoute: true,
      crossOrigin: false
    }),
    observe: async endpoint => ({
      kind: 'response',
      status: 200,
      statusText: 'OK',
      contentType: 'application/json',
      body: JSON.stringify({
        ready: true,
        agent_name: `${endpoint.name} agent`
      })
    }),
    fromServer: async () => ({ result: 'unavailable', detail: 'not asked' })
  };
}

/** Disposed after each test. */
/** The built-in endpoints, offered after the settings' own. */
const BUILT_IN_NAMES = BUILT_IN_ENDPOINTS.map(endpoint => endpoint.name);

const services: AgentPanelService[] = [];
const models: ChatModel[] = [];

function serviceWith(settings: unknown = SETTINGS, threadId = 'thread-1') {
  const model = new ChatModel(threadId, trans);
  models.push(model);
  const service = new AgentPanelService(model, {
    loadProbe: async () => healthyProbe(),
    trans
  });
  services.push(service);
  const built: { endpoint: IEndpointSettings; transport: FakeTransport }[] = [];
  const factory = (endpoint: IEndpointSettings) => {
    const transport = new FakeTransport();
    built.push({ endpoint, transport });
    return transport;
  };
  service.setSettings(parseSettings(settings).settings);
  service.registerTransport('http', factory);
  service.registerTransport('agui', factory);
  const current = () => built[built.length - 1];
  return { service, model, built, current };
}

const libraries: ConversationLibrary[] = [];

afterEach(() => {
  libraries.splice(0).forEach(library => library.dispose());
  services.splice(0).forEach(service => service.dispose());
  models.splice(0).forEach(model => model.dispose());
  document.body.replaceChildren();
});

describe('AgentPanelService endpoints', () => {
  it('starts a conversation on the default endpoint', () => {
    const { service, model, current } = serviceWith();
    expect(service.endpoint.name).toBe('Alpha');
    expect(model.endpointName).toBeNull();
    expect(current().endpoint.name).toBe('Alpha');
    expect(model.transport).toBe(current().transport);
  });

  it('moves the conversation to the endpoint picked for it', () => {
    const { service, model, built, current } = serviceWith();
    const alpha = current().transport;
    service.selectEndpoint('Gamma');
    expect(model.endpointName).toBe('Gamma');
    expect(current().endpoint.url).toBe('https://gamma.example.org/');
    expect(model.transport).toBe(current().transport);
    expect(alpha.isDisposed).toBe(true);
    model.send('hi');
    expect(current().transport.lastTurn.request).toMatchObject({
      kind: 'chat',
      threadId: 'thread-1',
      message: 'hi'
    });
    expect(built.map(b => b.endpoint.name)).toEqual(['Alpha', 'Gamma']);
  });

  it('refuses an unknown endpoint, and switching while a turn runs or a review waits', () => {
    const { service, model, current } = serviceWith();
    expect(() => service.selectEndpoint('Delta')).toThrow(
      'No endpoint is named "Delta".'
    );
    model.send('hi');
    expect(service.switchBlocked).toBe(
      'A turn is running: switch endpoints once it ends (or press Stop).'
    );
    expect(() => service.selectEndpoint('Beta')).toThrow('A turn is running');
    current().transport.lastTurn.sink.frame(
      frame({
        status: 'interrupt',
        interrupt: {
          action_requests: [{ action: 'ask_user', args: {} }],
          review_configs: [],
          allowed_decisions: ['respond']
        }
      })
    );
    current().transport.lastTurn.sink.frame(complete('interrupted'));
    expect(model.status).toBe('awaiting-decision');
    expect(() => service.selectEndpoint('Beta')).toThrow(
      'answer it before switching endpoints'
    );
    expect(service.endpoint.name).toBe('Alpha');
  });

  it('binds a conversation to the endpoint of its first message', () => {
    const { service, model, built, current } = serviceWith();
    model.send('hi');
    expect(model.endpointName).toBe('Alpha');
    built[built.length - 1].transport.lastTurn.sink.frame(complete());
    // A new default applies to new conversations, not to this one.
    service.setSettings(
      parseSettings({ ...SETTINGS, defaultEndpoint: 'Beta' }).settings
    );
    expect(service.endpoint.name).toBe('Alpha');
    expect(built).toHaveLength(1);
    const library = libraryFor(service);
    libraries.push(library);
    const fresh = library.create();
    expect(fresh.model.endpointName).toBeNull();
    expect(model.endpointName).toBe('Alpha');
    expect(service.endpoint.name).toBe('Beta');
    expect(fresh.model.transport).toBe(current().transport);
    expect(built.map(b => b.endpoint.name)).toEqual(['Alpha', 'Beta']);
  });

  it('lets an empty conversation follow a new default at once', () => {
    const { service, current } = serviceWith();
    service.setSettings(
      parseSettings({ ...SETTINGS, defaultEndpoint: 'Gamma' }).settings
    );
    expect(service.endpoint.name).toBe('Gamma');
    expect(current().endpoint.name).toBe('Gamma');
  });

  it('rebuilds the transport when its endpoint’s settings change, only then', () => {
    const { service, built, current } = serviceWith();
    const changes: number[] = [];
    service.connectionChanged.connect(() => changes.push(built.length));
    service.setSettings(
      parseSettings({ ...SETTINGS, sendKey: 'Ctrl+Enter' }).settings
    );
    service.setSettings(
      parseSettings({
        ...SETTINGS,
        endpoints: [...SETTINGS.endpoints, { name: 'Delta', url: 'd/' }]
      }).settings
    );
    expect(built).toHaveLength(1);
    const first = current().transport;
    service.setSettings(
      parseSettings({
        ...SETTINGS,
        endpoints: [
          { ...SETTINGS.endpoints[0], url: 'agent-panel/agents/echo/' },
          ...SETTINGS.endpoints.slice(1)
        ]
      }).settings
    );
    expect(built).toHaveLength(2);
    expect(current().endpoint.url).toBe('agent-panel/agents/echo/');
    expect(first.isDisposed).toBe(true);
    expect(changes).toEqual([2]);
  });

  it('keeps a running turn on its transport while the settings change', () => {
    const { service, model, current } = serviceWith();
    model.send('hi');
    const running = current().transport;
    service.setSettings(
      parseSettings({
        ...SETTINGS,
        endpoints: [{ ...SETTINGS.endpoints[0], url: 'moved/' }]
      }).settings
    );
    expect(running.isDisposed).toBe(false);
    running.lastTurn.sink.frame(complete());
    expect(model.status).toBe('idle');
    expect(running.isDisposed).toBe(true);
  });

  it('uses the default when the conversation’s endpoint left the settings', () => {
    const { service, model } = serviceWith();
    service.selectEndpoint('Beta');
    service.setSettings(
      parseSettings({
        ...SETTINGS,
        endpoints: SETTINGS.endpoints.filter(e => e.name !== 'Beta')
      }).settings
    );
    expect(service.endpoint.name).toBe('Alpha');
    expect(service.missingEndpoint).toBe('Beta');
    // Its next message goes to (and now binds it to) the default.
    model.send('hi');
    expect(model.endpointName).toBe('Alpha');
    expect(service.missingEndpoint).toBeNull();
  });
});

describe('a conversation’s endpoint across a reload', () => {
  /** A library on `store`, saving at once. */
  function libraryOf(
    service: AgentPanelService,
    store: FakeConversationStore,
    state: MemoryState
  ) {
    const library = new ConversationLibrary({
      service,
      store,
      threads: null,
      state,
      trans,
      saver: { saveDelayMs: 0, unloadStore: null, page: new EventTarget() }
    });
    libraries.push(library);
    return library;
  }

  it('is saved with the conversation and reconnected on restore', async () => {
    const store = new FakeConversationStore();
    const state = new MemoryState();
    const before = serviceWith();
    await libraryOf(before.service, store, state).start();
    before.service.selectEndpoint('Gamma');
    before.model.send('hi');
    before.current().transport.lastTurn.sink.frame(complete());
    await waitFor(() => store.entriesOf('thread-1').length === 2 || null);

    // A new page: the service starts on the default, then the conversation opens.
    const after = serviceWith(SETTINGS, 'fresh');
    expect(after.current().endpoint.name).toBe('Alpha');
    expect(await libraryOf(after.service, store, state).start()).toEqual([]);
    const model = after.service.model;
    expect(model.threadId).toBe('thread-1');
    expect(model.endpointName).toBe('Gamma');
    expect(after.current().endpoint.name).toBe('Gamma');
    expect(model.transport).toBe(after.current().transport);
  });

  it('is switched to before the conversation has a message, and saved', async () => {
    const store = new FakeConversationStore();
    const { service } = serviceWith();
    await libraryOf(service, store, new MemoryState()).start();
    service.selectEndpoint('Beta');
    await waitFor(() => store.has('thread-1') || null);
    expect(await store.get('thread-1')).toMatchObject({
      endpointName: 'Beta',
      entries: []
    });
  });

  it('reads older snapshots (no endpoint) and reports a bad one', () => {
    const model = new ChatModel('t', trans);
    models.push(model);
    const stored = JSON.parse(JSON.stringify(snapshotOf(model)));
    expect(stored.endpointName).toBeNull();
    delete stored.endpointName;
    const older = readSnapshot(stored);
    expect(older.problems).toEqual([]);
    expect(older.snapshot.endpointName).toBeNull();
    const bad = readSnapshot({ ...stored, endpointName: 42 });
    expect(bad.problems).toEqual([
      'the saved endpoint name 42 is not a name; the default endpoint is used'
    ]);
    expect(bad.snapshot.endpointName).toBeNull();
    expect(bad.snapshot.threadId).toBe('t');
  });
});

describe('the panel header', () => {
  function panelWith() {
    const setup = serviceWith();
    const context = makeContext();
    const reports: IConnectionReport[] = [];
    context.commands.addCommand(CommandIDs.testConnection, {
      execute: async () => {
        reports.push(await setup.service.testConnection());
      },
      describedBy: { args: { type: 'object', properties: {} } }
    });
    const panel = new ChatPanel({
      service: setup.service,
      library: libraryFor(setup.service),
      rendermime: context.rendermime,
      trans,
      commands: context.commands
    });
    Widget.attach(panel, document.body);
    const $ = <T extends Element = HTMLElement>(selector: string) =>
      panel.node.querySelector<T>(selector)!;
    return { ...setup, panel, $, reports };
  }

  it('lists the endpoints and shows the conversation’s', () => {
    const { $, service, panel } = panelWith();
    const picker = $<HTMLSelectElement>('.jp-AgentPanel-picker');
    expect([...picker.options].map(o => o.value)).toEqual([
      'Alpha',
      'Beta',
      'Gamma',
      ...BUILT_IN_NAMES
    ]);
    expect(picker.value).toBe('Alpha');
    expect(picker.getAttribute('aria-label')).toBe('Agent endpoint');
    expect($('.jp-AgentPanel-endpoint').textContent).toBe('fake://agent');
    service.setSettings(
      parseSettings({
        ...SETTINGS,
        endpoints: [...SETTINGS.endpoints, { name: 'Delta', url: 'd/' }]
      }).settings
    );
    expect([...picker.options].map(o => o.value)).toEqual([
      'Alpha',
      'Beta',
      'Gamma',
      'Delta',
      ...BUILT_IN_NAMES
    ]);
    panel.dispose();
  });

  it('leaves the endpoint label alone when its text stays the same', () => {
    const { $, service, panel } = panelWith();
    const label = $('.jp-AgentPanel-endpoint');
    const writes: MutationRecord[] = [];
    const observer = new MutationObserver(records => writes.push(...records));
    observer.observe(label, { childList: true, subtree: true });
    service.setSettings(parseSettings(SETTINGS).settings);
    service.setSettings(parseSettings(SETTINGS).settings);
    expect(observer.takeRecords()).toEqual([]);
    expect(writes).toEqual([]);
    expect(label.textContent).toBe('fake://agent');
    observer.disconnect();
    panel.dispose();
  });

  it('moves the conversation when another endpoint is chosen', () => {
    const { $, model, current, panel } = panelWith();
    const picker = $<HTMLSelectElement>('.jp-AgentPanel-picker');
    picker.value = 'Beta';
    picker.dispatchEvent(new Event('change'));
    expect(model.endpointName).toBe('Beta');
    expect(current().endpoint.name).toBe('Beta');
    expect(picker.title).toContain(
      'Endpoint of this conversation: Beta (http)'
    );
    panel.dispose();
  });

  it('is locked while a turn runs, from the next frame, and says why', async () => {
    const { $, model, current, panel } = panelWith();
    const picker = $<HTMLSelectElement>('.jp-AgentPanel-picker');
    model.send('hi');
    expect(picker.title).toContain('A turn is running');
    expect(picker.disabled).toBe(false);
    await afterFrame();
    expect(picker.disabled).toBe(true);
    current().transport.lastTurn.sink.frame(complete());
    expect(picker.disabled).toBe(true);
    await afterFrame();
    expect(picker.disabled).toBe(false);
    panel.dispose();
  });

  it('writes the lock once a frame, and only when it changes', async () => {
    const { $, model, current, panel } = panelWith();
    const picker = $<HTMLSelectElement>('.jp-AgentPanel-picker');
    const writes: MutationRecord[] = [];
    const observer = new MutationObserver(records => writes.push(...records));
    observer.observe(picker, {
      attributes: true,
      attributeFilter: ['disabled']
    });
    model.send('hi');
    current().transport.lastTurn.sink.frame(complete());
    model.send('again');
    await afterFrame();
    await Promise.resolve();
    expect(writes).toHaveLength(1);
    expect(picker.disabled).toBe(true);
    observer.disconnect();
    panel.dispose();
  });

  it('puts back the shown endpoint when a switch is refused', () => {
    const { $, model, service, panel } = panelWith();
    const picker = $<HTMLSelectElement>('.jp-AgentPanel-picker');
    model.send('hi');
    picker.value = 'Beta';
    picker.dispatchEvent(new Event('change'));
    expect(picker.value).toBe('Alpha');
    expect(service.endpoint.name).toBe('Alpha');
    panel.dispose();
  });

  it('tests the connection from its button and shows the report inline', async () => {
    const { $, panel, reports, service } = panelWith();
    const report = $('.jp-AgentPanel-connectionReport');
    expect(report.classList.contains('lm-mod-hidden')).toBe(true);
    const button = await waitFor(
      () =>
        $('.jp-AgentPanel-testConnection button') ??
        $('.jp-AgentPanel-testConnection')
    );
    (button as HTMLElement).click();
    await waitFor(() => (reports.length > 0 ? reports : null));
    expect(reports[0]).toMatchObject({
      endpoint: 'Alpha',
      verdict: 'ok',
      summary: 'Connected: Alpha agent'
    });
    expect(report.classList.contains('lm-mod-hidden')).toBe(false);
    expect(report.dataset.verdict).toBe('ok');
    expect($('.jp-AgentPanel-connectionSummary').textContent).toBe(
      'Alpha: Connected: Alpha agent'
    );
    // Another endpoint: the report was about the previous one.
    service.selectEndpoint('Beta');
    expect(report.classList.contains('lm-mod-hidden')).toBe(true);
    panel.dispose();
  });
});
