/**
 * A whole turn's frames at once, decoded and reduced as a live stream's
 * are, then the EOF rule: a thread read back (docs/protocol.md §15.5).
 */
import { decodeFrame } from './frames';
import { TurnReducer } from './reduce';

/** Decode and reduce `frames` (text or parsed); a bad one is a diagnostic. */
export function reduceFrames(frames: readonly unknown[]): TurnReducer {
  const reducer = new TurnReducer();
  for (const input of frames) {
    const decoded = decodeFrame(input);
    if (decoded.ok) {
      reducer.apply(decoded.frame);
    } else {
      reducer.diagnostic(decoded.reason);
    }
  }
  reducer.endOfStream();
  return reducer;
}
