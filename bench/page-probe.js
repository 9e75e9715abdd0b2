/* global window, document, performance, PerformanceObserver, MutationObserver, Element */
/**
 * Added to every benchmarked page before its own scripts. Times a turn from
 * Send (Enter in a chat page's message box, or `startNow()` on the baseline
 * page) to the moment its end marker is in the DOM, and on to the moment
 * the page stops changing (a page may show the end of an answer before the
 * text above it), and collects the long tasks until then. The marker is the
 * text of the last delta, a paragraph of its own: in a chat page it is the
 * last element of a rendered answer (the user's message also holds it, but
 * never as a whole element), in the baseline the end of the text node.
 */
window.benchProbe = (() => {
  const longTasks = [];
  new PerformanceObserver(list => longTasks.push(...list.getEntries())).observe(
    {
      type: 'longtask',
      buffered: true
    }
  );
  let sentAt = null;
  document.addEventListener(
    'keydown',
    event => {
      if (
        event.key === 'Enter' &&
        event.target instanceof Element &&
        event.target.matches('textarea, input')
      ) {
        sentAt = performance.now();
      }
    },
    true
  );

  /** `node` or the last element of its last element (and so on) is the marker. */
  function endsWithMarkerElement(node, marker) {
    for (
      let element = node instanceof Element ? node : null;
      element;
      element = element.lastElementChild
    ) {
      if (element.childElementCount === 0) {
        return element.textContent === marker;
      }
    }
    return false;
  }

  function showsMarker(record, marker) {
    if (record.type === 'characterData') {
      return record.target.data.endsWith(marker);
    }
    if (endsWithMarkerElement(record.target, marker)) {
      return true;
    }
    for (const node of record.addedNodes) {
      if (endsWithMarkerElement(node, marker)) {
        return true;
      }
    }
    return false;
  }

  /** Resolves with the time `marker` appears under `root`. */
  function whenShown(root, marker, timeoutMs) {
    return new Promise((resolve, reject) => {
      const observer = new MutationObserver(records => {
        if (records.some(record => showsMarker(record, marker))) {
          const shownAt = performance.now();
          observer.disconnect();
          clearTimeout(timer);
          resolve(shownAt);
        }
      });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(
          new Error(`"${marker}" was not shown within ${timeoutMs / 1000} s`)
        );
      }, timeoutMs);
      observer.observe(root, {
        childList: true,
        subtree: true,
        characterData: true
      });
    });
  }

  /**
   * Resolves with the time of the last change under `root` once it has not
   * changed for `quietMs` (or `maxMs` have passed).
   */
  function whenQuiet(root, since, quietMs, maxMs) {
    return new Promise(resolve => {
      let lastChange = since;
      const done = () => {
        observer.disconnect();
        clearInterval(check);
        resolve(lastChange);
      };
      const observer = new MutationObserver(() => {
        lastChange = performance.now();
      });
      observer.observe(root, {
        childList: true,
        subtree: true,
        characterData: true,
        attributes: true
      });
      const check = setInterval(() => {
        const now = performance.now();
        if (now - lastChange >= quietMs || now - since >= maxMs) {
          done();
        }
      }, quietMs / 4);
    });
  }

  return {
    whenShown,
    /** Watch `rootSelector` for `marker`; `finished` resolves with the figures. */
    arm(rootSelector, marker, timeoutMs) {
      sentAt = null;
      longTasks.length = 0;
      const root = document.querySelector(rootSelector);
      this.finished = whenShown(root, marker, timeoutMs).then(async shownAt => {
        const settledAt = await whenQuiet(root, shownAt, 300, timeoutMs);
        // A long task is reported when it ends: let the last one end.
        await new Promise(resolve => setTimeout(resolve, 100));
        const during = longTasks.filter(
          task =>
            task.startTime + task.duration >= sentAt &&
            task.startTime <= settledAt
        );
        return {
          elapsedMs: shownAt - sentAt,
          settledMs: settledAt - sentAt,
          longTaskMs: during.map(task => task.duration)
        };
      });
    },
    startNow() {
      sentAt = performance.now();
    }
  };
})();
