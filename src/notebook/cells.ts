/**
 * The notebook cells the panel inserts, as nbformat JSON, each recording
 * where it came from under the `agent_panel` metadata key.
 *
 * Pure: no JupyterLab imports (types only).
 */
import type * as nbformat from '@jupyterlab/nbformat';
import {
  bindingSource,
  displayStatement,
  markdownCode,
  markdownFence
} from './codegen';
import { identifierFor, uniqueName } from './naming';
import { extractionOutput } from './outputs';

/** The cell metadata key that records provenance. */
export const PROVENANCE_KEY = 'agent_panel';

/**
 * What an inserted cell records about its origin (a type alias, not an
 * interface, so it is assignable to JSON metadata).
 */
export type Provenance = {
  /**
   * What the cell was made from: an extraction, an answer's code block or
   * text (`message`); in an export also a user message, a tool call, a
   * review or a note (an error, a stop, the title); `notebook_tool`: the
   * agent created or changed the cell with a notebook tool.
   */
  kind:
    | 'extraction'
    | 'code'
    | 'message'
    | 'user'
    | 'tool'
    | 'review'
    | 'note'
    | 'notebook_tool';
  thread_id: string;
  /** ISO 8601 time of the insertion or export. */
  inserted_at: string;
  tool_name?: string;
  extracted_type?: string;
  /** The Python variable an extraction cell binds. */
  variable?: string;
  /** The language of an inserted code block. */
  language?: string;
  /** The model's id of the notebook tool call that made the change. */
  tool_call_id?: string;
  /** The user changed the agent's proposal before it applied. */
  edited_by_user?: boolean;
};

/** An extraction card's payload. */
export interface IExtraction {
  toolName: string;
  extractedType: string;
  data: unknown;
}

/** Where cells go: the conversation they come from and the kernel they meet. */
export interface ICellContext {
  threadId: string;
  /** ISO 8601 time stamped on the cells. */
  insertedAt: string;
  /** The notebook kernel's language; null when unknown (treated as Python). */
  kernelLanguage: string | null;
}

export type NotebookCell = nbformat.ICodeCell | nbformat.IMarkdownCell;

const ALIASES: Record<string, string> = {
  py: 'python',
  py3: 'python',
  python3: 'python',
  ipython: 'python',
  ipython3: 'python',
  js: 'javascript',
  node: 'javascript',
  ts: 'typescript',
  jl: 'julia',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash'
};

/** A language name in its canonical spelling (`py` → `python`). */
export function canonicalLanguage(language: string): string {
  const name = language.trim().toLowerCase();
  return ALIASES[name] ?? name;
}

/** Python kernels, and notebooks whose kernel is not known yet. */
export function isPythonKernel(kernelLanguage: string | null): boolean {
  return (
    kernelLanguage === null || canonicalLanguage(kernelLanguage) === 'python'
  );
}

/**
 * Whether a code block runs in the kernel: its language is the kernel's, or
 * it has none (an answer's unlabelled block is taken as code).
 */
export function runsInKernel(
  blockLanguage: string,
  kernelLanguage: string | null
): boolean {
  if (!blockLanguage.trim()) {
    return true;
  }
  return (
    canonicalLanguage(blockLanguage) ===
    canonicalLanguage(kernelLanguage ?? 'python')
  );
}

/**
 * A cell for an extraction. In a Python notebook: a code cell that binds a
 * fresh variable (added to `taken`) and displays the data, already showing
 * the output it displays when run; elsewhere a Markdown cell with the data
 * as a JSON block.
 */
export function extractionCell(
  extraction: IExtraction,
  taken: Set<string>,
  context: ICellContext
): { cell: NotebookCell; variable: string | null } {
  const { toolName, extractedType, data } = extraction;
  const provenance: Provenance = {
    kind: 'extraction',
    thread_id: context.threadId,
    inserted_at: context.insertedAt,
    tool_name: toolName,
    extracted_type: extractedType
  };
  if (!isPythonKernel(context.kernelLanguage)) {
    const heading = `${markdownCode(extractedType)} extracted by the tool ${markdownCode(toolName)}:`;
    return {
      cell: markdownCell(
        `${heading}\n\n${markdownFence(JSON.stringify(data, null, 2) ?? 'null', 'json')}`,
        provenance
      ),
      variable: null
    };
  }
  const variable = uniqueName(identifierFor(extractedType), taken);
  taken.add(variable);
  const options = { name: variable, data, toolName, extractedType };
  const output = extractionOutput(options);
  return {
    cell: {
      cell_type: 'code',
      source: `${bindingSource(options)}\n${displayStatement(output, variable, data)}`,
      // Trusted like any cell the user creates: its output is generated here
      // (JSON and text), and an untrusted cell would stop Jupyter signing
      // the notebook, so every rich output in it would come back untrusted
      // when the notebook is reopened.
      metadata: {
        trusted: true,
        [PROVENANCE_KEY]: { ...provenance, variable }
      },
      outputs: [output],
      execution_count: null
    },
    variable
  };
}

/**
 * A cell for a code block of an answer: a code cell when it runs in the
 * kernel, else a Markdown cell showing the fenced block.
 */
export function codeBlockCell(
  code: string,
  language: string,
  context: ICellContext
): NotebookCell {
  const provenance: Provenance = {
    kind: 'code',
    thread_id: context.threadId,
    inserted_at: context.insertedAt,
    language
  };
  if (!runsInKernel(language, context.kernelLanguage)) {
    return markdownCell(markdownFence(code, language), provenance);
  }
  return {
    cell_type: 'code',
    source: code.replace(/\n$/, ''),
    metadata: { trusted: true, [PROVENANCE_KEY]: { ...provenance } },
    outputs: [],
    execution_count: null
  };
}

export function markdownCell(
  source: string,
  provenance: Provenance
): nbformat.IMarkdownCell {
  return {
    cell_type: 'markdown',
    source,
    metadata: { [PROVENANCE_KEY]: { ...provenance } }
  };
}
