/**
 * A validator for the subset of JSON Schema the panel relies on: the answer
 * of an AG-UI 1.0 interrupt against its `responseSchema`, and a client
 * tool's arguments against its `parameters` (docs/protocol.md §8.9, §8.11).
 *
 * Checked: `type` (one name or a list), `enum`, `const`; `properties`,
 * `required`, `additionalProperties` (false or a schema); `items` (one
 * schema), `minItems`, `maxItems`; `minLength`, `maxLength`, `pattern`;
 * `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers);
 * `allOf`, `anyOf`, `oneOf`. Every other keyword (`$ref`, `format`,
 * `if`/`then`, …) is not checked: the value passes it, so a schema the
 * panel does not understand never blocks an answer the agent would take.
 */
import { isObject, type JsonObject, sameJson } from './json';
import { type IProblem, problem } from './problem';

/**
 * What is wrong with `value` against `schema`, each naming where (`$` is
 * the value itself, `$.name`, `$.items[2]`); empty when it validates.
 */
export function validateJson(value: unknown, schema: unknown): IProblem[] {
  const problems: IProblem[] = [];
  check(value, schema, '$', problems);
  return problems;
}

const TYPE_NAMES = [
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null'
];

function check(
  value: unknown,
  schema: unknown,
  where: string,
  problems: IProblem[]
): void {
  // `true` and `{}` accept anything; `false` nothing.
  if (schema === false) {
    problems.push(problem('%1: no value is allowed here', where));
    return;
  }
  if (!isObject(schema)) {
    return;
  }
  const before = problems.length;
  checkType(value, schema, where, problems);
  if (problems.length > before) {
    // The other keywords would only repeat that the type is wrong.
    return;
  }
  checkValue(value, schema, where, problems);
  if (isObject(value)) {
    checkObject(value, schema, where, problems);
  } else if (Array.isArray(value)) {
    checkArray(value, schema, where, problems);
  } else if (typeof value === 'string') {
    checkString(value, schema, where, problems);
  } else if (typeof value === 'number') {
    checkNumber(value, schema, where, problems);
  }
  checkCombinations(value, schema, where, problems);
}

function checkType(
  value: unknown,
  schema: JsonObject,
  where: string,
  problems: IProblem[]
): void {
  const named = Array.isArray(schema.type) ? schema.type : [schema.type];
  const types = named.filter(
    (type): type is string =>
      typeof type === 'string' && TYPE_NAMES.includes(type)
  );
  if (types.length > 0 && !types.some(type => hasType(value, type))) {
    problems.push(
      problem(
        '%1: must be %2, not %3',
        where,
        types.join(' or '),
        typeOf(value)
      )
    );
  }
}

function checkValue(
  value: unknown,
  schema: JsonObject,
  where: string,
  problems: IProblem[]
): void {
  if ('const' in schema && !sameJson(value, schema.const)) {
    problems.push(
      problem('%1: must be %2', where, JSON.stringify(schema.const))
    );
  }
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some(option => sameJson(value, option))
  ) {
    problems.push(
      problem(
        '%1: must be one of %2',
        where,
        schema.enum.map(option => JSON.stringify(option)).join(', ')
      )
    );
  }
}

function checkObject(
  value: JsonObject,
  schema: JsonObject,
  where: string,
  problems: IProblem[]
): void {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) {
    if (typeof name === 'string' && !(name in value)) {
      problems.push(problem('%1: "%2" is required', where, name));
    }
  }
  for (const [name, item] of Object.entries(value)) {
    const path = `${where}.${name}`;
    if (name in properties) {
      check(item, properties[name], path, problems);
    } else if (schema.additionalProperties === false) {
      problems.push(problem('%1: "%2" is not allowed', where, name));
    } else if (isObject(schema.additionalProperties)) {
      check(item, schema.additionalProperties, path, problems);
    }
  }
}

function checkArray(
  value: unknown[],
  schema: JsonObject,
  where: string,
  problems: IProblem[]
): void {
  if (isCount(schema.minItems) && value.length < schema.minItems) {
    problems.push(
      problem('%1: needs at least %2 item(s)', where, schema.minItems)
    );
  }
  if (isCount(schema.maxItems) && value.length > schema.maxItems) {
    problems.push(
      problem('%1: takes at most %2 item(s)', where, schema.maxItems)
    );
  }
  if (isObject(schema.items) || typeof schema.items === 'boolean') {
    value.forEach((item, index) =>
      check(item, schema.items, `${where}[${index}]`, problems)
    );
  }
}

function checkString(
  value: string,
  schema: JsonObject,
  where: string,
  problems: IProblem[]
): void {
  // Lengths count code points, as JSON Schema does.
  const length = [...value].length;
  if (isCount(schema.minLength) && length < schema.minLength) {
    problems.push(
      schema.minLength === 1
        ? problem('%1: must not be empty', where)
        : problem('%1: needs at least %2 character(s)', where, schema.minLength)
    );
  }
  if (isCount(schema.maxLength) && length > schema.maxLength) {
    problems.push(
      problem('%1: takes at most %2 character(s)', where, schema.maxLength)
    );
  }
  if (typeof schema.pattern === 'string') {
    const pattern = compiled(schema.pattern);
    if (pattern && !pattern.test(value)) {
      problems.push(
        problem('%1: must match the pattern %2', where, schema.pattern)
      );
    }
  }
}

function checkNumber(
  value: number,
  schema: JsonObject,
  where: string,
  problems: IProblem[]
): void {
  const bound = (key: string): number | null =>
    typeof schema[key] === 'number' ? (schema[key] as number) : null;
  const minimum = bound('minimum');
  const maximum = bound('maximum');
  const above = bound('exclusiveMinimum');
  const below = bound('exclusiveMaximum');
  if (minimum !== null && value < minimum) {
    problems.push(problem('%1: must be at least %2', where, minimum));
  }
  if (maximum !== null && value > maximum) {
    problems.push(problem('%1: must be at most %2', where, maximum));
  }
  if (above !== null && value <= above) {
    problems.push(problem('%1: must be more than %2', where, above));
  }
  if (below !== null && value >= below) {
    problems.push(problem('%1: must be less than %2', where, below));
  }
}

function checkCombinations(
  value: unknown,
  schema: JsonObject,
  where: string,
  problems: IProblem[]
): void {
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      check(value, part, where, problems);
    }
  }
  const passing = (parts: unknown[]) =>
    parts.filter(part => validateJson(value, part).length === 0).length;
  if (Array.isArray(schema.anyOf) && passing(schema.anyOf) === 0) {
    problems.push(
      problem('%1: matches none of the allowed alternatives', where)
    );
  }
  if (Array.isArray(schema.oneOf) && passing(schema.oneOf) !== 1) {
    problems.push(
      problem('%1: must match exactly one of the alternatives', where)
    );
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

function typeOf(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'array';
  }
  if (value === undefined) {
    return 'nothing';
  }
  return typeof value;
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

/** The schema's pattern (ECMA-262, unanchored); null when it does not compile. */
function compiled(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return null;
  }
}
