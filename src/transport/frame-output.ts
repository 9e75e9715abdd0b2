/**
 * A turn's sink as the output of one source. Frames pass as they are: they
 * are typed already, decoded from outside bytes or built by the AG-UI
 * mapper. Diagnostics are prefixed with the source ("<url>: …").
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IFrameOutput } from '../agui/to-chunk-frames';
import type { IProblem } from '../wire/problem';
import type { ITurnSink } from '../wire/turn';

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
    diagnostic: message => sink.diagnostic(atSource(source, message, trans))
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

/** A problem of the pure layers in the user's language; words as they are. */
export function translated(
  message: string | IProblem,
  trans: TranslationBundle
): string {
  if (typeof message === 'string') {
    return message;
  }
  // The template is a literal in wire/ or agui/, which have no translator.
  // eslint-disable-next-line jupyter/no-dynamic-translation
  return trans.__(message.template, ...message.args.map(String));
}
