#!/usr/bin/env node
/**
 * Check that every reference to a document under docs/ resolves.
 *
 * Scans the sources, the Python package, the scripts, the UI tests, the
 * benchmarks, the lint rules, the fixtures' READMEs, README.md,
 * CONTRIBUTING.md, CHANGELOG.md and the Markdown files under docs/ (at any
 * depth) for references of the form
 * `docs/<path>`, optionally followed by an anchor (`#some-heading`) or by
 * section numbers (`§N.M`, a range `§N.M–N.K`, a list `§N, §M`). A reference
 * fails when its file does not exist, when a cited section number is not the
 * number of a heading in it (a heading such as "## N. Title" or "### N.M
 * Title"), or when the anchor is not the slug of a heading. A bare `§N`
 * outside docs/ cites no document and fails too; inside a document of docs/
 * it cites that document.
 * A file of the repository named by its path from the root, in a comment or
 * a document (`src/wire/reduce.ts`, `jupyterlab_agent_panel/memory/agent_memory.py`,
 * `ui-tests/tests/comm.spec.ts`), must exist too; build output, installed
 * packages and reports are not checked (see GENERATED).
 * In the Markdown files, relative Markdown links are checked the same way.
 *
 * Usage: node scripts/check-doc-refs.mjs [--root DIR]
 * Prints one line per problem (`file:line: reference: why`) and a summary;
 * exits 1 when there is a problem. No dependencies.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where references are looked for: a folder, whether to descend, which files. */
const SCANNED = [
  { dir: 'src', deep: true, match: name => name.endsWith('.ts') },
  {
    dir: 'jupyterlab_agent_panel',
    deep: true,
    match: name => name.endsWith('.py')
  },
  { dir: 'scripts', deep: false, match: () => true },
  { dir: 'ui-tests', deep: true, match: name => /\.(ts|py)$/.test(name) },
  { dir: 'bench', deep: false, match: name => name.endsWith('.js') },
  { dir: 'eslint', deep: false, match: name => name.endsWith('.cjs') },
  { dir: 'docs', deep: true, match: name => name.endsWith('.md') },
  { dir: 'fixtures', deep: 'one', match: name => name === 'README.md' },
  {
    dir: '.',
    deep: false,
    match: name =>
      ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'].includes(name)
  }
];

/** Folders never scanned: installed packages, build output, caches, reports. */
const SKIPPED = new Set([
  'node_modules',
  '__pycache__',
  'labextension',
  'test-results',
  'playwright-report',
  '.git',
  '_build'
]);

/**
 * A path of the repository's own files, from its root: a top folder, any
 * folders, and a name with one of the extensions the project uses. Not inside
 * a longer path or URL, and not followed by more of a name (`a.ts.bak`, a
 * glob `*`).
 */
const SOURCE_REF = new RegExp(
  String.raw`(?<![\w./@~$-])((?:src|jupyterlab_agent_panel|ui-tests|scripts|bench|fixtures|eslint|schema|style|jupyter-config)/(?:[\w.-]+/)*[\w.-]+\.(?:ts|tsx|js|mjs|cjs|py|json|jsonl|md|css|sse|txt|toml|yaml|yml|html|png|ipynb|sh))(?!\.?[\w*/-])`,
  'g'
);
/** Paths that a build, an install or a test run writes: not checked. */
const GENERATED = [
  /(^|\/)node_modules\//,
  /^jupyterlab_agent_panel\/labextension\//,
  /^jupyterlab_agent_panel\/_version\.py$/,
  /^ui-tests\/(test-results|playwright-report)\//,
  /^bench\/results\//
];

/**
 * Where a line of code is a comment: `{from, inside}`, the column a comment
 * starts at (Infinity when none) and whether the line began inside a block
 * comment or docstring. `state` carries an open block across lines. A
 * heuristic, good enough for this repository: a `//`, `/*` or `#` after a
 * space or at the start of a line opens a comment; `/*` blocks end at the
 * next `*\/`, Python's triple quotes open and close docstrings.
 */
export function commentsOf(text, hashComments, state) {
  const inside = state.open;
  let from = inside ? 0 : Infinity;
  if (hashComments) {
    const quotes = text.match(/"""|'''/g)?.length ?? 0;
    if (quotes % 2 === 1) {
      if (!state.open) {
        from = Math.min(from, text.search(/"""|'''/));
      }
      state.open = !state.open;
    } else if (quotes > 0 && !state.open) {
      from = Math.min(from, text.search(/"""|'''/));
    }
    const hash = /(^|\s)#/.exec(text);
    if (hash) {
      from = Math.min(from, hash.index);
    }
  } else {
    let at = 0;
    while (at < text.length) {
      if (state.open) {
        const end = text.indexOf('*/', at);
        if (end < 0) {
          break;
        }
        state.open = false;
        at = end + 2;
        continue;
      }
      const rest = text.slice(at);
      const opened = /(^|\s)\/\*/.exec(rest);
      const block = opened ? at + opened.index : -1;
      const line = /(^|\s)\/\//.exec(rest);
      const lineAt = line ? at + line.index : -1;
      if (lineAt >= 0 && (block < 0 || lineAt < block)) {
        from = Math.min(from, lineAt);
        break;
      }
      if (block < 0) {
        break;
      }
      from = Math.min(from, block);
      state.open = true;
      at = block + 2;
    }
  }
  return { from, inside };
}

/** `docs/<path>`, not inside a longer path or URL. */
const DOC_REF = /(?<![\w./-])docs\/((?:[\w.-]+\/)*[\w.-]*[\w-])/g;
/** One section number, e.g. `4`, `4.3`, or `11a` (which no heading has). */
const NUMBER = String.raw`\d+(?:\.\d+)*[a-z]?`;
/** A section and an optional range end: `4.1–4.2`. */
const SECTION = String.raw`§\s?(${NUMBER})(?:\s*[–-]\s*(${NUMBER}))?`;
/** What may follow a reference: an anchor, or a list of sections. */
const AFTER_REF = new RegExp(
  String.raw`^(?:#([\w-]+)|\x60?\s*(${SECTION}(?:\s*,\s*§\s?${NUMBER}(?:\s*[–-]\s*${NUMBER})?)*))`
);
const ANY_SECTION = new RegExp(SECTION, 'g');
/** A Markdown inline link or image target. */
const MD_LINK = /\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:|^\/\//i;

/** The files the check reads, relative to `root`, with forward slashes. */
export function scannedFiles(root) {
  const files = [];
  const walk = (dir, deep, match) => {
    const absolute = join(root, dir);
    if (!existsSync(absolute) || !statSync(absolute).isDirectory()) {
      return;
    }
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      const path = dir === '.' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (SKIPPED.has(entry.name) || deep === false) {
          continue;
        }
        walk(path, deep === 'one' ? false : deep, match);
      } else if (entry.isFile() && match(entry.name)) {
        files.push(path);
      }
    }
  };
  for (const { dir, deep, match } of SCANNED) {
    walk(dir, deep, match);
  }
  return [...new Set(files)].sort();
}

/** GitHub's anchor for a heading's text. */
export function slugOf(text) {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Section numbers and anchors of a Markdown document. */
function headingsOf(text) {
  const numbers = new Set();
  const slugs = new Set();
  const seen = new Map();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) {
      continue;
    }
    const title = heading[1];
    const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(title);
    if (number) {
      numbers.add(number[1]);
    }
    const slug = slugOf(title);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    slugs.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return { numbers, slugs };
}

/**
 * Check the tree at `root`. Returns the files read, the references found and
 * the problems, each `{file, line, reference, message}`.
 */
export function checkDocRefs(root) {
  const documents = new Map();
  const documentAt = relativePath => {
    if (!documents.has(relativePath)) {
      const absolute = join(root, relativePath);
      let entry = null;
      if (existsSync(absolute)) {
        const isFile = statSync(absolute).isFile();
        const text = isFile ? readFileSync(absolute, 'utf-8') : '';
        entry = isFile && absolute.endsWith('.md') ? headingsOf(text) : {};
      }
      documents.set(relativePath, entry);
    }
    return documents.get(relativePath);
  };
  const problems = [];
  let references = 0;
  const files = scannedFiles(root);

  for (const file of files) {
    const isDocument = /^docs\/.+\.md$/.test(file);
    const isMarkdown = file.endsWith('.md');
    const report = (line, reference, message) =>
      problems.push({ file, line, reference, message });
    /** Check sections (and range ends) of `doc` cited in `list`. */
    const checkSections = (line, doc, list, reference) => {
      const headings = documentAt(doc);
      for (const match of list.matchAll(ANY_SECTION)) {
        for (const number of [match[1], match[2]]) {
          if (number !== undefined && !headings?.numbers?.has(number)) {
            report(line, reference, `${doc} has no section ${number}`);
          }
        }
      }
    };
    const checkTarget = (line, target, reference, anchor) => {
      const headings = documentAt(target);
      if (headings === null) {
        report(line, reference, `${target} does not exist`);
      } else if (anchor !== undefined && anchor !== '') {
        if (!target.endsWith('.md')) {
          report(line, reference, `${target} is not a document with headings`);
        } else if (!headings.slugs.has(anchor)) {
          report(line, reference, `${target} has no heading #${anchor}`);
        }
      }
    };

    const lines = readFileSync(join(root, file), 'utf-8').split('\n');
    /** Code names files in its comments only; a document, anywhere. */
    const hashComments =
      /\.py$/.test(file) || /^#!.*\b((ba)?sh|python3?)\b/.test(lines[0] ?? '');
    const block = { open: false };
    let fenced = false;
    lines.forEach((text, index) => {
      const line = index + 1;
      const comment = isMarkdown
        ? { from: 0 }
        : commentsOf(text, hashComments, block);
      const cited = [];
      for (const match of text.matchAll(DOC_REF)) {
        references += 1;
        const target = `docs/${match[1]}`;
        const end = match.index + match[0].length;
        const after = AFTER_REF.exec(text.slice(end));
        const reference = text.slice(
          match.index,
          end + (after ? after[0].length : 0)
        );
        cited.push([match.index, end + (after ? after[0].length : 0)]);
        checkTarget(line, target, reference, after?.[1]);
        if (after?.[2] && documentAt(target) !== null) {
          checkSections(line, target, after[2], reference);
        }
      }
      for (const match of text.matchAll(SOURCE_REF)) {
        const path = match[1];
        if (
          match.index < comment.from ||
          GENERATED.some(pattern => pattern.test(path))
        ) {
          continue;
        }
        references += 1;
        if (!existsSync(join(root, path))) {
          report(line, path, `${path} is not a file of the repository`);
        }
      }
      for (const match of text.matchAll(ANY_SECTION)) {
        const inCitation = cited.some(
          ([from, to]) => match.index >= from && match.index < to
        );
        if (inCitation) {
          continue;
        }
        if (isDocument) {
          references += 1;
          checkSections(line, file, match[0], match[0]);
        } else {
          report(
            line,
            match[0],
            'a bare § cites no document: name it (docs/<file>.md §N)'
          );
        }
      }
      if (/^\s*(```|~~~)/.test(text)) {
        fenced = !fenced;
      }
      if (!isMarkdown || fenced) {
        return;
      }
      for (const match of text.matchAll(MD_LINK)) {
        const link = match[1];
        if (SCHEME.test(link)) {
          continue;
        }
        references += 1;
        const [path, anchor] = link.split('#');
        const absolute = path
          ? resolve(root, dirname(file), path)
          : join(root, file);
        const target = relative(root, absolute).split(sep).join('/');
        if (target.startsWith('..')) {
          report(line, link, 'the link leaves the repository');
        } else {
          checkTarget(line, target, link, anchor);
        }
      }
    });
  }
  return { files: files.length, references, problems };
}

function main(argv) {
  const at = argv.indexOf('--root');
  const root = resolve(
    at >= 0 ? argv[at + 1] : join(dirname(fileURLToPath(import.meta.url)), '..')
  );
  const { files, references, problems } = checkDocRefs(root);
  for (const { file, line, reference, message } of problems) {
    console.log(`${file}:${line}: ${reference}: ${message}`);
  }
  console.log(
    `checked ${references} references to docs in ${files} files: ${problems.length} problem(s)`
  );
  return problems.length === 0 ? 0 : 1;
}

if (
  process.argv[1] &&
  resolve(process.argv[1]) === fileURLToPath(import.meta.url)
) {
  process.exitCode = main(process.argv.slice(2));
}
