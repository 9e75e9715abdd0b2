/**
 * A turn's sink as the output of one source. Frames pass as they are: they
 * are typed already, decoded from outside bytes or built by the AG-UI
 * mapper. Diagnostics are prefixed with the source ("<url>: …").
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IFrameOutput } from '../agui/to-chunk-frames';
import type { ITurnSink } from '../wire/turn';

export function sinkOutput(
  sink: ITurnSink,
  source: string,
  trans: TranslationBundle
): IFrameOutput {
  return {
    frame: frame => sink.frame(frame),
    diagnostic: message => sink.diagnostic(atSource(source, message, trans))
  };
}

/** "<source>: <message>" */
export function atSource(
  source: string,
  message: string,
  trans: TranslationBundle
): string {
  return trans.__('%1: %2', source, message);
}
