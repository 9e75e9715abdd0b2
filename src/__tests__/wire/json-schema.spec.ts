/**
 * The JSON Schema subset answers and client-tool arguments are checked
 * against (src/wire/json-schema.ts): each keyword it supports, where the
 * problem is, and that a keyword it does not support never blocks a value.
 */
import { validateJson } from '../../wire/json-schema';
import { problemText } from '../../wire/problem';

function problems(value: unknown, schema: unknown): string[] {
  return validateJson(value, schema).map(problemText);
}

const NAME = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name'],
  additionalProperties: false
};

describe('validateJson', () => {
  it('accepts what the schema describes', () => {
    expect(problems({ name: 'Ada' }, NAME)).toEqual([]);
    expect(problems('anything', {})).toEqual([]);
    expect(problems(3, true)).toEqual([]);
    expect(problems(null, null)).toEqual([]);
  });

  it('names each object problem and where it is', () => {
    expect(problems({}, NAME)).toEqual(['$: "name" is required']);
    expect(problems({ name: '' }, NAME)).toEqual(['$.name: must not be empty']);
    expect(problems({ name: 'Ada', age: 3 }, NAME)).toEqual([
      '$: "age" is not allowed'
    ]);
    expect(
      problems({ a: 1, b: 'x' }, { additionalProperties: { type: 'number' } })
    ).toEqual(['$.b: must be number, not string']);
  });

  it('checks types, one or several, integers apart from numbers', () => {
    expect(problems('1', { type: 'number' })).toEqual([
      '$: must be number, not string'
    ]);
    expect(problems(1.5, { type: 'integer' })).toEqual([
      '$: must be integer, not number'
    ]);
    expect(problems(2, { type: 'integer' })).toEqual([]);
    expect(problems(null, { type: ['string', 'null'] })).toEqual([]);
    expect(problems([], { type: 'object' })).toEqual([
      '$: must be object, not array'
    ]);
    expect(problems(undefined, { type: 'string' })).toEqual([
      '$: must be string, not nothing'
    ]);
    expect(problems(Number.NaN, { type: 'number' })).toEqual([
      '$: must be number, not number'
    ]);
  });

  it('checks enum and const by JSON value', () => {
    expect(problems('b', { enum: ['a', 'b'] })).toEqual([]);
    expect(problems('c', { enum: ['a', 'b'] })).toEqual([
      '$: must be one of "a", "b"'
    ]);
    expect(problems({ x: [1] }, { const: { x: [1] } })).toEqual([]);
    expect(problems({ x: [2] }, { const: { x: [1] } })).toEqual([
      '$: must be {"x":[1]}'
    ]);
  });

  it('checks lengths in code points, patterns, and bounds', () => {
    expect(problems('🙂🙂', { maxLength: 2 })).toEqual([]);
    expect(problems('abc', { maxLength: 2 })).toEqual([
      '$: takes at most 2 character(s)'
    ]);
    expect(problems('ab', { minLength: 3 })).toEqual([
      '$: needs at least 3 character(s)'
    ]);
    expect(problems('a-1', { pattern: '^[a-z]-\\d$' })).toEqual([]);
    expect(problems('1-a', { pattern: '^[a-z]-\\d$' })).toEqual([
      '$: must match the pattern ^[a-z]-\\d$'
    ]);
    // A pattern that does not compile checks nothing.
    expect(problems('x', { pattern: '(' })).toEqual([]);
    expect(
      problems(5, {
        minimum: 1,
        maximum: 4,
        exclusiveMinimum: 5,
        exclusiveMaximum: 5
      })
    ).toEqual([
      '$: must be at most 4',
      '$: must be more than 5',
      '$: must be less than 5'
    ]);
  });

  it('checks arrays and their items', () => {
    const schema = {
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      maxItems: 2
    };
    expect(problems(['a'], schema)).toEqual([]);
    expect(problems([], schema)).toEqual(['$: needs at least 1 item(s)']);
    expect(problems(['a', 2, 'c'], schema)).toEqual([
      '$: takes at most 2 item(s)',
      '$[1]: must be string, not number'
    ]);
    expect(problems([1], { items: false })).toEqual([
      '$[0]: no value is allowed here'
    ]);
  });

  it('combines schemas with allOf, anyOf and oneOf', () => {
    const either = { anyOf: [{ type: 'string' }, { type: 'number' }] };
    expect(problems(1, either)).toEqual([]);
    expect(problems(true, either)).toEqual([
      '$: matches none of the allowed alternatives'
    ]);
    const one = { oneOf: [{ minimum: 0 }, { maximum: 10 }] };
    expect(problems(-1, one)).toEqual([]);
    expect(problems(5, one)).toEqual([
      '$: must match exactly one of the alternatives'
    ]);
    expect(
      problems('', { allOf: [{ type: 'string' }, { minLength: 1 }] })
    ).toEqual(['$: must not be empty']);
  });

  it('lets keywords outside its subset pass, so they never block an answer', () => {
    expect(
      problems('not-a-date', {
        type: 'string',
        format: 'date-time',
        $ref: '#/definitions/nowhere',
        if: { const: 'x' },
        then: false
      })
    ).toEqual([]);
  });
});
