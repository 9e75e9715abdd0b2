import type { JsonObject } from '../../wire/json';

/** A notebook tool could not go on; `result` is what the agent gets. */
export class ToolFailure extends Error {
  constructor(readonly result: JsonObject) {
    super(String(result.error));
  }
}
