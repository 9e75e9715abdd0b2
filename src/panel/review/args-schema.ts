/**
 * The subset of JSON Schema the review form understands: an object whose
 * properties are strings, numbers, integers or booleans (optionally with an
 * `enum`). Anything else is edited as JSON.
 */
import { isObject } from '../../wire/json';

export type ArgFieldType = 'string' | 'number' | 'integer' | 'boolean';

export interface IArgField {
  name: string;
  type: ArgFieldType;
  title: string;
  description: string | null;
  required: boolean;
  /** Allowed values when the schema lists them. */
  options: (string | number)[] | null;
}

const FIELD_TYPES: readonly ArgFieldType[] = [
  'string',
  'number',
  'integer',
  'boolean'
];

/**
 * The form fields for `schema`, or null when a form cannot represent it or
 * the current `args` (a key the schema does not describe, a value of
 * another type): then the JSON editor is used, so nothing is lost.
 */
export function formFields(schema: unknown, args: unknown): IArgField[] | null {
  if (!isObject(schema) || !isObject(schema.properties)) {
    return null;
  }
  if (schema.type !== undefined && schema.type !== 'object') {
    return null;
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields: IArgField[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (
      !isObject(property) ||
      !FIELD_TYPES.includes(property.type as ArgFieldType)
    ) {
      return null;
    }
    const options = Array.isArray(property.enum) ? property.enum : null;
    if (
      options &&
      !options.every(o => ['string', 'number'].includes(typeof o))
    ) {
      return null;
    }
    fields.push({
      name,
      type: property.type as ArgFieldType,
      title: typeof property.title === 'string' ? property.title : name,
      description:
        typeof property.description === 'string' ? property.description : null,
      required: required.includes(name),
      options
    });
  }
  if (fields.length === 0) {
    return null;
  }
  const current = args === undefined || args === null ? {} : args;
  if (!isObject(current)) {
    return null;
  }
  for (const [key, value] of Object.entries(current)) {
    const field = fields.find(f => f.name === key);
    if (!field || !fits(field.type, value)) {
      return null;
    }
  }
  return fields;
}

function fits(type: ArgFieldType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
  }
}
