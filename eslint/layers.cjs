/**
 * The layers of src/ and the only directions their imports may point
 * (docs/architecture.md §1): which layers each layer may import, and inside
 * a layer, which of its sub-folders each sub-folder may import. `npm run lint`
 * fails on a breach.
 */

const FOLDERS = [
  'wire',
  'context',
  'agui',
  'contracts',
  'transport',
  'model',
  'panel',
  'notebook',
  'plugins'
];
const TOP_LEVEL = ['tokens', 'commands', 'icons', 'index'];

/**
 * The pure layers: no JupyterLab, no DOM or I/O, no console (they report
 * problems through what they return; the transport logs). A new pure folder
 * joins by its name here.
 */
const PURE_LAYERS = ['wire', 'context', 'agui'];

/** The layers without widgets or JupyterLab UI. */
const HEADLESS = [...PURE_LAYERS, 'contracts', 'transport', 'model'];

/** What each layer may import of ours, besides its own folder. */
const ALLOWED = {
  wire: [],
  context: ['wire'],
  agui: ['wire'],
  contracts: ['wire', 'context'],
  transport: ['wire', 'context', 'agui', 'contracts'],
  model: ['wire', 'context', 'agui', 'contracts', 'transport'],
  panel: ['wire', 'context', 'contracts', 'model', 'commands', 'icons'],
  notebook: ['wire', 'context', 'contracts', 'model', 'tokens'],
  plugins: [...FOLDERS, ...TOP_LEVEL].filter(name => name !== 'index')
};

/**
 * The sub-folders of a layer from lowest to highest; '' is the layer's own
 * files (src/<layer>/*.ts). A file may import its own folder and the folders
 * before it in the list, never one after it. Sub-folders are one level deep.
 */
const FOLDER_ORDER = {
  model: ['connection', 'conversation', 'persistence', 'library', ''],
  panel: [
    'common',
    'plan',
    'extraction',
    'review',
    'transcript',
    'composer',
    'header',
    'library',
    'settings',
    ''
  ],
  notebook: ['', 'tools', 'commands']
};

/** A relative import that lands in `name` (a folder or a top-level module). */
function landsIn(name) {
  const isFolder = FOLDERS.includes(name);
  // From src/<layer>/…: one or more "../" then the name (a module at src/).
  return isFolder ? `^(\\.\\./)+${name}(/|$)` : `^(\\.\\./)+${name}$`;
}

function layerRestrictions(layer) {
  const allowed = new Set([layer, ...ALLOWED[layer]]);
  const forbidden = [...FOLDERS, ...TOP_LEVEL].filter(
    name => !allowed.has(name)
  );
  const patterns = forbidden.map(name => ({
    regex: landsIn(name),
    message: `src/${layer}/ must not import ${FOLDERS.includes(name) ? `src/${name}/` : `src/${name}.ts`} (layers: docs/architecture.md)`
  }));
  if (HEADLESS.includes(layer)) {
    patterns.push({
      regex:
        '^@lumino/widgets|^@jupyterlab/(application|apputils|notebook|rendermime|ui-components|filebrowser|docregistry|cells)',
      message: `src/${layer}/ has no widgets or JupyterLab UI (layers: docs/architecture.md)`
    });
  }
  if (PURE_LAYERS.includes(layer)) {
    patterns.push({
      regex: '^@jupyterlab/',
      message: `src/${layer}/ is pure: no JupyterLab imports (layers: docs/architecture.md)`
    });
  }
  return patterns;
}

/** "src/panel/review/" or, for the layer's own files, "src/panel/*.ts". */
function folderName(layer, folder) {
  return folder ? `src/${layer}/${folder}/` : `src/${layer}/*.ts`;
}

/**
 * A relative import from a file of `from` that lands in `to`, both folders
 * of the same layer ('' for its own files).
 */
function landsInSibling(from, to) {
  const up = from ? '\\.\\./' : '\\./';
  // The layer's own files: a name with no further slash, one level up.
  return to ? `^${up}${to}(/|$)` : `^${up}[^./][^/]*$`;
}

/** What a file of `folder` must not import of its layer's higher folders. */
function folderRestrictions(layer, folder) {
  const order = FOLDER_ORDER[layer];
  const words = order.map(name => folderName(layer, name)).join(' < ');
  return order.slice(order.indexOf(folder) + 1).map(higher => ({
    regex: landsInSibling(folder, higher),
    message: `${folderName(layer, folder)} must not import ${folderName(layer, higher)}: inside src/${layer}/ imports point down ${words} (docs/architecture.md §1)`
  }));
}

/** DOM globals a pure layer must not touch. */
const DOM_GLOBALS = [
  'window',
  'document',
  'navigator',
  'localStorage',
  'sessionStorage',
  'HTMLElement',
  'Element',
  'Node',
  'fetch',
  'WebSocket',
  'XMLHttpRequest'
].map(name => ({
  name,
  message: `the pure layers (${PURE_LAYERS.join(', ')}) have no DOM or I/O (docs/architecture.md)`
}));

function importRule(patterns) {
  return { 'no-restricted-imports': ['error', { patterns }] };
}

const layerRules = Object.keys(ALLOWED).flatMap(layer => [
  {
    files: [`src/${layer}/**/*.ts`],
    rules: {
      ...importRule(layerRestrictions(layer)),
      ...(PURE_LAYERS.includes(layer)
        ? {
            'no-restricted-globals': ['error', ...DOM_GLOBALS],
            'no-console': 'error'
          }
        : {})
    }
  },
  // A later entry replaces the rule's options: each repeats the layer's.
  ...(FOLDER_ORDER[layer] ?? []).map(folder => ({
    files: [folder ? `src/${layer}/${folder}/*.ts` : `src/${layer}/*.ts`],
    rules: importRule([
      ...layerRestrictions(layer),
      ...folderRestrictions(layer, folder)
    ])
  }))
]);

module.exports = { ALLOWED, FOLDER_ORDER, PURE_LAYERS, layerRules };
