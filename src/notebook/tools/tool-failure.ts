import { toolError } from '../../contracts/notebook-tools';
import type { JsonObject } from '../../wire/json';

/** A notebook tool could not go on; `result` is what the agent gets. */
export class ToolFailure extends Error {
  constructor(readonly result: JsonObject) {
    super(String(result.error));
  }
}

/** The notebook at `path` has no kernel to run a cell in. */
export function noKernel(path: string): ToolFailure {
  return new ToolFailure(
    toolError(
      'no_kernel',
      `${path} has no running kernel: start one, then run the cell again.`
    )
  );
}
