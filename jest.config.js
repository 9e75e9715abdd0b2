const jestJupyterLab = require('@jupyterlab/testing/lib/jest-config');

// ESM-only packages that babel-jest must transform (jest runs CommonJS).
const esModules = [
  '@codemirror',
  '@jupyter/ydoc',
  '@jupyter/react-components',
  '@jupyter/web-components',
  '@jupyterlab/',
  '@lezer',
  '@microsoft',
  'color',
  'exenv-es6',
  'lib0',
  'marked',
  'nanoid',
  'vscode-ws-jsonrpc',
  'y-protocols',
  'y-websocket',
  'yjs'
].join('|');

const baseConfig = jestJupyterLab(__dirname);

module.exports = {
  ...baseConfig,
  reporters: ['default'],
  automock: false,
  collectCoverageFrom: [
    'src/**/*.{ts,tsx}',
    '!src/**/*.d.ts',
    '!src/**/__tests__/**'
  ],
  coverageReporters: ['lcov', 'text-summary'],
  testRegex: 'src/.*/.*.spec.ts[x]?$',
  modulePathIgnorePatterns: [
    '<rootDir>/jupyterlab_agent_panel/labextension',
    '<rootDir>/ui-tests'
  ],
  transformIgnorePatterns: [`/node_modules/(?!${esModules}).+`]
};
