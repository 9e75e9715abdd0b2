/** What a transport uses when its options leave something out. */

/**
 * How long Stop waits for the producer to end the turn itself (its
 * `cancelled` frame or terminal event) before the panel ends it.
 */
export const CANCEL_GRACE_MS = 10_000;
