/**
 * Shared fakes for the panel tests: a real rendermime registry with a
 * recording markdown parser, a view context, DOM event helpers (and the
 * transport fakes, re-exported).
 */
import './clipboard-shim';
import {
  RenderMimeRegistry,
  standardRendererFactories
} from '@jupyterlab/rendermime';
import { CommandRegistry } from '@lumino/commands';
import {
  DEFAULT_SETTINGS,
  type IPanelSettings
} from '../../contracts/settings';
import type { IItemAction } from '../../contracts/extension-points';
import type { InterruptResponse } from '../../wire/types';
import type { Decision, IInterruptCard } from '../../wire/types';
import type { ITurnViewContext } from '../../panel/transcript/turn-view';

import type { AgentPanelService } from '../../model/agent-panel-service';
import { ConversationLibrary } from '../../model/library/library';
import type { IConversationStore } from '../../transport/server/conversation-store';
import { FakeConversationStore } from './store-fakes';
import { trans as bundle } from './fake-transport';
import { panelStrings } from '../../contracts/translation';
export { chunk, complete, FakeTransport, frame, trans } from './fake-transport';

/** Sources the markdown parser was asked to render, in order. */
export const renderedMarkdown: string[] = [];
/** Nodes the LaTeX typesetter was asked to typeset (only attached renderers are). */
export const typesetNodes: HTMLElement[] = [];

export function makeRendermime(): RenderMimeRegistry {
  return new RenderMimeRegistry({
    initialFactories: standardRendererFactories,
    latexTypesetter: { typeset: node => void typesetNodes.push(node) },
    markdownParser: {
      render: async (source: string) => {
        renderedMarkdown.push(source);
        const { marked } = await import('marked');
        return marked.parse(source, { async: false }) as string;
      }
    }
  });
}

export interface ITestContext extends ITurnViewContext {
  decisions: Decision[][];
  /** What `onResponse` got: each AG-UI request answered, with its answer. */
  responses: [IInterruptCard, InterruptResponse][];
  retries: number;
  /** What `onDecisions` answers (false: the model refused). */
  accept: boolean;
}

export function makeContext(
  overrides: Partial<IPanelSettings> = {},
  actions: IItemAction[] = []
): ITestContext {
  const context: ITestContext = {
    rendermime: makeRendermime(),
    trans: panelStrings(),
    commands: new CommandRegistry(),
    itemActions: () => actions,
    settings: () => ({ ...DEFAULT_SETTINGS, ...overrides }),
    decisions: [],
    responses: [],
    retries: 0,
    accept: true,
    onDecisions: decisions => {
      context.decisions.push(decisions);
      return context.accept;
    },
    onResponse: (card, response) => {
      context.responses.push([card, response]);
      return context.accept;
    },
    onRetry: () => {
      context.retries += 1;
    }
  };
  return context;
}

/** Wait for the next animation frame, then let pending renders finish. */
export async function afterFrame(): Promise<void> {
  await new Promise<void>(resolve => requestAnimationFrame(() => resolve()));
  for (let i = 0; i < 20; i++) {
    await Promise.resolve();
  }
  await new Promise(resolve => setTimeout(resolve, 0));
}

export function click(element: Element | null | undefined): void {
  if (!element) {
    throw new Error('nothing to click');
  }
  (element as HTMLElement).dispatchEvent(
    new MouseEvent('click', { bubbles: true })
  );
}

/** Type into an input or textarea as a user would (fires `input`). */
export function typeInto(element: Element | null, value: string): void {
  if (!element) {
    throw new Error('nothing to type into');
  }
  (element as HTMLInputElement).value = value;
  element.dispatchEvent(new Event('input', { bubbles: true }));
}

/** Resolve with `find()` once it returns something (React renders later). */
export async function waitFor<T>(
  find: () => T | null | undefined,
  timeoutMs = 5000
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const found = find();
    if (found) {
      return found;
    }
    if (Date.now() - start > timeoutMs) {
      throw new Error('waitFor: timed out');
    }
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

/** A library for a panel under test, on an in-memory store. */
export function libraryFor(
  service: AgentPanelService,
  store: IConversationStore = new FakeConversationStore()
): ConversationLibrary {
  return new ConversationLibrary({
    service,
    store,
    threads: null,
    state: null,
    trans: bundle,
    saver: { unloadStore: null, page: new EventTarget() }
  });
}
