/** What a transport uses when its options leave something out. */
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

/**
 * How long Stop waits for the producer to end the turn itself (its
 * `cancelled` frame or terminal event) before the panel ends it.
 */
export const CANCEL_GRACE_MS = 10_000;

/** The bundle a transport words its messages with; English by default. */
export function bundleOrDefault(trans?: TranslationBundle): TranslationBundle {
  return trans ?? nullTranslator.load('jupyterlab_agent_panel');
}
