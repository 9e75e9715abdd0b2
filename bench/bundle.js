'use strict';
/**
 * Bytes of the labextension's JavaScript in a production build (what
 * `npm run build:prod` makes), raw and gzipped. The build runs in a copy of
 * the sources under `dir`, so the working tree's development build stays.
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const SOURCES = ['package.json', 'tsconfig.json', 'src', 'style', 'schema'];
const LARGEST = 5;

/** Run a build step quietly; its output is shown only when it fails. */
function run(command, args, cwd) {
  try {
    execFileSync(command, args, { cwd, stdio: 'pipe' });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`
      .trim()
      .split('\n')
      .slice(-20);
    throw new Error(
      `${path.basename(command)} ${args.join(' ')} failed:\n${output.join('\n')}`
    );
  }
}

/** `{total, files, largest}` in bytes; `largest` are the biggest files: `{name, raw, gzip}`. */
function bundleSizes({ root, dir, jupyterBuilder }) {
  const copy = path.join(dir, 'bundle-build');
  fs.mkdirSync(copy);
  for (const source of SOURCES) {
    fs.cpSync(path.join(root, source), path.join(copy, source), {
      recursive: true
    });
  }
  fs.symlinkSync(
    path.join(root, 'node_modules'),
    path.join(copy, 'node_modules')
  );
  run(path.join(root, 'node_modules', '.bin', 'tsc'), [], copy);
  run(jupyterBuilder, ['build', '.'], copy);
  const staticDir = path.join(
    copy,
    'jupyterlab_agent_panel',
    'labextension',
    'static'
  );
  const chunks = fs
    .readdirSync(staticDir)
    .filter(name => name.endsWith('.js'))
    .map(name => {
      const bytes = fs.readFileSync(path.join(staticDir, name));
      return { name, raw: bytes.length, gzip: zlib.gzipSync(bytes).length };
    })
    .sort((a, b) => b.raw - a.raw);
  const total = chunks.reduce(
    (sum, chunk) => ({ raw: sum.raw + chunk.raw, gzip: sum.gzip + chunk.gzip }),
    { raw: 0, gzip: 0 }
  );
  return { total, files: chunks.length, largest: chunks.slice(0, LARGEST) };
}

module.exports = { bundleSizes };
