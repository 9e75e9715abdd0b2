/**
 * The output an inserted extraction shows before it runs: JSON, a summary,
 * and an HTML table in which nothing from the data can become markup.
 */
import {
  describe as describeValue,
  escapeHtml,
  extractionOutput,
  htmlTable,
  TABLE_MAX_COLUMNS,
  TABLE_MAX_ROWS,
  truncate
} from '../notebook/outputs';
import { smallCases } from './notebook-codegen-cases';

const ALLOWED_TAGS = new Set([
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TH',
  'TD',
  'P'
]);

/** Every element of the HTML is a table part or a note, and none has attributes. */
function expectInert(html: string): Document {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const element of doc.body.querySelectorAll('*')) {
    expect(ALLOWED_TAGS.has(element.tagName)).toBe(true);
    expect(element.attributes).toHaveLength(0);
  }
  return doc;
}

function cellTexts(doc: Document, selector: string): string[] {
  return [...doc.querySelectorAll(selector)].map(
    node => node.textContent ?? ''
  );
}

describe('extractionOutput', () => {
  it('shows the demo fact as JSON, a summary and a key/value table', () => {
    const output = extractionOutput({
      name: 'demo_fact',
      data: { query: 'use a tool', answer: '42' },
      toolName: 'demo_lookup',
      extractedType: 'demo_fact'
    });
    expect(output.output_type).toBe('display_data');
    expect(output.data['application/json']).toEqual({
      query: 'use a tool',
      answer: '42'
    });
    expect(output.metadata).toEqual({
      'application/json': { root: 'demo_fact' }
    });
    expect(output.data['text/plain']).toBe(
      'demo_fact: dict with 2 keys: query, answer (demo_fact from the tool demo_lookup)'
    );
    const doc = expectInert(output.data['text/html'] as string);
    expect(cellTexts(doc, 'th')).toEqual(['query', 'answer']);
    expect(cellTexts(doc, 'td')).toEqual(['use a tool', '42']);
  });

  it('leaves a scalar to the text, which shows its value', () => {
    for (const [data, text] of [
      [null, 'None'],
      [false, 'bool False'],
      [0, 'int 0'],
      [1.5, 'float 1.5'],
      ['', 'str of 0 characters: ""']
    ] as const) {
      const output = extractionOutput({
        name: 'x',
        data,
        toolName: 't',
        extractedType: 'x'
      });
      expect(Object.keys(output.data).sort()).toEqual(['text/plain']);
      expect(output.data['text/plain']).toBe(`x: ${text} (x from the tool t)`);
    }
  });

  it('keeps the whole data in the JSON however long it is', () => {
    const data = Array.from({ length: 500 }, (_, id) => ({ id }));
    const output = extractionOutput({
      name: 'rows',
      data,
      toolName: 't',
      extractedType: 'rows'
    });
    expect(output.data['application/json']).toEqual(data);
  });
});

describe('htmlTable', () => {
  it('makes one row per record, with the union of their keys', () => {
    const doc = expectInert(
      htmlTable([
        { a: 1, b: 'x' },
        { b: 'y', c: [1, { d: null }] }
      ])!
    );
    expect(cellTexts(doc, 'thead th')).toEqual(['a', 'b', 'c']);
    expect(cellTexts(doc, 'tbody tr:nth-child(1) td')).toEqual(['1', 'x', '']);
    expect(cellTexts(doc, 'tbody tr:nth-child(2) td')).toEqual([
      '',
      'y',
      '[1,{"d":null}]'
    ]);
  });

  it('escapes every key and value', () => {
    const evil = `</td></table><script>alert("x")</script><img src=x onerror='y'>&amp;`;
    const doc = expectInert(htmlTable([{ [evil]: evil }])!);
    expect(cellTexts(doc, 'th')).toEqual([evil]);
    expect(cellTexts(doc, 'td')).toEqual([evil]);
    expectInert(htmlTable({ [evil]: evil })!);
  });

  it('stays inert for every adversarial payload of the golden cases', () => {
    for (const { data } of smallCases()) {
      const table = htmlTable(data);
      if (table !== null) {
        expectInert(table);
      }
    }
  });

  it('shows at most 50 rows and 20 columns, and says so', () => {
    const wide = Object.fromEntries(
      Array.from({ length: TABLE_MAX_COLUMNS + 5 }, (_, i) => [`k${i}`, i])
    );
    const records = Array.from({ length: TABLE_MAX_ROWS + 10 }, () => wide);
    const doc = expectInert(htmlTable(records)!);
    expect(doc.querySelectorAll('tbody tr')).toHaveLength(TABLE_MAX_ROWS);
    expect(doc.querySelectorAll('thead th')).toHaveLength(TABLE_MAX_COLUMNS);
    expect(doc.querySelector('p')?.textContent).toBe(
      'Showing 50 of 60 rows. Showing 20 of 25 columns.'
    );
  });

  it('cuts long values', () => {
    const doc = expectInert(htmlTable({ text: 'x'.repeat(1000) })!);
    expect(cellTexts(doc, 'td')[0]).toBe(`${'x'.repeat(199)}…`);
  });

  it('makes no table for nested objects, mixed lists, scalars or empty data', () => {
    for (const data of [
      { a: { b: 1 } },
      [{ a: 1 }, 2],
      [1, 2],
      [],
      {},
      'text',
      null
    ]) {
      expect(htmlTable(data)).toBeNull();
    }
  });
});

describe('describe', () => {
  it.each([
    [[{ a: 1 }, { b: 2 }], 'list of 2 records with keys a, b'],
    [[1], 'list of 1 item'],
    [[], 'list of 0 items'],
    [{}, 'empty dict'],
    [
      { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 },
      'dict with 6 keys: a, b, c, d, e, …'
    ],
    [true, 'bool True']
  ])('%j → %s', (data, text) => {
    expect(describeValue(data)).toBe(text);
  });
});

describe('text helpers', () => {
  it('escapes the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;'
    );
  });

  it('never cuts inside a surrogate pair', () => {
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(truncate('abc😀', 4)).toBe('abc…');
    expect(truncate('short', 10)).toBe('short');
  });
});
