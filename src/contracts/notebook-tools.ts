/**
 * The notebook tools as the panel knows them (docs/protocol.md §12): their
 * declarations (generated from the Python tools into `notebook-tools.json`),
 * how a chunk-wire action request is recognised as a call of one, and the
 * result shapes the panel answers with.
 */
import { isObject, type JsonObject } from '../wire/json';
import type { IActionRequest } from '../wire/types';
import declarations from './notebook-tools.json';

/** The version of the convention this panel speaks (docs/protocol.md §12.8). */
export const NOTEBOOK_TOOL_VERSION = 1;

/** The key of an action request that marks a notebook tool call (docs/protocol.md §12.2). */
export const NOTEBOOK_TOOL_MARKER = 'jupyterlab_agent_panel';

/** A tool as offered to a model: its JSON Schema arguments and whether it changes the notebook. */
export interface INotebookToolDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  readonly mutates: boolean;
}

/** The eight tools, in the order of docs/protocol.md §12.1. */
export const NOTEBOOK_TOOLS: readonly INotebookToolDeclaration[] =
  declarations.tools as INotebookToolDeclaration[];

/** The declaration of the tool `name`, if it is a notebook tool. */
export function notebookTool(
  name: string | null
): INotebookToolDeclaration | undefined {
  return NOTEBOOK_TOOLS.find(tool => tool.name === name);
}

/** One call of a notebook tool, from either transport. */
export interface INotebookToolCall {
  readonly name: string;
  readonly args: unknown;
  /** The model's id for the call, when known. */
  readonly callId: string | null;
}

/**
 * The call an action request carries when it follows the convention this
 * panel knows (version 1, a known name); null for any other row, which is
 * reviewed as usual (docs/protocol.md §12.3).
 */
export function notebookToolCall(
  action: IActionRequest
): INotebookToolCall | null {
  const raw = action.raw;
  const marker = isObject(raw) ? raw[NOTEBOOK_TOOL_MARKER] : undefined;
  if (
    !isObject(marker) ||
    marker.notebook_tool !== NOTEBOOK_TOOL_VERSION ||
    !notebookTool(action.name)
  ) {
    return null;
  }
  return {
    name: action.name!,
    args: action.args,
    callId: typeof marker.tool_call_id === 'string' ? marker.tool_call_id : null
  };
}

/** The codes of a call that did not happen (docs/protocol.md §12.5). */
export type NotebookToolErrorCode =
  | 'bad_arguments'
  | 'no_notebook'
  | 'not_found'
  | 'stale'
  | 'not_code'
  | 'no_kernel'
  | 'read_only'
  | 'cancelled'
  | 'closed'
  | 'deleted'
  | 'kernel_restarted'
  | 'failed';

/** The result of a call that did not happen; `error` is written for the model. */
export function toolError(
  code: NotebookToolErrorCode,
  error: string
): JsonObject {
  return { status: 'error', code, error };
}

/** The result of a call the user rejected. */
export function toolRejected(reason: string | null): JsonObject {
  return { status: 'rejected', reason };
}
