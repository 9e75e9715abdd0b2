import { Notification } from '@jupyterlab/apputils';
import {
  BUILT_IN_ENDPOINTS,
  DEFAULT_SETTINGS,
  type IPanelSettings
} from '../../contracts/settings';
import { SettingsFollower } from '../../plugins/settings-follower';
import {
  formSave,
  OLD_FORM_WRITE,
  PLUGIN_ID,
  settingRegistry,
  SettingsRoute,
  settle
} from './settings-fakes';
import { panelStrings } from '../../contracts/translation';

const trans = panelStrings();

const followers: SettingsFollower[] = [];
afterEach(() => {
  followers.splice(0).forEach(follower => follower.dispose());
});

/** A follower of `route`'s settings, started; what it applied. */
async function follow(route: SettingsRoute) {
  const registry = settingRegistry(route);
  const applied: IPanelSettings[] = [];
  const follower = new SettingsFollower({
    registry,
    pluginId: PLUGIN_ID,
    apply: settings => applied.push(settings),
    openSettings: () => undefined,
    trans
  });
  followers.push(follower);
  await follower.start(Promise.resolve());
  await settle();
  return { registry, follower, applied };
}

describe('SettingsFollower: what the form writes', () => {
  it('stores only the field changed in the form', async () => {
    const route = new SettingsRoute();
    const { registry, applied } = await follow(route);
    const editor = await registry.load(PLUGIN_ID);

    await formSave(editor, { maxToolResultChars: 3000 });
    await settle();

    // The form wrote every property; the follower kept the one changed.
    expect(Object.keys(JSON.parse(route.saved[0]))).toEqual(
      Object.keys(editor.schema.properties!)
    );
    expect(route.user).toEqual({ maxToolResultChars: 3000 });
    expect(route.raw).toBe('{\n    "maxToolResultChars": 3000\n}');
    expect(editor.composite.maxToolResultChars).toBe(3000);
    expect(applied).toEqual([
      DEFAULT_SETTINGS,
      { ...DEFAULT_SETTINGS, maxToolResultChars: 3000 }
    ]);
  });

  it('stores nothing once a field changed in the form is back to its default', async () => {
    const route = new SettingsRoute('{"maxToolResultChars": 3000}');
    const { registry, applied } = await follow(route);
    const editor = await registry.load(PLUGIN_ID);

    await formSave(editor, { maxToolResultChars: 2000 });
    await settle();

    expect(route.user).toEqual({});
    expect(applied.at(-1)).toEqual(DEFAULT_SETTINGS);
  });

  it('stores an endpoint added in the form without the defaults the form filled in', async () => {
    const route = new SettingsRoute();
    const { registry, applied } = await follow(route);
    const editor = await registry.load(PLUGIN_ID);

    await formSave(editor, {
      endpoints: [{ name: 'Research', url: 'agent-panel/agents/research/' }]
    });
    await settle();
    // The form sends each item as the composite has it, every field filled in.
    await formSave(editor, { context: { selection: false } });
    await settle();

    expect(JSON.parse(route.saved[2]).endpoints[0]).toMatchObject({
      headers: {},
      idleTimeoutSeconds: 600
    });
    expect(route.user).toEqual({
      endpoints: [{ name: 'Research', url: 'agent-panel/agents/research/' }],
      context: { selection: false }
    });
    expect(applied.at(-1)!.endpoints.map(e => e.name)).toEqual([
      'Research',
      ...BUILT_IN_ENDPOINTS.map(e => e.name)
    ]);
  });

  it('keeps a built-in endpoint hidden in the form, and nothing else of it', async () => {
    const route = new SettingsRoute();
    const { registry, applied } = await follow(route);
    const editor = await registry.load(PLUGIN_ID);

    await formSave(editor, {
      endpoints: [{ name: 'Notebook demo (server)', disabled: true }]
    });
    await settle();
    await formSave(editor, { sendKey: 'Ctrl+Enter' });
    await settle();

    expect(route.user).toEqual({
      endpoints: [{ name: 'Notebook demo (server)', disabled: true }],
      sendKey: 'Ctrl+Enter'
    });
    expect(applied.at(-1)!.endpoints.map(e => e.name)).toEqual([
      'Built-in agent (server)',
      'Notebook kernel'
    ]);
  });

  it('migrates what the form wrote while the built-in endpoints were the default list', async () => {
    const route = new SettingsRoute(OLD_FORM_WRITE);
    const { applied } = await follow(route);

    expect(route.user).toEqual({ maxToolResultChars: 3000 });
    expect(applied).toEqual([
      { ...DEFAULT_SETTINGS, maxToolResultChars: 3000 }
    ]);
  });

  it('keeps an endpoint the user added to the old copy of the default list', async () => {
    const old = JSON.parse(OLD_FORM_WRITE);
    const research = {
      name: 'Research',
      transport: 'http',
      url: 'agent-panel/agents/research/',
      headers: { Authorization: 'Bearer x' },
      commTarget: 'agent_panel',
      notebook: '',
      connectTimeoutSeconds: 30,
      idleTimeoutSeconds: 60,
      history: 'full'
    };
    const route = new SettingsRoute(
      JSON.stringify({ ...old, endpoints: [...old.endpoints, research] })
    );
    await follow(route);

    expect(route.user).toEqual({
      endpoints: [
        {
          name: 'Research',
          url: 'agent-panel/agents/research/',
          headers: { Authorization: 'Bearer x' },
          idleTimeoutSeconds: 60
        }
      ],
      maxToolResultChars: 3000
    });
  });

  it('leaves settings the user wrote alone, comments and all', async () => {
    const raw = [
      '{',
      '  // pinned on purpose',
      '  "maxToolResultChars": 2000,',
      '  "endpoints": [{"name": "Notebook kernel", "transport": "comm"}]',
      '}'
    ].join('\n');
    const route = new SettingsRoute(raw);
    const { applied } = await follow(route);

    expect(route.saved).toEqual([]);
    expect(route.raw).toBe(raw);
    const [builtIn, kernel, demo] = BUILT_IN_ENDPOINTS;
    expect(applied).toEqual([
      { ...DEFAULT_SETTINGS, endpoints: [kernel, builtIn, demo] }
    ]);
  });

  it('stops following once disposed', async () => {
    const route = new SettingsRoute();
    const { registry, follower, applied } = await follow(route);
    const editor = await registry.load(PLUGIN_ID);
    follower.dispose();
    expect(follower.isDisposed).toBe(true);

    await formSave(editor, { maxToolResultChars: 3000 });
    await settle();

    expect(applied).toEqual([DEFAULT_SETTINGS]);
    expect(route.user.maxToolResultChars).toBe(3000);
    expect(route.saved).toHaveLength(1);
  });
});

describe('SettingsFollower: the notification of problems', () => {
  /** The messages of the notifications shown now. */
  function notices(): string[] {
    return Notification.manager.notifications.map(n => n.message);
  }
  const noDefault = (name: string) =>
    `Agent Panel settings: defaultEndpoint: no endpoint is named "${name}"; using "Built-in agent (server)"`;

  beforeEach(() => {
    Notification.dismiss();
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    Notification.dismiss();
    jest.restoreAllMocks();
  });

  it('shows a problem once, and goes away as soon as the value is fixed', async () => {
    const route = new SettingsRoute('{"defaultEndpoint": "Nope"}');
    const { registry } = await follow(route);
    expect(notices()).toEqual([noDefault('Nope')]);
    expect(Notification.manager.notifications[0]).toMatchObject({
      type: 'warning',
      options: { autoClose: false }
    });
    const editor = await registry.load(PLUGIN_ID);

    // The same settings announced again: still one notification.
    await registry.load(PLUGIN_ID, true);
    await settle();
    expect(notices()).toEqual([noDefault('Nope')]);

    await editor.set('defaultEndpoint', 'Notebook kernel');
    await settle();
    expect(notices()).toEqual([]);
  });

  it('replaces the notification by one of the problems left when one is fixed', async () => {
    const cookie = {
      name: 'Team',
      url: 'https://agents.example.org/',
      headers: { Cookie: 'a=b' }
    };
    const route = new SettingsRoute(
      JSON.stringify({ endpoints: [cookie], defaultEndpoint: 'Nope' })
    );
    const { registry } = await follow(route);
    const notSent =
      'endpoints[0].headers.Cookie: browsers do not let a page set "Cookie"; not sent';
    expect(notices()).toEqual([
      `Agent Panel settings: ${notSent}\ndefaultEndpoint: no endpoint is named "Nope"; using "Team"`
    ]);
    const editor = await registry.load(PLUGIN_ID);

    await editor.set('defaultEndpoint', 'Team');
    await settle();
    expect(notices()).toEqual([`Agent Panel settings: ${notSent}`]);

    await editor.set('endpoints', [{ ...cookie, headers: {} }]);
    await settle();
    expect(notices()).toEqual([]);
  });

  it('offers the Settings Editor from the notification', async () => {
    const route = new SettingsRoute('{"defaultEndpoint": "Nope"}');
    const registry = settingRegistry(route);
    const openSettings = jest.fn();
    const follower = new SettingsFollower({
      registry,
      pluginId: PLUGIN_ID,
      apply: () => undefined,
      openSettings,
      trans
    });
    followers.push(follower);
    await follower.start(Promise.resolve());
    const [action] = Notification.manager.notifications[0].options.actions!;
    expect(action.label).toBe('Open Settings');
    action.callback(new MouseEvent('click'));
    expect(openSettings).toHaveBeenCalledTimes(1);
  });

  it('takes its notification away when disposed', async () => {
    const route = new SettingsRoute('{"defaultEndpoint": "Nope"}');
    const { follower } = await follow(route);
    expect(notices()).toHaveLength(1);
    follower.dispose();
    expect(notices()).toEqual([]);
  });
});
