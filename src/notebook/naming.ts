/**
 * Python variable names for inserted data: readable, valid, and never
 * rebinding a name the notebook already uses.
 *
 * Pure: no JupyterLab imports.
 */

/** Python keywords (hard and soft): never usable, or confusing, as names. */
const KEYWORDS = new Set([
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'case',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'match',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'type',
  'while',
  'with',
  'yield'
]);

/**
 * Names that would shadow something a notebook user relies on: common
 * builtins, IPython's globals and `json`, which the inserted cell imports.
 */
const SHADOWED = new Set([
  'abs',
  'all',
  'any',
  'bool',
  'bytes',
  'dict',
  'dir',
  'display',
  'eval',
  'exec',
  'exit',
  'filter',
  'float',
  'format',
  'get_ipython',
  'hash',
  'help',
  'id',
  'input',
  'int',
  'iter',
  'json',
  'len',
  'list',
  'map',
  'max',
  'min',
  'next',
  'object',
  'open',
  'print',
  'quit',
  'range',
  'repr',
  'round',
  'set',
  'sorted',
  'str',
  'sum',
  'super',
  'tuple',
  'vars',
  'zip'
]);

const MAX_LENGTH = 40;

/**
 * A snake_case Python identifier for an extracted type: `DemoFact` and
 * `demo fact` become `demo_fact`, accents are dropped, a leading digit gets a
 * `data_` prefix, keywords and shadowed builtins get a `_data` suffix, and an
 * empty result falls back to `extracted`.
 */
export function identifierFor(extractedType: string): string {
  let name = extractedType
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (name.length > MAX_LENGTH) {
    name = name.slice(0, MAX_LENGTH).replace(/_+$/, '');
  }
  if (!name) {
    return 'extracted';
  }
  if (/^[0-9]/.test(name)) {
    name = `data_${name}`;
  }
  if (KEYWORDS.has(name) || SHADOWED.has(name)) {
    name = `${name}_data`;
  }
  return name;
}

/** `base` if it is free, else the first free `base_2`, `base_3`, … */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) {
    return base;
  }
  let suffix = 2;
  while (taken.has(`${base}_${suffix}`)) {
    suffix++;
  }
  return `${base}_${suffix}`;
}

const IDENTIFIER = '[A-Za-z_][A-Za-z0-9_]*';
const TARGETS = `\\(?\\s*${IDENTIFIER}(?:\\s*,\\s*${IDENTIFIER})*\\s*,?\\s*\\)?`;

const IDENTIFIERS = new RegExp(IDENTIFIER, 'g');

/** The identifiers in a piece of a statement, in order. */
function identifiers(text: string): string[] {
  return text.match(IDENTIFIERS) ?? [];
}

/** `import a.b, c as d` and `from m import (a, b as c)` bind `a`, `c` (and `d`). */
function importedNames(list: string): string[] {
  return list
    .replace(/[()]/g, '')
    .split(',')
    .map(part => identifiers(part)[0])
    .filter((name): name is string => name !== undefined);
}

/**
 * Binding statements and the names each binds. The scan is line-based and
 * errs on the side of finding too many names: a false hit only costs a `_2`
 * suffix, while a miss would overwrite the user's variable.
 */
const BINDINGS: readonly [RegExp, (bound: string) => string[]][] = [
  // `x = …`, `a, b = …`, `(a, b) = …`, chained `a = b = …`
  [new RegExp(`^\\s*((?:${TARGETS}\\s*=(?!=)\\s*)+)`, 'g'), identifiers],
  // `x: int = …`
  [new RegExp(`^\\s*(${IDENTIFIER})\\s*:[^=]+=(?!=)`, 'g'), identifiers],
  [new RegExp(`^\\s*(?:async\\s+)?def\\s+(${IDENTIFIER})`, 'g'), identifiers],
  [new RegExp(`^\\s*class\\s+(${IDENTIFIER})`, 'g'), identifiers],
  [
    new RegExp(`^\\s*(?:async\\s+)?for\\s+(${TARGETS})\\s+in\\b`, 'g'),
    identifiers
  ],
  // `import a as b`, `with … as b`, `except E as b`
  [new RegExp(`\\bas\\s+(${IDENTIFIER})`, 'g'), identifiers],
  [new RegExp(`(${IDENTIFIER})\\s*:=`, 'g'), identifiers],
  [/^\s*import\s+([^#]+)/g, importedNames],
  [/^\s*from\s+\S+\s+import\s+([^#]+)/g, importedNames]
];

/** The names these code cell sources bind. */
export function boundNames(sources: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const source of sources) {
    for (const line of source.split(/\r\n|\r|\n/)) {
      for (const [pattern, namesOf] of BINDINGS) {
        for (const match of line.matchAll(pattern)) {
          namesOf(match[1]).forEach(name => names.add(name));
        }
      }
    }
  }
  return names;
}
