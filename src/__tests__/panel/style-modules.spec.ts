/**
 * JupyterLab loads the extension's CSS through style/index.js (package.json
 * `jupyterlab.styleModule`), other tools through style/index.css: both must
 * take every sheet, in the same order, or a sheet is missing in the lab.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

const STYLE = join(__dirname, '..', '..', '..', 'style');

function imported(file: string, pattern: RegExp): string[] {
  const text = readFileSync(join(STYLE, file), 'utf8');
  return [...text.matchAll(pattern)].map(match => match[1]);
}

describe('style modules', () => {
  const sheets = readdirSync(STYLE).filter(
    name => name.endsWith('.css') && name !== 'index.css'
  );

  it('style/index.js and style/index.css import every sheet, in the same order', () => {
    const fromJs = imported('index.js', /^import '\.\/([^']+)';$/gm);
    const fromCss = imported('index.css', /^@import url\('([^']+)'\);$/gm);
    expect(fromJs).toEqual(fromCss);
    expect([...fromJs].sort()).toEqual([...sheets].sort());
  });
});
