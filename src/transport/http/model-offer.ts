/**
 * Reading an endpoint's `GET models` answer (docs/protocol.md §16.3) into a
 * typed offer: a model that cannot be read is left out, and why goes with
 * the offer's problems, so nothing downstream sees the raw JSON.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import {
  isModelId,
  type IModelOffer,
  type IOfferedModel,
  NO_MODEL_CHOICE
} from '../../contracts/models';
import { isObject } from '../../wire/json';
import { jsonFields } from './http-answer';

/**
 * The offer in `body`: none when it is not JSON (a server without the
 * route); throws when it is JSON but no models answer.
 */
export function readModelOffer(
  body: string,
  url: string,
  trans: TranslationBundle
): IModelOffer {
  const fields = jsonFields(body);
  if (fields === null) {
    return NO_MODEL_CHOICE;
  }
  if (typeof fields.choosable !== 'boolean') {
    throw new Error(
      trans.__('%1 answered without "choosable": not a list of models', url)
    );
  }
  const problems = textsOf(fields.problems, trans);
  const models: IOfferedModel[] = [];
  const raw = Array.isArray(fields.models) ? fields.models : [];
  if (fields.models !== undefined && !Array.isArray(fields.models)) {
    problems.push(trans.__('"models" is not a list; no model is offered'));
  }
  raw.forEach((item, index) => {
    const model = readModel(item, trans);
    const duplicate =
      typeof model !== 'string' && models.some(m => m.id === model.id);
    if (typeof model === 'string' || duplicate) {
      problems.push(
        trans.__(
          'models[%1] was left out: %2',
          index,
          duplicate ? trans.__('its id is listed already') : model
        )
      );
    } else {
      models.push(model);
    }
  });
  let defaultModel: string | null = null;
  if (isModelId(fields.default)) {
    defaultModel = fields.default;
  } else if (fields.default !== null && fields.default !== undefined) {
    problems.push(
      trans.__('the default model is not a model id; the demo is assumed')
    );
  }
  return { choosable: fields.choosable, defaultModel, models, problems };
}

/** One model, or why it cannot be read. */
function readModel(
  item: unknown,
  trans: TranslationBundle
): IOfferedModel | string {
  if (!isObject(item)) {
    return trans.__('it is not an object');
  }
  const { id, usable } = item;
  if (!isModelId(id)) {
    return trans.__('it has no model id');
  }
  if (typeof usable !== 'boolean') {
    return trans.__('%1 does not say whether it is usable', id);
  }
  const colon = id.indexOf(':');
  return {
    id,
    provider: stringOr(item.provider, colon > 0 ? id.slice(0, colon) : ''),
    name: stringOr(item.name, id.slice(colon + 1)),
    usable,
    reason: usable ? null : stringOr(item.reason, '') || null,
    vision: item.vision === true,
    source: stringOr(item.source, '')
  };
}

/** The strings of a list of problems; anything else is noted as unreadable. */
function textsOf(value: unknown, trans: TranslationBundle): string[] {
  if (value === undefined) {
    return [];
  }
  const items = Array.isArray(value) ? value : [value];
  const texts = items.filter(
    (item): item is string => typeof item === 'string'
  );
  if (texts.length < items.length) {
    texts.push(trans.__('some of the problems reported are not text'));
  }
  return texts;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
