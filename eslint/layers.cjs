/**
 * The layers of src/ and the only directions their imports may point
 * (docs/architecture.md). Each folder lists the project folders and
 * top-level modules it must not import; `npm run lint` fails on a breach.
 */

const FOLDERS = [
  'wire',
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
const PURE_LAYERS = ['wire', 'agui'];

/** What each layer may import of ours, besides its own folder. */
const ALLOWED = {
  wire: [],
  agui: ['wire'],
  contracts: ['wire'],
  transport: ['wire', 'agui', 'contracts'],
  model: ['wire', 'agui', 'contracts', 'transport'],
  panel: ['wire', 'contracts', 'model', 'commands', 'icons'],
  notebook: ['wire', 'contracts', 'model', 'tokens'],
  plugins: [...FOLDERS, ...TOP_LEVEL].filter(name => name !== 'index')
};

/** A relative import that lands in `name` (a folder or a top-level module). */
function landsIn(name) {
  const isFolder = FOLDERS.includes(name);
  // From src/<layer>/…: one or more "../" then the name (a module at src/).
  return isFolder
    ? `^(\\.\\./)+${name}(/|$)`
    : `^(\\.\\./)+${name}$`;
}

function restrictions(layer) {
  const allowed = new Set([layer, ...ALLOWED[layer]]);
  const forbidden = [...FOLDERS, ...TOP_LEVEL].filter(
    name => !allowed.has(name)
  );
  const patterns = forbidden.map(name => ({
    regex: landsIn(name),
    message: `src/${layer}/ must not import ${FOLDERS.includes(name) ? `src/${name}/` : `src/${name}.ts`} (layers: docs/architecture.md)`
  }));
  if (['wire', 'agui', 'contracts', 'transport', 'model'].includes(layer)) {
    patterns.push({
      regex: '^@lumino/widgets|^@jupyterlab/(application|apputils|notebook|rendermime|ui-components|filebrowser|docregistry|cells)',
      message: `src/${layer}/ has no widgets or JupyterLab UI (layers: docs/architecture.md)`
    });
  }
  if (PURE_LAYERS.includes(layer)) {
    patterns.push({
      regex: '^@jupyterlab/',
      message: `src/${layer}/ is pure protocol: no JupyterLab imports (layers: docs/architecture.md)`
    });
  }
  return patterns;
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

const layerRules = Object.keys(ALLOWED).map(layer => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': ['error', { patterns: restrictions(layer) }],
    ...(PURE_LAYERS.includes(layer)
      ? {
          'no-restricted-globals': ['error', ...DOM_GLOBALS],
          'no-console': 'error'
        }
      : {})
  }
}));

module.exports = { ALLOWED, PURE_LAYERS, layerRules };
