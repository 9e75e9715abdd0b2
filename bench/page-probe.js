/* global window, document, performance, PerformanceObserver, MutationObserver, Element */
/**
 * Added to every benchmarked page before its own scripts. Times a turn from
 * Send (Enter in the panel's message box, or `startNow()` on the baseline
 * page) to the moment its end marker is in the DOM, and collects the long
 * tasks in between. The marker is the text of the last delta, a paragraph of
 * its own: in the panel it is the last element of a rendered markdown block,
 * in the baseline the end of the text node.
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
        event.target.matches('.jp-AgentPanel-input')
      ) {
        sentAt = performance.now();
      }
    },
    true
  );

  function showsMarker(record, marker) {
    if (record.type === 'characterData') {
      return record.target.data.endsWith(marker);
    }
    const host = record.target.closest('.jp-RenderedMarkdown');
    return host?.lastElementChild?.textContent === marker;
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

  return {
    whenShown,
    /** Watch `rootSelector` for `marker`; `finished` resolves with the figures. */
    arm(rootSelector, marker, timeoutMs) {
      sentAt = null;
      longTasks.length = 0;
      this.finished = whenShown(
        document.querySelector(rootSelector),
        marker,
        timeoutMs
      ).then(async shownAt => {
        // A long task is reported when it ends: let the one showing the marker end.
        await new Promise(resolve => setTimeout(resolve, 300));
        const during = longTasks.filter(
          task =>
            task.startTime + task.duration >= sentAt &&
            task.startTime <= shownAt
        );
        return {
          elapsedMs: shownAt - sentAt,
          longTaskMs: during.map(task => task.duration)
        };
      });
    },
    startNow() {
      sentAt = performance.now();
    }
  };
})();
