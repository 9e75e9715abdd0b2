/**
 * The HTTP idle timeout: each frame starts it again (the timer is not
 * re-armed per frame, only checked when due), and a quiet stream fails.
 */
import { ChunkWireHttpTransport } from '../../transport/http/http';
import type { IByteStream } from '../../transport/http/sse';
import type { ITurnSink } from '../../wire/turn';

const IDLE_MS = 300;
const FRAME_EVERY_MS = 25;
/** Frames for twice the idle timeout, then silence. */
const FRAMES = (2 * IDLE_MS) / FRAME_EVERY_MS;

/** An event-stream body: a frame every `FRAME_EVERY_MS`, then nothing. */
function quietAfterFrames(): IByteStream {
  const encoder = new TextEncoder();
  let sent = 0;
  return {
    getReader: () => ({
      read: () =>
        new Promise<{ done: boolean; value?: Uint8Array }>(resolve => {
          if (sent === FRAMES) {
            return; // Quiet for good: only the idle timeout ends the turn.
          }
          setTimeout(() => {
            sent += 1;
            const frame = { status: 'streaming', chunk: `${sent} ` };
            resolve({
              done: false,
              value: encoder.encode(`data: ${JSON.stringify(frame)}\n\n`)
            });
          }, FRAME_EVERY_MS);
        }),
      cancel: async () => undefined
    })
  };
}

it('fails a stream that goes quiet, not one that keeps sending', async () => {
  const frames: number[] = [];
  let ending: { failure?: string; framesBefore: number } | null = null;
  const sink: ITurnSink = {
    frame: () => void frames.push(Date.now()),
    diagnostic: () => undefined,
    end: failure => {
      ending = { failure, framesBefore: frames.length };
    }
  };
  const transport = new ChunkWireHttpTransport({
    baseUrl: 'http://127.0.0.1:1/agent-panel/',
    connectTimeoutMs: 1000,
    idleTimeoutMs: IDLE_MS,
    fetch: async () =>
      ({
        ok: true,
        status: 200,
        headers: new Headers({ 'Content-Type': 'text/event-stream' }),
        body: quietAfterFrames()
      }) as unknown as Response
  });
  await transport.startTurn(
    { kind: 'chat', threadId: 't', message: 'hi' },
    sink
  ).done;
  expect(ending).toEqual({
    failure: expect.stringContaining('idle timeout'),
    framesBefore: FRAMES
  });
  // It failed once quiet for the timeout, not before.
  const quietFor = Date.now() - frames[frames.length - 1];
  expect(quietFor).toBeGreaterThanOrEqual(IDLE_MS - 5);
  transport.dispose();
});
