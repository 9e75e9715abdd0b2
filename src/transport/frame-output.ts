/**
 * The adapter's frames into a transport's sink: each JSON frame goes through
 * the same `decodeFrame` every chunk-wire producer goes through.
 */
import type { ITurnSink } from '../wire/turn';
import { decodeFrame } from '../wire/frames';
import type { IFrameOutput } from '../agui/to-chunk-frames';

export function sinkOutput(sink: ITurnSink, source: string): IFrameOutput {
  return {
    frame: frame => {
      const decoded = decodeFrame(frame);
      if (decoded.ok) {
        sink.frame(decoded.frame);
      } else {
        sink.diagnostic(`${source}: ${decoded.reason}`);
      }
    },
    diagnostic: message => sink.diagnostic(`${source}: ${message}`)
  };
}
