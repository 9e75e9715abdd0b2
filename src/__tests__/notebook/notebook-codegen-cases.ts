/**
 * Adversarial extraction payloads. The codegen spec turns each into a cell
 * source and keeps the result in `fixtures/codegen/` (golden files), which
 * `jupyterlab_agent_panel/tests/test_codegen_kernel.py` runs in a real
 * kernel: both sides test the same text.
 */

export interface ICodegenCase {
  /** What the case is about (unique). */
  name: string;
  extracted_type: string;
  tool_name: string;
  /** Names the notebook already binds. */
  taken: string[];
  data: unknown;
}

/** Every C0 control character, DEL and the C1 NEL. */
const CONTROLS = Array.from({ length: 32 }, (_, code) =>
  String.fromCharCode(code)
).join('');

const basic = (
  name: string,
  data: unknown,
  extractedType = 'payload'
): ICodegenCase => ({
  name,
  extracted_type: extractedType,
  tool_name: 'adversary',
  taken: [],
  data
});

/** Small cases, kept readable in `cases.json`. */
export function smallCases(): ICodegenCase[] {
  return [
    basic('demo fact', { query: 'use a tool', answer: '42' }, 'demo_fact'),
    basic('quotes', {
      text: `it's "quoted" 'single' and "double"`,
      mixed: `'"'"'`
    }),
    basic('triple quotes', [
      "'''",
      '"""',
      `''' """ ''' """`,
      "ends with '",
      'ends with "',
      "'''); import os; os.system('echo pwned'); ('''"
    ]),
    basic('backslashes', [
      '\\',
      '\\\\',
      'C:\\new\\table\\x41',
      'ends with \\',
      "\\'",
      '\\u0041 literally',
      '\\N{BULLET}',
      '\\\n'
    ]),
    basic('newlines', [
      'a\nb',
      'a\r\nb',
      'a\rb',
      '\n',
      'line\u2028separator\u2029paragraph',
      'next\u0085line',
      'vertical\u000btab\u000cfeed'
    ]),
    basic('nul and controls', {
      nul: '\u0000',
      controls: CONTROLS,
      del: '\u007f',
      c1: '\u0080\u009f'
    }),
    basic('emoji', {
      face: '😀',
      family: '👩‍👩‍👧‍👦',
      flag: '🏳️‍🌈',
      math: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢'
    }),
    basic('lone surrogates', [
      '\ud800',
      '\udfff',
      'a\ud83d',
      '\ude00b',
      '\ud83d\\ude00',
      '\udc00\ud800'
    ]),
    basic('html and script', [
      '</script><script>alert(1)</script>',
      '<!-- comment -->',
      ']]>',
      '&amp; &lt;',
      '<img src=x onerror=alert(1)>'
    ]),
    basic('unicode text', {
      accents: 'résumé naïve',
      cjk: '日本語のテキスト',
      rtl: 'abc\u202edcba',
      bom: '\ufeffstart',
      invisible: 'zero\u200bwidth'
    }),
    basic('ipython syntax at line starts', [
      '%matplotlib inline',
      '!rm -rf /',
      '?help',
      '>>> x = 1',
      'In [1]: x',
      '   ...: y',
      '%%bash',
      '$HOME',
      '{{ var }}'
    ]),
    basic('nested lists of records', [
      {
        id: 1,
        name: "O'Brien",
        tags: ['a', 'b'],
        children: [{ id: 11, values: [[1, 2], [3]] }]
      },
      { id: 2, name: '"""', tags: [], children: [] },
      { id: 3, extra: { deep: { deeper: [null, true, false] } } }
    ]),
    basic(
      'numbers',
      [
        0, -1, 1.5, 1e21, 1e-7, 5e-324, 1.7976931348623157e308,
        9007199254740992, -123456789.123
      ]
    ),
    basic('null', null),
    basic('true', true),
    basic('false', false),
    basic('empty string', ''),
    basic('zero', 0),
    basic('plain string', 'just text'),
    basic('empty containers', { object: {}, list: [], nested: [[], [{}]] }),
    basic(
      'awkward keys',
      JSON.parse(
        '{"": 1, "\'\'\'": 2, "__proto__": 3, "a\\nb": 4, "constructor": 5, "\\u0000": 6}'
      )
    ),
    basic('deep nesting', nest(100)),
    basic('at the pretty limit', { text: 'x'.repeat(1989) }),
    basic('over the pretty limit', { text: 'x'.repeat(1990) }),
    {
      name: 'name from a title-case type',
      extracted_type: 'Demo Fact',
      tool_name: 'demo_lookup',
      taken: ['demo_fact', 'demo_fact_2'],
      data: { answer: '42' }
    },
    {
      name: 'name from a keyword',
      extracted_type: 'class',
      tool_name: 'tool\nwith a newline',
      taken: [],
      data: [1]
    },
    {
      name: 'name from digits and accents',
      extracted_type: '2024 résumé',
      tool_name: "it's'''",
      taken: [],
      data: [2]
    },
    {
      name: 'name that would shadow json',
      extracted_type: 'json',
      tool_name: 'x',
      taken: ['json_data'],
      data: [3]
    },
    {
      name: 'name from symbols only',
      extracted_type: '%%%',
      tool_name: '',
      taken: ['extracted'],
      data: [4]
    }
  ];
}

/** About 1 MB each; kept gzipped in `large-cases.json.gz`. */
export function largeCases(): ICodegenCase[] {
  const unit = `'''"""\\\n\u0000😀</script>\u2028é\ud800x`;
  const records = Array.from({ length: 7500 }, (_, i) => ({
    id: i,
    name: `record ${i} it's "quoted" '''`,
    values: [i, i / 3, `${i}\\`],
    nested: [{ ok: i % 2 === 0, note: null }]
  }));
  return [
    basic('one megabyte string', unit.repeat(Math.ceil(2 ** 20 / unit.length))),
    basic('list of 7500 records', records, 'records')
  ];
}

function nest(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) {
    value = i % 2 === 0 ? [value] : { level: value };
  }
  return value;
}
