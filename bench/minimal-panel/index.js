/* global document */
/**
 * The in-lab limit of the render benchmarks (bench/render.js): a sidebar in
 * the agent panel's own JupyterLab page that does the least a panel can do
 * with a turn. Enter in its message box posts the message to the stream the
 * agent panel reads (the chunk-wire endpoint `bench-stream/` of
 * bench/bench_proxy.py, its `chat` route) and shows it exactly as the bare
 * page does (bench/limit-stream.js): the text deltas of each read appended to
 * one text node; no markdown, no sanitizer, no views per block, no scrolling.
 * What it costs beyond the bare page is JupyterLab's page around it.
 *
 * Built by scripts/bench (`build-labextension` of the root's
 * `@jupyter/builder`) and installed only in the agent panel's bench lab
 * (bench/lab.js); never shipped.
 */
import { Widget } from '@lumino/widgets';

import { streamInto } from '../limit-stream.js';

const ID = 'bench-minimal-panel';

function element(tag, className) {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}

/** Answers (one `<pre>` each), a message box and New; `data-busy` while a turn streams. */
class MinimalPanel extends Widget {
  constructor(chatUrl) {
    super();
    this.id = ID;
    this.title.label = 'Minimal';
    this.title.caption = 'Bench: the in-lab limit';
    this.node.style.cssText =
      'display: flex; flex-direction: column; overflow: hidden;';
    this._chatUrl = chatUrl;
    this._transcript = element('div', 'bench-MinimalPanel-transcript');
    this._transcript.style.cssText = 'flex: 1 1 auto; overflow: auto;';
    this._input = element('textarea', 'bench-MinimalPanel-input');
    this._input.addEventListener('keydown', event => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        this._send();
      }
    });
    const clear = element('button', 'bench-MinimalPanel-new');
    clear.textContent = 'New';
    clear.addEventListener('click', () => this._transcript.replaceChildren());
    this.node.append(this._transcript, this._input, clear);
  }

  _send() {
    if ('busy' in this.node.dataset) {
      return;
    }
    const message = this._input.value;
    this._input.value = '';
    const answer = element('pre', 'bench-MinimalPanel-answer');
    const text = document.createTextNode('');
    answer.append(text);
    this._transcript.append(answer);
    this.node.dataset.busy = '';
    streamInto(this._chatUrl, message, 'minimal', text)
      .catch(error => console.error('bench minimal panel:', error))
      .finally(() => delete this.node.dataset.busy);
  }
}

export default {
  id: 'agent-panel-bench-minimal-panel:plugin',
  description: 'The render benchmarks’ in-lab limit.',
  autoStart: true,
  activate(app) {
    const chatUrl = `${app.serviceManager.serverSettings.baseUrl}bench-stream/chat`;
    // The right side, as the agent panel: the same room in the same page.
    app.shell.add(new MinimalPanel(chatUrl), 'right', { rank: 1000 });
  }
};
