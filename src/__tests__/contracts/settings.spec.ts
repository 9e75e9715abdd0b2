import {
  BUILT_IN_ENDPOINTS,
  DEFAULT_ENDPOINT,
  DEFAULT_SETTINGS,
  describeProblems,
  parseSettings,
  sameEndpoint
} from '../../contracts/settings';
import { marked, SCHEMA } from './settings-fakes';

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
