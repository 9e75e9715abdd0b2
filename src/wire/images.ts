/**
 * How much image a request may carry (docs/protocol.md §16.7): the size of
 * base64 bytes and which images of a message or a tool result are sent.
 */

/** The decoded size of base64 `data`. */
export function byteSize(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** Images a model may get with one message or one tool result (docs/protocol.md §16.7). */
export const MAX_IMAGES = 4;
/** The largest image sent, once decoded. */
export const MAX_IMAGE_BYTES = 1024 * 1024;
/** All the images of one request together: well within the server's 4 MiB body limit in base64. */
export const MAX_IMAGES_BYTES = 2 * 1024 * 1024;

/**
 * The images that go, in order: each at most `MAX_IMAGE_BYTES`, at most
 * `MAX_IMAGES` of them and `MAX_IMAGES_BYTES` in all; the others are left
 * to their text.
 */
export function sendableImages<T extends { data: string }>(
  images: readonly T[]
): T[] {
  const sent: T[] = [];
  let total = 0;
  for (const image of images) {
    const size = byteSize(image.data);
    if (
      sent.length < MAX_IMAGES &&
      size <= MAX_IMAGE_BYTES &&
      total + size <= MAX_IMAGES_BYTES
    ) {
      sent.push(image);
      total += size;
    }
  }
  return sent;
}
