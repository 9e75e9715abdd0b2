/** Small helpers for reading JSON of unknown shape, shared by every layer. */

export type JsonObject = Record<string, unknown>;

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
