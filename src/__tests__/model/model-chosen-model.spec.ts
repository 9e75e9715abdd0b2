/**
 * A conversation's model (docs/protocol.md §16.3): sent with each of its
 * requests, saved with it in the store and restored on reload; what its
 * endpoint offers, asked once per endpoint for 30 s unless asked again; and
 * dropped when the conversation moves to an endpoint that does not offer it.
 */
import { type IModelOffer, NO_MODEL_CHOICE } from '../../contracts/models';
import {
  parseSettings,
  type IEndpointSettings
} from '../../contracts/settings';
import { AgentPanelService } from '../../model/agent-panel-service';
import { ModelOffers } from '../../model/connection/model-offers';
import { ChatModel } from '../../model/conversation/chat-model';
import { ConversationLibrary } from '../../model/library/library';
import { readSnapshot, snapshotOf } from '../../model/persistence/persistence';
import type { IConnectionProbe } from '../../transport/http/probe';
import {
  complete,
  FakeModelsTransport,
  FakeTransport,
  frame,
  offerOf,
  trans
} from '../support/fake-transport';
import { libraryFor } from '../support/panel-fakes';
import { FakeConversationStore, MemoryState } from '../support/store-fakes';

const GPT = 'openai:gpt-4.1-mini';
const LLAMA = 'ollama:llama3.2';

const SETTINGS = {
  endpoints: [
    { name: 'Builtin', transport: 'http', url: 'agent-panel/' },
    { name: 'Other', transport: 'http', url: 'agent-panel/agents/other/' },
    { name: 'Remote', transport: 'agui', url: 'https://agui.example.org/' }
  ],
  defaultEndpoint: 'Builtin'
};

const REVIEW = frame({
  status: 'interrupt',
  interrupt: {
    action_requests: [{ name: 'write_file', args: { path: 'a.md' } }],
    review_configs: [
      { action_name: 'write_file', allowed_decisions: ['approve'] }
    ]
  }
});

/** Let the answers on their way arrive. */
const settle = () => new Promise(resolve => setTimeout(resolve, 0));

const disposables: { dispose(): void }[] = [];

/** `item`, disposed after the test. */
function owned<T extends { dispose(): void }>(item: T): T {
  disposables.push(item);
  return item;
}

afterEach(() => {
  disposables.splice(0).forEach(item => item.dispose());
  jest.restoreAllMocks();
});

/**
 * A service whose endpoints offer `offers[name]` (an endpoint not named
 * there lists no models: the AG-UI one, a graph of the user's).
 */
function serviceWith(
  offers: Record<string, IModelOffer | Error> = {
    Builtin: offerOf(null, [GPT])
  },
  threadId = 'thread-1'
) {
  const model = new ChatModel(threadId, trans);
  const service = new AgentPanelService(model, {
    loadProbe: async () => probe,
    trans
  });
  disposables.push(service, model);
  const built: { endpoint: IEndpointSettings; transport: FakeTransport }[] = [];
  const factory = (endpoint: IEndpointSettings) => {
    const offer = offers[endpoint.name];
    const transport =
      offer === undefined
        ? new FakeTransport()
        : new FakeModelsTransport(offer);
    built.push({ endpoint, transport });
    return transport;
  };
  service.setSettings(parseSettings(SETTINGS).settings);
  service.registerTransport('http', factory);
  service.registerTransport('agui', factory);
  const asked = (name: string) =>
    built
      .filter(b => b.endpoint.name === name)
      .reduce(
        (sum, b) => sum + ((b.transport as FakeModelsTransport).asked ?? 0),
        0
      );
  const transport = () => built[built.length - 1].transport;
  return { service, model, built, asked, transport };
}

/** "Test connection" as the chunk-wire endpoint answers it. */
const probe: IConnectionProbe = {
  pageUrl: 'http://lab.example.org/lab',
  httpTarget: endpoint => ({
    url: `http://lab.example.org/${endpoint.url}health`,
    isJupyterRoute: true,
    crossOrigin: false
  }),
  observe: async () => ({
    kind: 'response',
    status: 200,
    statusText: 'OK',
    contentType: 'application/json',
    body: '{"ready": true}'
  }),
  fromServer: async () => ({ result: 'unavailable', detail: 'not asked' })
};

describe('the conversation’s model in its requests', () => {
  it('goes with each chat and resume from the next request on, and is absent while none is chosen', () => {
    const transport = new FakeTransport();
    const model = owned(new ChatModel('t', trans));
    model.transport = transport;
    const changes: (string | null)[] = [];
    model.chosenModelChanged.connect((_, chosen) => changes.push(chosen));
    model.send('first');
    transport.lastTurn.sink.frame(complete());
    model.chosenModel = GPT;
    model.chosenModel = GPT;
    model.send('second');
    transport.lastTurn.sink.frame(REVIEW);
    transport.lastTurn.sink.frame(complete('interrupted'));
    model.answer([{ type: 'approve' }]);

    expect(transport.turns.map(turn => turn.request.model)).toEqual([
      undefined,
      GPT,
      GPT
    ]);
    expect(transport.turns[2].request.kind).toBe('resume');
    expect(changes).toEqual([GPT]);
    // What the entry keeps is what the panel asked, not the transport's extras.
    expect(model.entries[1]).toMatchObject({ request: { message: 'first' } });
    expect(model.entries[3]).not.toHaveProperty('request.model');
  });
});

describe('the conversation’s model across a reload', () => {
  function libraryOf(service: AgentPanelService, store: FakeConversationStore) {
    const library = new ConversationLibrary({
      service,
      store,
      threads: null,
      state: new MemoryState(),
      trans,
      saver: { saveDelayMs: 0, unloadStore: null, page: new EventTarget() }
    });
    disposables.unshift(library);
    return library;
  }

  it('is saved as "model" when it changes, and restored with the conversation', async () => {
    const store = new FakeConversationStore();
    const before = serviceWith();
    await libraryOf(before.service, store).start();
    before.model.chosenModel = GPT;
    before.model.send('hi');
    before.transport().lastTurn.sink.frame(complete());
    await settle();
    await settle();

    const models = store.puts.map(put => put.update.model);
    expect(models[0]).toBe(GPT);
    // Sent when it changed only (the field is optional in a save).
    expect(models.slice(1).every(model => model === undefined)).toBe(true);
    expect((await store.get('thread-1'))?.model).toBe(GPT);

    const after = serviceWith(undefined, 'fresh');
    const library = libraryOf(after.service, store);
    expect(await library.open('thread-1')).toEqual([]);
    expect(after.service.model.chosenModel).toBe(GPT);
    after.service.model.send('again');
    expect(after.transport().lastTurn.request.model).toBe(GPT);

    after.service.model.chosenModel = null;
    await settle();
    expect(store.puts[store.puts.length - 1].update.model).toBeNull();
    expect((await store.get('thread-1'))?.model).toBeNull();
  });

  it('is none for a conversation saved before models', async () => {
    const store = new FakeConversationStore();
    await store.put('old', {
      threadId: 'old',
      endpointName: 'Builtin',
      status: 'idle',
      entries: []
    });
    const { service, transport } = serviceWith();
    await libraryOf(service, store).open('old');
    expect(service.model.chosenModel).toBeNull();
    service.model.send('hi');
    expect(transport().lastTurn.request).not.toHaveProperty('model');
  });

  it('is read from the unload copy, and a bad one is reported and dropped', () => {
    const model = owned(new ChatModel('t', trans));
    model.chosenModel = LLAMA;
    const stored = JSON.parse(JSON.stringify(snapshotOf(model)));
    expect(readSnapshot(stored).snapshot.model).toBe(LLAMA);

    const older = { ...stored };
    delete older.model;
    expect(readSnapshot(older)).toMatchObject({
      snapshot: { model: null },
      problems: []
    });
    for (const bad of [42, '', 'm'.repeat(257)]) {
      const read = readSnapshot({ ...stored, model: bad });
      expect(read.snapshot.model).toBeNull();
      expect(read.problems).toEqual([
        `the saved model ${JSON.stringify(bad)} is not a model id; the endpoint's default model is used`
      ]);
    }
  });
});

describe('what the endpoint offers', () => {
  it('is asked once per endpoint for 30 s, unless asked afresh or its settings change', async () => {
    let now = 1000;
    const offers = new ModelOffers(30000, () => now);
    const transport = new FakeModelsTransport(offerOf(null, [GPT]));
    const [builtin] = parseSettings(SETTINGS).settings.endpoints;

    const first = await offers.offerOf(builtin, transport);
    now += 29999;
    expect(await offers.offerOf(builtin, transport)).toBe(first);
    expect(transport.asked).toBe(1);
    await offers.offerOf(builtin, transport, true);
    expect(transport.asked).toBe(2);
    now += 30000;
    await offers.offerOf(builtin, transport);
    expect(transport.asked).toBe(3);
    await offers.offerOf({ ...builtin, url: 'elsewhere/' }, transport);
    expect(transport.asked).toBe(4);
    expect(await offers.offerOf(builtin, new FakeTransport())).toBe(
      NO_MODEL_CHOICE
    );
  });

  it('is shown when the endpoint lets the conversation choose, and shared by its conversations', async () => {
    const { service, asked } = serviceWith({
      Builtin: offerOf(GPT, [GPT, [LLAMA, 'no server']])
    });
    const changes: unknown[] = [];
    service.modelChoice.changed.connect(() =>
      changes.push(service.modelChoice.offer)
    );
    await settle();
    expect(service.modelChoice.offer?.defaultModel).toBe(GPT);
    const library = libraryFor(service);
    disposables.unshift(library);
    library.create();
    await settle();
    expect(asked('Builtin')).toBe(1);
    expect(service.modelChoice.offer?.models.map(m => m.usable)).toEqual([
      true,
      false
    ]);
    expect(changes.length).toBeGreaterThan(0);
  });

  it('is none when the endpoint offers none, lists none, or cannot be asked (logged once)', async () => {
    const warn = jest
      .spyOn(console, 'warn')
      .mockImplementation(() => undefined);
    const { service } = serviceWith({
      Builtin: NO_MODEL_CHOICE,
      Other: new Error('HTTP 500 from agent-panel/agents/other/models')
    });
    await settle();
    expect(service.modelChoice.offer).toBeNull();
    service.selectEndpoint('Remote');
    await settle();
    expect(service.modelChoice.offer).toBeNull();
    service.selectEndpoint('Other');
    await settle();
    service.modelChoice.refresh();
    await settle();
    expect(service.modelChoice.offer).toBeNull();
    expect(warn.mock.calls).toEqual([
      [
        'Agent Panel: could not list the models of endpoint "Other": HTTP 500 from agent-panel/agents/other/models'
      ]
    ]);
  });

  it('is asked afresh after "Test connection"', async () => {
    const { service, asked } = serviceWith();
    await settle();
    await service.testConnection();
    await settle();
    expect(asked('Builtin')).toBe(2);
  });

  it('is asked afresh when the health answer names another default', async () => {
    const { service, asked, transport } = serviceWith();
    await settle();
    const fake = transport() as FakeModelsTransport;
    fake.health = async () => ({
      state: 'healthy',
      message: 'ready',
      agentName: null,
      modelChoice: true,
      defaultModel: null
    });
    service.health.start();
    await settle();
    expect(asked('Builtin')).toBe(1);
    fake.offer = offerOf(GPT, [GPT]);
    fake.health = async () => ({
      state: 'healthy',
      message: 'ready',
      agentName: null,
      modelChoice: true,
      defaultModel: GPT
    });
    service.health.refresh();
    await settle();
    expect(asked('Builtin')).toBe(2);
    expect(service.modelChoice.offer?.defaultModel).toBe(GPT);
  });
});

describe('choosing a model', () => {
  it('sets the conversation’s model, unless a turn runs or it is not on offer', async () => {
    const { service, model, transport } = serviceWith();
    await settle();
    service.modelChoice.choose(GPT);
    expect(model.chosenModel).toBe(GPT);
    expect(() => service.modelChoice.choose(LLAMA)).toThrow(
      'This endpoint does not offer the model "ollama:llama3.2".'
    );
    model.send('hi');
    expect(() => service.modelChoice.choose(null)).toThrow(
      'A turn is running: choose a model once it ends (or press Stop).'
    );
    transport().lastTurn.sink.frame(complete());
    service.modelChoice.choose(null);
    expect(model.chosenModel).toBeNull();
  });

  it('is dropped when the conversation moves to an endpoint that does not offer it', async () => {
    const warn = jest
      .spyOn(console, 'warn')
      .mockImplementation(() => undefined);
    const { service, model } = serviceWith({
      Builtin: offerOf(null, [GPT, LLAMA]),
      Other: offerOf(null, [GPT])
    });
    await settle();
    service.modelChoice.choose(GPT);
    service.selectEndpoint('Other');
    await settle();
    expect(model.chosenModel).toBe(GPT);
    service.selectEndpoint('Builtin');
    await settle();
    service.modelChoice.choose(LLAMA);
    service.selectEndpoint('Other');
    await settle();
    expect(model.chosenModel).toBeNull();
    service.selectEndpoint('Builtin');
    await settle();
    service.modelChoice.choose(GPT);
    service.selectEndpoint('Remote');
    await settle();
    expect(model.chosenModel).toBeNull();
    expect(warn).not.toHaveBeenCalled();
  });

  it('is kept when the new endpoint cannot be asked', async () => {
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { service, model } = serviceWith({
      Builtin: offerOf(null, [GPT]),
      Other: new Error('unreachable')
    });
    await settle();
    service.modelChoice.choose(GPT);
    service.selectEndpoint('Other');
    await settle();
    expect(model.chosenModel).toBe(GPT);
  });
});
