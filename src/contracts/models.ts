/**
 * The models an endpoint offers its conversations (docs/protocol.md §16.3),
 * as the transport reads them and the model and views use them.
 */

/** One model on offer. */
export interface IOfferedModel {
  /** As LangChain's `init_chat_model` names it: `provider:model`. */
  id: string;
  provider: string;
  name: string;
  /** Its provider's package is installed and its key is set. */
  usable: boolean;
  /** What to do to make it usable; null when it is usable. */
  reason: string | null;
  /** Images reach it. */
  vision: boolean;
  /** Where the offer comes from: `configured`, `server`, … */
  source: string;
}

/** What an endpoint answers about its models. */
export interface IModelOffer {
  /** Whether a conversation may choose its model. */
  choosable: boolean;
  /** The model of a conversation that chose none; null: the keyless demo. */
  defaultModel: string | null;
  models: IOfferedModel[];
  /** Why some models may be missing (a local server did not answer, …). */
  problems: string[];
}

/** The offer of an endpoint that lets no conversation choose. */
export const NO_MODEL_CHOICE: IModelOffer = Object.freeze({
  choosable: false,
  defaultModel: null,
  models: [],
  problems: []
});

/** The longest model id a request or a saved conversation carries. */
export const MAX_MODEL_ID_CHARS = 256;

/** Whether `value` can name a model: a string of 1 to 256 characters. */
export function isModelId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_MODEL_ID_CHARS
  );
}

/** Whether `offer` lets a conversation choose the model `id`. */
export function offersModel(offer: IModelOffer, id: string): boolean {
  return offer.choosable && offer.models.some(model => model.id === id);
}
