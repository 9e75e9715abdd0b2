/**
 * The models each endpoint offers (docs/protocol.md §16.3), asked at most
 * once per endpoint every `maxAgeMs` unless asked again explicitly: the
 * panel refreshes on many events (another conversation, the settings, an
 * endpoint switch), and one answer serves them all.
 */
import { NO_MODEL_CHOICE, type IModelOffer } from '../../contracts/models';
import { sameEndpoint, type IEndpointSettings } from '../../contracts/settings';
import type { IAgentTransport } from '../../contracts/transport';
import { errorMessage } from '../../wire/json';

/** How long an answer (or a failure) stands for its endpoint. */
export const MODEL_OFFER_MAX_AGE_MS = 30000;

interface IAsked {
  /** The endpoint as it was asked: other settings under its name ask again. */
  endpoint: IEndpointSettings;
  at: number;
  /** The offer; null when the endpoint could not be asked or read. */
  answer: Promise<IModelOffer | null>;
}

export class ModelOffers {
  constructor(
    private readonly _maxAgeMs = MODEL_OFFER_MAX_AGE_MS,
    private readonly _now: () => number = Date.now
  ) {}

  /**
   * What `endpoint` offers, asked through `transport` (its transport)
   * unless it was asked less than `maxAgeMs` ago and `fresh` is not set.
   * Null when it could not be asked or read (the failure is logged once).
   * A transport that lists no models offers no choice.
   */
  offerOf(
    endpoint: IEndpointSettings,
    transport: IAgentTransport,
    fresh = false
  ): Promise<IModelOffer | null> {
    if (!transport.listModels) {
      return Promise.resolve(NO_MODEL_CHOICE);
    }
    const now = this._now();
    const asked = this._asked.get(endpoint.name);
    if (
      !fresh &&
      asked &&
      sameEndpoint(asked.endpoint, endpoint) &&
      now - asked.at < this._maxAgeMs
    ) {
      return asked.answer;
    }
    const answer = transport.listModels().catch(error => {
      console.warn(
        `Agent Panel: could not list the models of endpoint "${endpoint.name}": ${errorMessage(error)}`
      );
      return null;
    });
    this._asked.set(endpoint.name, { endpoint, at: now, answer });
    return answer;
  }

  private readonly _asked = new Map<string, IAsked>();
}
