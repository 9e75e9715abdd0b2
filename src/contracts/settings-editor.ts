/**
 * What JupyterLab's Settings Editor gets of the settings and writes back.
 *
 * "Default endpoint" is picked among the endpoints the settings define, so
 * the form offers their names (`defaultEndpointChoices`) rather than free text.
 *
 * Its form saves the whole composite whenever one field changes: every
 * property, defaults included (`SettingsFormEditor` in
 * `@jupyterlab/settingeditor`). Kept as written, that would pin today's
 * defaults in the user's settings, so `formWrittenChanges` cuts such a write
 * down to what the user changed.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { isObject, type JsonObject, sameJson } from '../wire/json';
import {
  BUILT_IN_ENDPOINTS,
  parseEndpoint,
  sameEndpoint
} from './endpoint-settings';
import { parseSettings } from './settings';
import { FieldReader } from './settings-fields';
import { panelStrings } from './translation';

/** One option of the Settings Editor's "Default endpoint" select. */
export interface IEndpointChoice {
  value: string;
  label: string;
}

/**
 * The names "Default endpoint" can take with these settings, in the order of
 * the panel's header; a current value no endpoint has stays, marked, so the
 * form shows what is saved.
 */
export function defaultEndpointChoices(
  composite: unknown,
  current: unknown,
  trans: TranslationBundle
): IEndpointChoice[] {
  const { endpoints } = parseSettings(composite, trans).settings;
  const choices = endpoints.map(({ name }) => ({ value: name, label: name }));
  if (typeof current === 'string' && !endpoints.some(e => e.name === current)) {
    choices.push({
      value: current,
      label: trans.__('%1 (no endpoint has this name)', current)
    });
  }
  return choices;
}

/**
 * The user settings without what the form filled in, or null when they are
 * not a form's write (not every property of the schema is there) or hold
 * nothing to drop. Dropped: values equal to their schema default, down into
 * objects and endpoint entries (required fields stay), and copies of a
 * built-in endpoint (the form wrote them while they were the default list).
 */
export function formWrittenChanges(
  user: JsonObject,
  schema: JsonObject
): JsonObject | null {
  const properties = isObject(schema.properties) ? schema.properties : {};
  if (!Object.keys(properties).every(key => key in user)) {
    return null;
  }
  const own = Array.isArray(user.endpoints)
    ? { ...user, endpoints: user.endpoints.filter(e => !isBuiltInCopy(e)) }
    : user;
  const changes = withoutDefaults(own, schema, schema) as JsonObject;
  return sameJson(changes, user) ? null : changes;
}

/** Whether an entry of `endpoints` would build a built-in endpoint as it is. */
function isBuiltInCopy(entry: unknown): boolean {
  const read = new FieldReader([], panelStrings());
  const endpoint = parseEndpoint(entry, 'endpoint', read)?.endpoint;
  return (
    !!endpoint &&
    BUILT_IN_ENDPOINTS.some(builtIn => sameEndpoint(builtIn, endpoint))
  );
}

/** `value` without the fields `schema` would give it anyway. */
function withoutDefaults(
  value: unknown,
  schema: JsonObject,
  root: JsonObject
): unknown {
  const resolved = resolveRef(schema, root);
  if (Array.isArray(value) && isObject(resolved.items)) {
    const items = resolved.items;
    return value.map(item => withoutDefaults(item, items, root));
  }
  if (!isObject(value) || !isObject(resolved.properties)) {
    return value;
  }
  const properties = resolved.properties;
  const required = Array.isArray(resolved.required) ? resolved.required : [];
  const kept: JsonObject = {};
  for (const [key, field] of Object.entries(value)) {
    const property = isObject(properties[key])
      ? resolveRef(properties[key], root)
      : null;
    if (!property) {
      kept[key] = field;
    } else if (
      required.includes(key) ||
      !('default' in property) ||
      !sameJson(field, property.default)
    ) {
      kept[key] = withoutDefaults(field, property, root);
    }
  }
  return kept;
}

/** A local `$ref` (`#/definitions/…`) replaced by what it names. */
function resolveRef(schema: JsonObject, root: JsonObject): JsonObject {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) {
    return schema;
  }
  let target: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    target = isObject(target) ? target[part] : undefined;
  }
  return isObject(target) ? target : schema;
}
