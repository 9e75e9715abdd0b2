import { Sanitizer } from '@jupyterlab/apputils';
import type {
  IRenderMimeRegistry,
  MimeModel,
  RenderMimeRegistry
} from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import type { TranslationBundle } from '@jupyterlab/translation';

/**
 * A rendermime registry for agent output: everything the registry renders,
 * but through `AgentOutputSanitizer`. Agent output is untrusted input (it
 * echoes web pages, files and tool output), so beyond JupyterLab's sanitizer
 * it may not load anything from another origin, submit a form, replace the
 * lab with a link, or run a JupyterLab command on click.
 */
export function agentOutputRendermime(
  rendermime: IRenderMimeRegistry,
  trans: TranslationBundle
): IRenderMimeRegistry {
  return new AgentOutputRendermime(rendermime, new AgentOutputSanitizer(trans));
}

/**
 * The lab's registry seen through another sanitizer. Not a clone: a clone
 * copies the factories registered so far, and mime extensions (the JSON
 * viewer among them) may register theirs after this panel starts. So every
 * lookup goes to the lab's registry, and factory changes go there too.
 */
class AgentOutputRendermime implements IRenderMimeRegistry {
  constructor(
    private readonly _lab: IRenderMimeRegistry,
    readonly sanitizer: IRenderMime.ISanitizer
  ) {}

  get resolver(): IRenderMime.IResolver | null {
    return this._lab.resolver;
  }

  get linkHandler(): IRenderMime.ILinkHandler | null {
    return this._lab.linkHandler;
  }

  get trustHandler(): IRenderMime.ITrustHandler | null {
    return this._lab.trustHandler;
  }

  get latexTypesetter(): IRenderMime.ILatexTypesetter | null {
    return this._lab.latexTypesetter;
  }

  get markdownParser(): IRenderMime.IMarkdownParser | null {
    return this._lab.markdownParser;
  }

  get mimeTypes(): ReadonlyArray<string> {
    return this._lab.mimeTypes;
  }

  preferredMimeType(
    bundle: ReadonlyPartialJSONObject,
    safe?: 'ensure' | 'prefer' | 'any'
  ): string | undefined {
    return this._lab.preferredMimeType(bundle, safe);
  }

  createRenderer(mimeType: string): IRenderMime.IRenderer {
    const factory = this._lab.getFactory(mimeType);
    if (!factory) {
      throw new Error(`No factory for mime type: '${mimeType}'`);
    }
    const typesetter = this.latexTypesetter;
    return factory.createRenderer({
      mimeType,
      sanitizer: this.sanitizer,
      resolver: this.resolver,
      linkHandler: this.linkHandler,
      trustHandler: this.trustHandler,
      latexTypesetter:
        typesetter && mimeType === 'text/markdown'
          ? new MathOnlyTypesetter(typesetter)
          : typesetter,
      markdownParser: this.markdownParser,
      // Every RenderMimeRegistry has one; the interface does not name it.
      translator: (this._lab as Partial<RenderMimeRegistry>).translator
    });
  }

  createModel(options?: MimeModel.IOptions): MimeModel {
    return this._lab.createModel(options);
  }

  clone(options: IRenderMimeRegistry.ICloneOptions = {}): IRenderMimeRegistry {
    return this._lab.clone({ sanitizer: this.sanitizer, ...options });
  }

  getFactory(mimeType: string): IRenderMime.IRendererFactory | undefined {
    return this._lab.getFactory(mimeType);
  }

  addFactory(factory: IRenderMime.IRendererFactory, rank?: number): void {
    this._lab.addFactory(factory, rank);
  }

  removeMimeType(mimeType: string): void {
    this._lab.removeMimeType(mimeType);
  }

  getRank(mimeType: string): number | undefined {
    return this._lab.getRank(mimeType);
  }

  setRank(mimeType: string, rank: number): void {
    this._lab.setRank(mimeType, rank);
  }
}

/** What starts math for the typesetter: `$`, `\(`, `\[`, `\begin{`. */
const MATH_DELIMITER = /\$|\\\(|\\\[|\\begin\{/;

/**
 * Typesets only markdown that may hold math. The lab's typesetter (MathJax)
 * is loaded on its first use, close to a megabyte: an answer without math
 * must not pay for it, least of all the first answer after a page load.
 * Code is never typeset, so delimiters in code do not count.
 */
export class MathOnlyTypesetter implements IRenderMime.ILatexTypesetter {
  constructor(private readonly _typesetter: IRenderMime.ILatexTypesetter) {}

  typeset(element: HTMLElement): void | Promise<void> {
    if (mayHoldMath(element)) {
      return this._typesetter.typeset(element);
    }
  }
}

function mayHoldMath(element: HTMLElement): boolean {
  if (!MATH_DELIMITER.test(element.textContent ?? '')) {
    return false;
  }
  const texts = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let text = texts.nextNode(); text; text = texts.nextNode()) {
    if (
      MATH_DELIMITER.test((text as Text).data) &&
      !text.parentElement?.closest('code, pre')
    ) {
      return true;
    }
  }
  return false;
}

/** Markdown with what answers hold most: emphasis, code, lists, a table, Python. */
const WARM_UP_MARKDOWN = `## Warm-up

Some **bold**, some *emphasis*, \`inline code\`, a [link](https://example.org/) and — naïve café.

- a list item with \`code\`
- another, **bold**

1. first
2. second

> a quotation

| a | b |
| - | - |
| 1 | 2 |

\`\`\`python
import math
total = sum(math.sqrt(value) for value in range(10))
print(f"{total:.2f}")
\`\`\`
`;

/**
 * Render a sample answer, detached (nothing is typeset), a few times at
 * idle time: this loads what the lab's markdown parser loads on its first
 * use (the parser and its extensions, the highlighting of Python, the
 * language of most notebooks) and compiles the code of the parser, the
 * sanitizer and the highlighter, so the first answer pays for neither.
 */
export async function warmUpRenderers(
  rendermime: IRenderMimeRegistry,
  times = 3
): Promise<void> {
  for (let time = 0; time < times; time++) {
    const renderer = rendermime.createRenderer('text/markdown');
    const rendered = await renderer
      .renderModel(
        rendermime.createModel({
          data: { 'text/markdown': WARM_UP_MARKDOWN },
          trusted: false
        })
      )
      .then(
        () => true,
        reason => {
          console.warn('Agent Panel: could not warm up the renderers.', reason);
          return false;
        }
      );
    renderer.dispose();
    if (!rendered) {
      return;
    }
    await idle();
  }
}

/** Resolves when the page has nothing else to do (soon, where it cannot tell). */
export function idle(): Promise<void> {
  return new Promise(resolve => {
    if (typeof requestIdleCallback === 'function') {
      requestIdleCallback(() => resolve(), { timeout: 2000 });
    } else {
      setTimeout(resolve, 200);
    }
  });
}

/** Attributes whose URL the browser fetches (or submits to) by itself. */
const FETCHED_URL_ATTRIBUTES = [
  'src',
  'srcset',
  'poster',
  'background',
  'data',
  'action',
  'formaction',
  'lowsrc',
  'dynsrc',
  'longdesc',
  'ping',
  'xlink:href'
];

/**
 * Sanitized HTML the containing pass may change: an attribute with a value
 * (it needs `=`), a link (`href`, even without a value) or an image, form or
 * image map. Without any, every element it could touch is left as it is.
 */
const MAY_NEED_CONTAINING = /=|href|<(?:img|form|area)\b/i;

/** CSS that can fetch: `url(…)`, `image-set(…)`, or escapes that could hide them. */
const FETCHING_CSS = /url\s*\(|image(-set)?\s*\(|\\|@import|expression\s*\(/i;

/**
 * JupyterLab's sanitizer (without command-linker attributes), then a pass
 * over the result in an inert `<template>` (nothing in it loads or runs):
 *
 * - an image that is not a `data:` URL becomes a link to it that opens in
 *   a new tab, so the agent cannot make the browser call a server (an image
 *   beacon can carry data out in its URL);
 * - any other URL the browser would fetch by itself, and any style that
 *   could fetch, is removed;
 * - every link opens in a new tab without opener or referrer;
 * - a form becomes a plain block, so no button can submit anything.
 */
export class AgentOutputSanitizer implements IRenderMime.ISanitizer {
  constructor(private readonly _trans: TranslationBundle) {
    this._base.setAllowCommandLinker(false);
  }

  get allowNamedProperties(): boolean {
    return this._base.allowNamedProperties;
  }

  getAutolink(): boolean {
    return this._base.getAutolink();
  }

  sanitize(dirty: string, options?: IRenderMime.ISanitizerOptions): string {
    const sanitized = this._base.sanitize(dirty, options);
    if (!MAY_NEED_CONTAINING.test(sanitized)) {
      // The common case while text streams: the pass below would change
      // nothing, and parsing and serializing it again costs every render.
      return sanitized;
    }
    const template = document.createElement('template');
    template.innerHTML = sanitized;
    for (const element of Array.from(template.content.querySelectorAll('*'))) {
      this._contain(element);
    }
    return template.innerHTML;
  }

  private _contain(element: Element): void {
    const tag = element.localName;
    if (tag === 'img' && !isInline(element.getAttribute('src'))) {
      element.replaceWith(this._remoteImageLink(element));
      return;
    }
    for (const name of FETCHED_URL_ATTRIBUTES) {
      const value = element.getAttribute(name);
      if (value !== null && !isInline(value, name === 'srcset')) {
        element.removeAttribute(name);
      }
    }
    if (tag !== 'a' && tag !== 'area') {
      element.removeAttribute('href');
    }
    if (FETCHING_CSS.test(element.getAttribute('style') ?? '')) {
      element.removeAttribute('style');
    }
    if (element.hasAttribute('href')) {
      openElsewhere(element);
    }
    if (tag === 'form') {
      const block = document.createElement('div');
      block.className = element.className;
      block.append(...Array.from(element.childNodes));
      element.replaceWith(block);
    }
  }

  private _remoteImageLink(image: Element): HTMLElement {
    const src = image.getAttribute('src') ?? '';
    const alt = image.getAttribute('alt') || this._trans.__('image');
    const target = webUrl(src);
    const link = document.createElement(target ? 'a' : 'span');
    link.className = 'jp-AgentPanel-remoteImage';
    link.textContent = this._trans.__('[remote image not loaded: %1]', alt);
    if (target) {
      link.setAttribute('href', target.href);
      link.title = this._trans.__(
        'Open %1 in a new tab (the panel does not load images from other servers)',
        target.href
      );
      openElsewhere(link);
    }
    return link;
  }

  private readonly _base = new Sanitizer();
}

/** A link that opens in a new tab, with no access to this page. */
function openElsewhere(element: Element): void {
  element.setAttribute('target', '_blank');
  element.setAttribute('rel', 'noopener noreferrer');
  element.setAttribute('referrerpolicy', 'no-referrer');
}

/**
 * Whether `value` loads nothing over the network: missing, empty or a
 * `data:` URL. Same-origin URLs are refused too: there is no resolver for
 * agent output (a relative image would not find a notebook's file anyway)
 * and a GET on the lab's own server can have effects (`/logout`). `srcset`
 * lists several URLs; all must be inline.
 */
function isInline(value: string | null, isSrcset = false): boolean {
  if (value === null || !value.trim()) {
    return true;
  }
  const urls = isSrcset
    ? value.split(',').map(candidate => candidate.trim().split(/\s+/)[0])
    : [value.trim()];
  return urls.every(url => /^data:/i.test(url));
}

/** `value` as an http(s) URL, or null. */
function webUrl(value: string): URL | null {
  try {
    const url = new URL(value, document.baseURI);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
