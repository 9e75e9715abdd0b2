/**
 * The layer rules of `eslint/layers.cjs` (the ones `npm run lint` applies)
 * reject each breach in `fixtures/layers/` and accept the clean files: the
 * layers' directions, and the order of the folders inside a layer.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as v8 from 'v8';

import { Linter } from 'eslint';
import { parser as tsParser } from 'typescript-eslint';

// The rules file as the lint configuration loads it (CommonJS).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const layers = require('../../../eslint/layers.cjs');
const { layerRules, ALLOWED, FOLDER_ORDER, PURE_LAYERS } = layers;

// ESLint clones rule options with structuredClone, which jsdom does not have.
globalThis.structuredClone ??= <T>(value: T): T =>
  v8.deserialize(v8.serialize(value));

const FIXTURES = path.join(__dirname, '..', '..', '..', 'fixtures', 'layers');

interface IFixture {
  file: string;
  as: string;
  imports: string[];
  globals: string[];
  source: string;
}

function readFixtures(): IFixture[] {
  return fs
    .readdirSync(FIXTURES)
    .filter(file => file.endsWith('.ts'))
    .map(file => {
      const source = fs.readFileSync(path.join(FIXTURES, file), 'utf-8');
      const tagged = (tag: string) =>
        [...source.matchAll(new RegExp(`^// ${tag}: (.+)$`, 'gm'))].map(m =>
          m[1].trim()
        );
      return {
        file,
        as: tagged('as')[0],
        imports: tagged('expect'),
        globals: tagged('expect-global'),
        source
      };
    });
}

function lint(source: string, filename: string): Linter.LintMessage[] {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(
    source,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tsParser, sourceType: 'module' }
      },
      ...layerRules
    ],
    filename
  );
}

describe('layer rules', () => {
  const fixtures = readFixtures();

  it('has fixtures for every layer with rules', () => {
    const layers = new Set(fixtures.map(f => f.as.split('/')[1]));
    for (const layer of [
      'wire',
      'context',
      'agui',
      'transport',
      'model',
      'panel'
    ]) {
      expect(layers).toContain(layer);
    }
    expect(Object.keys(ALLOWED)).toEqual(
      expect.arrayContaining([
        'wire',
        'context',
        'agui',
        'transport',
        'model',
        'panel'
      ])
    );
  });

  it('has a breach fixture for the folder order of every layer with one', () => {
    const breaches = fixtures.filter(f => f.imports.length > 0);
    for (const layer of Object.keys(FOLDER_ORDER)) {
      const inLayer = breaches.filter(f => f.as.split('/')[1] === layer);
      expect(
        inLayer.some(f => f.imports.some(i => /^\.\.?\/[^.]/.test(i)))
      ).toBe(true);
    }
  });

  it.each(readFixtures().map(f => [f.file, f] as const))(
    '%s: rejects exactly the breaches it lists',
    (_name, fixture) => {
      expect(fixture.as).toMatch(/^src\//);
      const messages = lint(fixture.source, fixture.as);
      const rejectedImports = messages
        .filter(m => m.ruleId === 'no-restricted-imports')
        .map(m => /'([^']+)' import is restricted/.exec(m.message)?.[1]);
      const rejectedGlobals = messages
        .filter(m => m.ruleId === 'no-restricted-globals')
        .map(m => /'([^']+)'/.exec(m.message)?.[1]);
      expect(messages.filter(m => m.fatal)).toEqual([]);
      expect(rejectedImports.sort()).toEqual([...fixture.imports].sort());
      expect(rejectedGlobals.sort()).toEqual([...fixture.globals].sort());
    }
  );

  it.each(['wire', 'context', 'agui'])(
    'rejects a console call in the pure layer src/%s/',
    layer => {
      expect(PURE_LAYERS).toContain(layer);
      const messages = lint(
        "export function f(): void {\n  console.warn('x');\n}\n",
        `src/${layer}/x.ts`
      );
      expect(messages.map(m => m.ruleId)).toEqual(['no-console']);
    }
  );

  it('lets the transport, which owns I/O, log', () => {
    const messages = lint(
      "export function f(): void {\n  console.warn('x');\n}\n",
      'src/transport/x.ts'
    );
    expect(messages).toEqual([]);
  });

  it('names both folders, the order and the doc in a folder-order message', () => {
    const [message] = lint(
      "import { toolTitle } from '../transcript/tool-view';\n",
      'src/panel/review/x.ts'
    );
    expect(message.message).toContain(
      'src/panel/review/ must not import src/panel/transcript/'
    );
    expect(message.message).toContain(
      'src/panel/review/ < src/panel/transcript/'
    );
    expect(message.message).toContain('docs/architecture.md');
  });

  it('lets a sub-folder import a lower one and its own', () => {
    const source =
      "import { iconButton } from '../common/buttons';\n" +
      "import { TurnView } from './turn-view';\n";
    expect(lint(source, 'src/panel/transcript/x.ts')).toEqual([]);
  });

  it('names the layer and the forbidden folder in the message', () => {
    const [message] = lint(
      "import { ChatPanel } from '../panel/chat-panel';\n",
      'src/transport/x.ts'
    );
    expect(message.message).toContain(
      'src/transport/ must not import src/panel/'
    );
  });
});
