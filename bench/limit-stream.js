/* global fetch, TextDecoder */
/**
 * How the render benchmarks' limits show a turn, one implementation for both:
 * the bare page (bench/baseline.html, served with this file by
 * bench/stream-server.js) and the minimal panel in JupyterLab's page
 * (bench/minimal-panel/index.js, which bundles it). POST the message to a
 * chunk-wire `chat` route, parse each read's SSE events and append their text
 * deltas to `text` at once: one `appendData` per read, because one per delta
 * copies the whole text every time (10,000 deltas take seconds).
 */
export async function streamInto(chatUrl, message, threadId, text) {
  const response = await fetch(chatUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream'
    },
    body: JSON.stringify({ message, thread_id: threadId })
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return;
    }
    pending += decoder.decode(value, { stream: true });
    let deltas = '';
    let start = 0;
    let end;
    while ((end = pending.indexOf('\n\n', start)) >= 0) {
      const frame = JSON.parse(pending.slice(start + 'data: '.length, end));
      if (frame.chunk) {
        deltas += frame.chunk;
      }
      start = end + 2;
    }
    pending = pending.slice(start);
    if (deltas) {
      text.appendData(deltas);
    }
  }
}
