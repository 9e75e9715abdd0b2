import * as fs from 'fs';
import * as path from 'path';
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import {
  BUILT_IN_ENDPOINTS,
  DEFAULT_ENDPOINT,
  DEFAULT_SETTINGS,
  describeProblems,
  parseSettings,
  sameEndpoint
} from '../contracts/settings';

const SCHEMA = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', 'schema', 'plugin.json'),
    'utf8'
  )
);

/** One endpoint entry in a composite, with the rest defaulted. */
function withEndpoint(entry: Record<string, unknown>) {
  return parseSettings({ endpoints: [entry] });
}

describe('parseSettings', () => {
  it('gives the schema defaults for the schema default composite', () => {
    const defaults = Object.fromEntries(
      Object.entries(SCHEMA.properties).map(([key, value]: [string, any]) => [
        key,
        value.default
      ])
    );
    const { settings, problems } = parseSettings(defaults);
    expect(problems).toEqual([]);
    expect(settings).toEqual(DEFAULT_SETTINGS);
  });

  it('keeps defaults in step with the schema', () => {
    const endpoint = SCHEMA.definitions.endpoint.properties;
    expect(DEFAULT_ENDPOINT.commTarget).toBe(endpoint.commTarget.default);
    expect(DEFAULT_ENDPOINT.connectTimeoutSeconds).toBe(
      endpoint.connectTimeoutSeconds.default
    );
    expect(DEFAULT_ENDPOINT.idleTimeoutSeconds).toBe(
      endpoint.idleTimeoutSeconds.default
    );
    expect(DEFAULT_SETTINGS.defaultEndpoint).toBe(
      SCHEMA.properties.defaultEndpoint.default
    );
    expect(DEFAULT_SETTINGS.maxToolResultChars).toBe(
      SCHEMA.properties.maxToolResultChars.default
    );
  });

  it('uses the defaults quietly when nothing is set', () => {
    expect(parseSettings(undefined)).toEqual({
      settings: DEFAULT_SETTINGS,
      problems: []
    });
    expect(parseSettings({})).toEqual({
      settings: DEFAULT_SETTINGS,
      problems: []
    });
  });

  it('reads a full external endpoint', () => {
    const { settings, problems } = parseSettings({
      endpoints: [
        {
          name: ' Research ',
          transport: 'http',
          url: ' https://agents.example.org/research/ ',
          headers: { Authorization: 'Bearer abc' },
          connectTimeoutSeconds: 5,
          idleTimeoutSeconds: 0,
          history: 'latest'
        }
      ],
      defaultEndpoint: 'Research',
      maxToolResultChars: 500,
      insertPosition: 'end',
      sendKey: 'Ctrl+Enter',
      reviewNotebookReads: true,
      context: { selection: false }
    });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      endpoints: [
        {
          name: 'Research',
          transport: 'http',
          url: 'https://agents.example.org/research/',
          headers: { Authorization: 'Bearer abc' },
          commTarget: 'agent_panel',
          notebook: '',
          connectTimeoutSeconds: 5,
          idleTimeoutSeconds: 0,
          history: 'latest'
        },
        ...BUILT_IN_ENDPOINTS
      ],
      defaultEndpoint: 'Research',
      maxToolResultChars: 500,
      insertPosition: 'end',
      sendKey: 'Ctrl+Enter',
      reviewNotebookReads: true,
      context: { directory: true, document: true, selection: false }
    });
  });

  it('reads the history an AG-UI run carries, reporting a value it does not know', () => {
    const { settings, problems } = parseSettings({
      endpoints: [
        { name: 'A', transport: 'agui', url: 'http://127.0.0.1:1/' },
        {
          name: 'B',
          transport: 'agui',
          url: 'http://127.0.0.1:2/',
          history: 'none'
        }
      ]
    });
    expect(settings.endpoints.map(endpoint => endpoint.history)).toEqual([
      'full',
      'full',
      ...BUILT_IN_ENDPOINTS.map(endpoint => endpoint.history)
    ]);
    expect(problems).toEqual([
      {
        field: 'endpoints[1].history',
        message: '"none" is not one of "full", "latest"; using "full"'
      }
    ]);
  });

  it('reports settings that are not an object', () => {
    expect(parseSettings('nope')).toEqual({
      settings: DEFAULT_SETTINGS,
      problems: [
        {
          field: '(settings)',
          message: 'the settings are not a JSON object; using the defaults'
        }
      ]
    });
  });

  it('reports an endpoint list that is not a list', () => {
    const { settings, problems } = parseSettings({ endpoints: 'agent-panel/' });
    expect(settings.endpoints).toEqual(DEFAULT_SETTINGS.endpoints);
    expect(problems).toEqual([
      {
        field: 'endpoints',
        message: 'must be a list of endpoints; using the built-in ones'
      }
    ]);
  });

  it.each([
    [
      'an entry that is not an object',
      'agent-panel/',
      'endpoints[0]',
      'must be an object; left out'
    ],
    [
      'a missing name',
      { transport: 'http', url: 'a/' },
      'endpoints[0].name',
      'a name is required; this endpoint is left out'
    ],
    [
      'a blank name',
      { name: '  ', url: 'a/' },
      'endpoints[0].name',
      'a name is required; this endpoint is left out'
    ],
    [
      'an unknown transport',
      { name: 'A', transport: 'grpc', url: 'a/' },
      'endpoints[0].transport',
      '"grpc" is not one of http, comm, agui; this endpoint is left out'
    ],
    [
      'an http endpoint without URL',
      { name: 'A', transport: 'http' },
      'endpoints[0].url',
      'a URL is required for this transport; this endpoint is left out'
    ],
    [
      'an invalid absolute URL',
      { name: 'A', url: 'http://exa mple.org/' },
      'endpoints[0].url',
      '"http://exa mple.org/" is not a valid URL'
    ],
    [
      'an unsupported scheme',
      { name: 'A', url: 'ftp://example.org/' },
      'endpoints[0].url',
      '"ftp:" URLs are not supported; use http: or https:'
    ],
    [
      'a websocket URL for http',
      { name: 'A', url: 'ws://example.org/' },
      'endpoints[0].url',
      '"ws:" URLs are not supported; use http: or https:'
    ]
  ])('drops %s, naming the field', (_, entry, field, message) => {
    const { settings, problems } = withEndpoint(entry as any);
    expect(problems).toEqual([{ field, message }]);
    expect(settings.endpoints).toEqual(BUILT_IN_ENDPOINTS);
    expect(settings.defaultEndpoint).toBe(DEFAULT_ENDPOINT.name);
  });

  it('drops the second endpoint with a name already used', () => {
    const { settings, problems } = parseSettings({
      endpoints: [
        { name: 'A', url: 'a/' },
        { name: 'A', url: 'b/' }
      ],
      defaultEndpoint: 'A'
    });
    expect(settings.endpoints.map(e => e.url)).toEqual([
      'a/',
      ...BUILT_IN_ENDPOINTS.map(e => e.url)
    ]);
    expect(problems).toEqual([
      {
        field: 'endpoints[1].name',
        message:
          'the name "A" is used by another endpoint; this one is left out'
      }
    ]);
  });

  it('accepts a comm endpoint without URL and defaults its target', () => {
    const { settings, problems } = parseSettings({
      endpoints: [
        {
          name: 'Kernel',
          transport: 'comm',
          commTarget: ' ',
          notebook: ' analysis.ipynb '
        }
      ],
      defaultEndpoint: 'Kernel'
    });
    expect(problems).toEqual([]);
    expect(settings.endpoints[0]).toMatchObject({
      transport: 'comm',
      url: '',
      commTarget: 'agent_panel',
      notebook: 'analysis.ipynb'
    });
  });

  it('falls back to the first endpoint when the default names none', () => {
    const { settings, problems } = parseSettings({
      endpoints: [{ name: 'A', url: 'a/' }],
      defaultEndpoint: 'B'
    });
    expect(settings.defaultEndpoint).toBe('A');
    expect(problems).toEqual([
      {
        field: 'defaultEndpoint',
        message: 'no endpoint is named "B"; using "A"'
      }
    ]);
  });

  it.each([
    ['defaultEndpoint', 7, 'must be a string; using "A"'],
    [
      'maxToolResultChars',
      50,
      'must be a whole number of at least 100 (got 50); using 2000'
    ],
    [
      'maxToolResultChars',
      150.5,
      'must be a whole number of at least 100 (got 150.5); using 2000'
    ],
    [
      'insertPosition',
      'top',
      '"top" is not one of "below-active", "end"; using "below-active"'
    ],
    [
      'sendKey',
      'Shift+Enter',
      '"Shift+Enter" is not one of "Enter", "Ctrl+Enter"; using "Enter"'
    ],
    ['reviewNotebookReads', 'yes', '"yes" is not true or false; using false']
  ])('replaces an invalid %s by its default', (field, value, message) => {
    const { settings, problems } = parseSettings({
      endpoints: [{ name: 'A', url: 'a/' }],
      defaultEndpoint: 'A',
      [field]: value
    });
    expect(problems).toEqual([{ field, message }]);
    expect((settings as any)[field]).toBe(
      field === 'defaultEndpoint' ? 'A' : (DEFAULT_SETTINGS as any)[field]
    );
  });

  it.each([
    [
      'connectTimeoutSeconds',
      0,
      'must be a number of at least 1 (got 0); using 30'
    ],
    [
      'connectTimeoutSeconds',
      '5',
      'must be a number of at least 1 (got "5"); using 30'
    ],
    [
      'idleTimeoutSeconds',
      -1,
      'must be a number of at least 0 (got -1); using 600'
    ],
    ['commTarget', 3, 'must be a string; using ""'],
    ['notebook', false, 'must be a string; using ""'],
    ['url', 42, 'must be a string; using ""']
  ])(
    'replaces an invalid endpoint %s by its default',
    (field, value, message) => {
      const { settings, problems } = parseSettings({
        endpoints: [{ name: 'A', transport: 'comm', [field]: value }],
        defaultEndpoint: 'A'
      });
      expect(problems).toEqual([{ field: `endpoints[0].${field}`, message }]);
      expect(settings.endpoints[0].name).toBe('A');
    }
  );

  it.each([
    [
      { Authorization: 5 },
      'Authorization',
      'a header value must be a string; not sent'
    ],
    [
      { 'Bad Name': 'x' },
      'Bad Name',
      '"Bad Name" is not a valid header name; not sent'
    ],
    [
      { 'X-A': 'one\r\ntwo' },
      'X-A',
      'a header value cannot contain line breaks; not sent'
    ],
    [
      { Cookie: 'a=b' },
      'Cookie',
      'browsers do not let a page set "Cookie"; not sent'
    ],
    [
      { 'Sec-Fetch-Site': 'x' },
      'Sec-Fetch-Site',
      'browsers do not let a page set "Sec-Fetch-Site"; not sent'
    ],
    [
      { 'Proxy-Authorization': 'x' },
      'Proxy-Authorization',
      'browsers do not let a page set "Proxy-Authorization"; not sent'
    ]
  ])('leaves out the header %j', (headers, name, message) => {
    const { settings, problems } = withEndpoint({
      name: 'A',
      url: 'https://example.org/',
      headers: { ...headers, 'X-Keep': 'kept' }
    });
    expect(settings.endpoints[0].headers).toEqual({ 'X-Keep': 'kept' });
    expect(problems[0]).toEqual({
      field: `endpoints[0].headers.${name}`,
      message
    });
  });

  it('reports headers that are not an object', () => {
    const { settings, problems } = withEndpoint({
      name: 'A',
      url: 'https://example.org/',
      headers: ['Authorization: x']
    });
    expect(settings.endpoints[0].headers).toEqual({});
    expect(problems[0]).toEqual({
      field: 'endpoints[0].headers',
      message: 'must be an object of header names to values; ignored'
    });
  });

  it.each([
    [
      'a Jupyter route (relative URL)',
      { transport: 'http', url: 'agent-panel/agents/x/' },
      "a relative URL is a Jupyter server route, which gets Jupyter's own credentials instead; ignored"
    ],
    [
      'a websocket',
      { transport: 'agui', url: 'wss://example.org/ws' },
      'browsers cannot send headers with a websocket; ignored'
    ],
    [
      'the comm',
      { transport: 'comm' },
      'the comm transport sends no HTTP requests; ignored'
    ]
  ])('says headers are not sent to %s', (_, entry, message) => {
    const { problems } = parseSettings({
      endpoints: [{ name: 'A', headers: { Authorization: 'x' }, ...entry }],
      defaultEndpoint: 'A'
    });
    expect(problems).toEqual([{ field: 'endpoints[0].headers', message }]);
  });

  it.each(['../other/agent/', '/abs/agent/', 'https://example.org/'])(
    'keeps headers for %s, which is not under the Jupyter base URL',
    url => {
      const { settings, problems } = parseSettings({
        endpoints: [{ name: 'A', url, headers: { Authorization: 'x' } }],
        defaultEndpoint: 'A'
      });
      expect(problems).toEqual([]);
      expect(settings.endpoints[0].headers).toEqual({ Authorization: 'x' });
    }
  );
});

/** What the Settings Editor's form wrote when one field changed while the built-in endpoints were the schema's default list. */
const OLD_FORM_WRITE = JSON.parse(
  fs.readFileSync(
    path.join(
      __dirname,
      '..',
      '..',
      'fixtures',
      'settings',
      'old-form-write.jupyterlab-settings'
    ),
    'utf8'
  )
);

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
    expect(parseSettings(OLD_FORM_WRITE)).toEqual({
      settings: { ...DEFAULT_SETTINGS, maxToolResultChars: 3000 },
      problems: []
    });
    const { settings, problems } = parseSettings({
      ...OLD_FORM_WRITE,
      endpoints: [...OLD_FORM_WRITE.endpoints, research]
    });
    expect(problems).toEqual([]);
    expect(settings.endpoints.map(e => e.name)).toEqual([
      ...BUILT_IN_ENDPOINTS.map(e => e.name),
      'Research'
    ]);
  });
});

describe('describeProblems', () => {
  it('names each field, one per line', () => {
    expect(
      describeProblems([
        { field: 'endpoints[0].url', message: 'a URL is required' },
        { field: 'sendKey', message: 'bad' }
      ])
    ).toBe('endpoints[0].url: a URL is required\nsendKey: bad');
  });
});

describe('translated problems', () => {
  // A language whose every message is marked, to see what goes through it.
  const trans = nullTranslator.load('jupyterlab_agent_panel');
  const marked: TranslationBundle = {
    ...trans,
    // eslint-disable-next-line jupyter/no-dynamic-translation -- it wraps what it is given
    __: (text: string, ...args: any[]) => `«${trans.__(text, ...args)}»`
  };

  it('words every problem, down to the context setting, in the given language', () => {
    const { problems } = parseSettings(
      {
        endpoints: [{ name: 'A', transport: 'http', url: 'ftp://x' }, 'nope'],
        sendKey: 'Shift',
        context: { selection: 'yes' }
      },
      marked
    );
    expect(problems.map(problem => problem.message)).toEqual([
      '«"ftp:" URLs are not supported; use «http: or https:»»',
      '«must be an object; left out»',
      '««"Shift" is not one of "Enter", "Ctrl+Enter"»; using "Enter"»',
      '«must be true or false (got "yes"); using true»'
    ]);
    expect(describeProblems(problems.slice(1, 2), marked)).toBe(
      '«endpoints[1]: «must be an object; left out»»'
    );
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

describe('sameEndpoint', () => {
  it('compares every field', () => {
    expect(sameEndpoint(DEFAULT_ENDPOINT, { ...DEFAULT_ENDPOINT })).toBe(true);
    expect(
      sameEndpoint(DEFAULT_ENDPOINT, {
        ...DEFAULT_ENDPOINT,
        headers: { A: 'b' }
      })
    ).toBe(false);
    expect(
      sameEndpoint(DEFAULT_ENDPOINT, {
        ...DEFAULT_ENDPOINT,
        idleTimeoutSeconds: 1
      })
    ).toBe(false);
  });
});
