/**
 * The output an inserted extraction shows: JSON and a summary, every text
 * in it well-formed.
 */
import {
  describe as describeValue,
  extractionOutput,
  truncate,
  wellFormed
} from '../../notebook/outputs';

describe('extractionOutput', () => {
  it('shows the demo fact as JSON and a summary', () => {
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
    expect(Object.keys(output.data).sort()).toEqual([
      'application/json',
      'text/plain'
    ]);
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

  it('shows U+FFFD for a lone surrogate, which no kernel can send', () => {
    const data = { ['k\ud800']: ['a\udc00', '😀'], plain: 'x' };
    const output = extractionOutput({
      name: 'x',
      data,
      toolName: 't',
      extractedType: '\ud83d'
    });
    expect(output.data['application/json']).toEqual({
      'k\ufffd': ['a\ufffd', '😀'],
      plain: 'x'
    });
    expect(output.data['text/plain']).toBe(
      'x: dict with 2 keys: k\ufffd, plain (\ufffd from the tool t)'
    );
    expect(data).toEqual({ ['k\ud800']: ['a\udc00', '😀'], plain: 'x' });
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

describe('wellFormed', () => {
  it('replaces each lone surrogate, and keeps pairs', () => {
    expect(wellFormed('\ud800 \udfff a\ud83d \ude00b 😀 \udc00\ud800')).toBe(
      '\ufffd \ufffd a\ufffd \ufffdb 😀 \ufffd\ufffd'
    );
  });

  it('gives back the value itself when nothing needs replacing', () => {
    const data = { a: [1, 'b', { c: null }], ['__proto__']: 'd' };
    expect(wellFormed(data)).toBe(data);
    const nested = { a: [{ b: 'x\ud800' }], c: 1 };
    const copy = wellFormed(nested) as typeof nested;
    expect(copy).toEqual({ a: [{ b: 'x\ufffd' }], c: 1 });
    expect(copy).not.toBe(nested);
  });
});

describe('text helpers', () => {
  it('never cuts inside a surrogate pair', () => {
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(truncate('abc😀', 4)).toBe('abc…');
    expect(truncate('short', 10)).toBe('short');
  });
});
