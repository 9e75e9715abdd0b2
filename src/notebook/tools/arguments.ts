/**
 * A notebook tool call's arguments checked against the tool's JSON Schema
 * (docs/protocol.md §12.7), defaults filled in, plus the two rules across
 * arguments the schemas cannot say. Bad arguments give the `bad_arguments`
 * result the Python tools give, never an exception.
 *
 * Pure: no JupyterLab imports.
 */
import {
  type INotebookToolDeclaration,
  notebookTool,
  toolError
} from '../../contracts/notebook-tools';
import { isObject, type JsonObject } from '../../wire/json';
import { validateJson } from '../../wire/json-schema';
import { problemText } from '../../wire/problem';

export type CheckedArguments =
  | { ok: true; tool: INotebookToolDeclaration; args: JsonObject }
  | { ok: false; result: JsonObject };

/**
 * `args` of a call of `name`, checked, with every default filled in.
 * `schemaChecked`: the client-tool registry checked them against the same
 * schema already (an AG-UI call, docs/protocol.md §8.11) and answered a
 * mismatch itself, so only the rules across arguments are left.
 */
export function checkArguments(
  name: string,
  args: unknown,
  schemaChecked = false
): CheckedArguments {
  const tool = notebookTool(name);
  if (!tool) {
    return {
      ok: false,
      result: toolError(
        'bad_arguments',
        `There is no notebook tool named ${JSON.stringify(name)}.`
      )
    };
  }
  const given = args === undefined || args === null ? {} : args;
  const schemaProblems = schemaChecked
    ? []
    : validateJson(given, tool.parameters);
  const problems = schemaProblems.map(found =>
    // As the Python tools say it: `index: …`, `"source" is required`.
    problemText(found)
      .replace(/^\$: must/, 'the arguments must')
      .replace(/^\$(: |\.)/, '')
  );
  if (problems.length === 0 && isObject(given)) {
    problems.push(...crossRules(name, given));
  }
  if (problems.length > 0 || !isObject(given)) {
    return {
      ok: false,
      result: toolError(
        'bad_arguments',
        `${name} was not called, its arguments are wrong: ${problems.join('; ')}`
      )
    };
  }
  return { ok: true, tool, args: { ...defaults(tool), ...given } };
}

/** The rules across arguments (docs/protocol.md §12.7). */
function crossRules(name: string, args: JsonObject): string[] {
  if (name === 'read_cell' && 'cell_id' in args === 'index' in args) {
    return ['give exactly one of cell_id and index'];
  }
  if (name === 'insert_cell' && 'index' in args && 'after_cell_id' in args) {
    return ['give index or after_cell_id, not both'];
  }
  return [];
}

function defaults(tool: INotebookToolDeclaration): JsonObject {
  const properties = isObject(tool.parameters.properties)
    ? tool.parameters.properties
    : {};
  const filled: JsonObject = {};
  for (const [key, schema] of Object.entries(properties)) {
    if (isObject(schema) && 'default' in schema) {
      filled[key] = schema.default;
    }
  }
  return filled;
}
