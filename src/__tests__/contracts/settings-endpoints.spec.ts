import {
  BUILT_IN_ENDPOINTS,
  DEFAULT_ENDPOINT,
  DEFAULT_SETTINGS,
  parseSettings
} from '../../contracts/settings';
import { marked, OLD_FORM_WRITE, SCHEMA } from './settings-fakes';

describe('the built-in endpoints and yours', () => {
  const research = {
    name: 'Research',
    transport: 'http',
    url: 'agent-panel/agents/research/'
  };

  it('keeps the built-in endpoints out of the schema, so a change in the form cannot pin them', () => {
    expect(SCHEMA.properties.endpoints.default).toEqual([]);
    expect(BUILT_IN_ENDPOINTS.map(endpoint => endpoint.name)).toEqual([
      'Built-in agent (server)',
      'Notebook kernel',
      'Notebook demo (server)'
    ]);
  });

  it('offers yours first, then the built-in ones', () => {
    const { settings, problems } = parseSettings({ endpoints: [research] });
    expect(problems).toEqual([]);
    expect(settings.endpoints).toEqual([
      { ...DEFAULT_ENDPOINT, ...research },
      ...BUILT_IN_ENDPOINTS
    ]);
  });

  it('replaces a built-in endpoint by yours of the same name, in your place', () => {
    const echo = {
      name: 'Built-in agent (server)',
      transport: 'http',
      url: 'agent-panel/agents/echo/'
    };
    const { settings, problems } = parseSettings({
      endpoints: [research, echo]
    });
    expect(problems).toEqual([]);
    expect(settings.endpoints.map(e => [e.name, e.url])).toEqual([
      ['Research', 'agent-panel/agents/research/'],
      ['Built-in agent (server)', 'agent-panel/agents/echo/'],
      ['Notebook kernel', ''],
      ['Notebook demo (server)', 'agent-panel/agents/notebook-demo/']
    ]);
  });

  it('leaves a disabled endpoint out, hiding a built-in of its name, without asking for its other fields', () => {
    const { settings, problems } = parseSettings({
      endpoints: [
        { name: 'Notebook demo (server)', disabled: true },
        { ...research, disabled: true },
        { name: 'Kernel', transport: 'comm', disabled: false }
      ],
      defaultEndpoint: 'Kernel'
    });
    expect(problems).toEqual([]);
    expect(settings.endpoints.map(e => e.name)).toEqual([
      'Kernel',
      'Built-in agent (server)',
      'Notebook kernel'
    ]);
  });

  it('reports a name used by a disabled endpoint before, and a disabled flag that is not true or false', () => {
    const { settings, problems } = parseSettings({
      endpoints: [
        { name: 'Notebook kernel', disabled: true },
        { name: 'Notebook kernel', transport: 'comm' },
        { ...research, disabled: 'yes' }
      ]
    });
    expect(settings.endpoints.map(e => e.name)).toEqual([
      'Research',
      'Built-in agent (server)',
      'Notebook demo (server)'
    ]);
    expect(problems).toEqual([
      {
        field: 'endpoints[1].name',
        message:
          'the name "Notebook kernel" is used by another endpoint; this one is left out'
      },
      {
        field: 'endpoints[2].disabled',
        message: '"yes" is not true or false; using false'
      }
    ]);
  });

  it('falls back to the built-in agent when every endpoint is disabled', () => {
    const { settings, problems } = parseSettings({
      endpoints: BUILT_IN_ENDPOINTS.map(({ name }) => ({
        name,
        disabled: true
      }))
    });
    expect(settings.endpoints).toEqual([DEFAULT_ENDPOINT]);
    expect(settings.defaultEndpoint).toBe(DEFAULT_ENDPOINT.name);
    expect(problems).toEqual([
      {
        field: 'endpoints',
        message: 'no usable endpoint; using the built-in agent'
      }
    ]);
  });

  it('reads an old copy of the default list as the built-in endpoints, and keeps an endpoint added to it', () => {
    expect(parseSettings(JSON.parse(OLD_FORM_WRITE))).toEqual({
      settings: { ...DEFAULT_SETTINGS, maxToolResultChars: 3000 },
      problems: []
    });
    const old = JSON.parse(OLD_FORM_WRITE);
    const { settings, problems } = parseSettings({
      ...old,
      endpoints: [...old.endpoints, research]
    });
    expect(problems).toEqual([]);
    expect(settings.endpoints.map(e => e.name)).toEqual([
      ...BUILT_IN_ENDPOINTS.map(e => e.name),
      'Research'
    ]);
  });

  it('words the fallback when no endpoint is usable', () => {
    const { problems } = parseSettings(
      {
        endpoints: [
          { name: 'Only', transport: 'http' },
          ...BUILT_IN_ENDPOINTS.map(({ name }) => ({ name, disabled: true }))
        ]
      },
      marked
    );
    expect(problems.map(problem => problem.message)).toEqual([
      '«a URL is required for this transport; this endpoint is left out»',
      '«no usable endpoint; using the built-in agent»'
    ]);
  });
});
