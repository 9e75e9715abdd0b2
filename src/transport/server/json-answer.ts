/**
 * Reading the JSON answers of this server's agent-panel routes: their
 * errors are `{"message", "reason"}` (docs/protocol.md §6.3).
 */
import { isObject } from '../../wire/json';

export interface IJsonAnswer {
  /** The parsed body; undefined when it is not JSON, null when empty. */
  body: unknown;
  text: string;
}

export async function jsonAnswer(response: Response): Promise<IJsonAnswer> {
  const text = await response.text();
  try {
    return { body: text ? JSON.parse(text) : null, text };
  } catch {
    // Not JSON: e.g. the server's HTML page of a route it does not have.
    return { body: undefined, text };
  }
}

/** A refusal as an error naming the route, the status and the server's message. */
export function answerError(
  url: string,
  status: number,
  { body, text }: IJsonAnswer
): Error {
  const message =
    isObject(body) && typeof body.message === 'string'
      ? body.message
      : text.slice(0, 200);
  return new Error(`${url} answered ${status}: ${message}`);
}

/** `value` when it is a finite number, else 0. */
export function finiteNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
