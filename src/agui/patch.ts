/**
 * RFC 6902 JSON Patch for `STATE_DELTA` and `ACTIVITY_DELTA`, through
 * fast-json-patch. A patch is applied to a copy and all or nothing: a failing
 * operation leaves the document as it was and says why.
 */
import { applyPatch, type Operation } from 'fast-json-patch';
import { errorMessage } from '../wire/json';

export type PatchResult =
  { ok: true; value: unknown } | { ok: false; reason: string };

export function patched(document: unknown, patch: unknown): PatchResult {
  if (!Array.isArray(patch)) {
    return { ok: false, reason: 'the patch is not a list of operations' };
  }
  try {
    // Validate each operation; never mutate the caller's document (a copy
    // costs O(size) per delta, which keeps a failed patch from leaving a
    // half-patched state behind).
    const result = applyPatch(document, patch as Operation[], true, false);
    return { ok: true, value: result.newDocument };
  } catch (error) {
    return {
      ok: false,
      reason: errorMessage(error).split('\n')[0]
    };
  }
}
