/**
 * Resolve in a new task, so the browser may render first. A message channel
 * has no 4 ms clamp, unlike a zero timeout.
 */
export function nextTask(): Promise<void> {
  if (typeof MessageChannel === 'undefined') {
    return new Promise(resolve => setTimeout(resolve, 0));
  }
  return new Promise(resolve => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
