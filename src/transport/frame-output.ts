/**
 * A turn's sink as the output of one source. Frames pass as they are: they
 * are typed already, decoded from outside bytes or built by the AG-UI
 * mapper. Diagnostics are prefixed with the source ("<url>: …").
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IFrameOutput } from '../agui/run-context';
import { translated } from '../contracts/problems';
import { type IProblem, problemText } from '../wire/problem';
import type { ITurnSink } from '../wire/turn';

/** Kept here for the transports that import it from this module. */
export { translated };

/**
 * A source's output. A diagnostic is a problem of the pure layers, which is
 * translated here, or the transport's own words, translated already.
 */
export interface ISourceOutput extends IFrameOutput {
  diagnostic(message: string | IProblem): void;
}

export function sinkOutput(
  sink: ITurnSink,
  source: string,
  trans: TranslationBundle
): ISourceOutput {
  return {
    frame: frame => sink.frame(frame),
    diagnostic: message => sink.diagnostic(atSource(source, message, trans)),
    // The pure layers do not log: what the producer got wrong is logged here.
    warning: found =>
      console.warn(`Agent Panel: ${source}: ${problemText(found)}`),
    finished: (memory, clientCalls) => {
      sink.remember?.(memory);
      if (clientCalls.length > 0) {
        sink.clientToolCalls?.(clientCalls);
      }
    }
  };
}

/** "<source>: <message>" */
export function atSource(
  source: string,
  message: string | IProblem,
  trans: TranslationBundle
): string {
  return trans.__('%1: %2', source, translated(message, trans));
}
