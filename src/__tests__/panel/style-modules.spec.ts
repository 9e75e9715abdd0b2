/**
 * JupyterLab loads the extension's CSS for its start through style/index.js
 * (package.json `jupyterlab.styleModule`), other tools through
 * style/index.css: both must take the same sheets, in the same order. The
 * views' sheets load with the views (src/plugins/panel-view.ts): every sheet
 * must be loaded by one of them, or it is missing in the lab.
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

  it('style/index.js and style/index.css import the same sheets, in the same order', () => {
    const fromJs = imported('index.js', /^import '\.\/([^']+)';$/gm);
    const fromCss = imported('index.css', /^@import url\('([^']+)'\);$/gm);
    expect(fromJs).toEqual(fromCss);
  });

  it('every sheet loads at the start or with the views, once', () => {
    const atStart = imported('index.js', /^import '\.\/([^']+)';$/gm);
    const withViews = [
      ...readFileSync(
        join(__dirname, '..', '..', 'plugins', 'panel-view.ts'),
        'utf8'
      ).matchAll(/^import '\.\.\/\.\.\/style\/([^']+)';$/gm)
    ].map(match => match[1]);
    expect(withViews.length).toBeGreaterThan(0);
    expect([...atStart, ...withViews].sort()).toEqual([...sheets].sort());
  });
});
