/**
 * Every reference to a document under docs/, and every file of the repository
 * named in a comment or a document, resolves: `scripts/check-doc-refs.mjs`
 * finds none broken in this repository, and rejects exactly the broken ones of
 * `fixtures/doc-refs/tree/`, whose lines say what the check must report.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'check-doc-refs.mjs');
const FIXTURE = path.join(ROOT, 'fixtures', 'doc-refs', 'tree');

/** The kind of each problem message the script prints. */
const KINDS: [RegExp, string][] = [
  [/ does not exist$/, 'no-file'],
  [/ has no section \S+$/, 'no-section'],
  [/ has no heading #\S+$/, 'no-heading'],
  [/a bare § cites no document/, 'bare'],
  [/the link leaves the repository$/, 'leaves'],
  [/ is not a file of the repository$/, 'no-source']
];

interface ICheckRun {
  status: number | null;
  /** `file:line kind` of each problem, sorted. */
  problems: string[];
  /** Lines of output that are neither a problem nor the summary. */
  other: string[];
  references: number;
  files: number;
}

function runCheck(root: string): ICheckRun {
  const run = spawnSync(process.execPath, [SCRIPT, '--root', root], {
    encoding: 'utf-8'
  });
  const problems: string[] = [];
  const other: string[] = [];
  let references = -1;
  let files = -1;
  for (const line of run.stdout.split('\n').filter(Boolean)) {
    const summary = /^checked (\d+) references to docs in (\d+) files: /.exec(
      line
    );
    const problem = /^([^\s:]+:\d+): /.exec(line);
    if (summary) {
      references = Number(summary[1]);
      files = Number(summary[2]);
    } else if (problem) {
      const kind = KINDS.find(([pattern]) => pattern.test(line))?.[1];
      problems.push(`${problem[1]} ${kind ?? `unknown: ${line}`}`);
    } else {
      other.push(line);
    }
  }
  return {
    status: run.status,
    problems: problems.sort(),
    other: [...other, ...run.stderr.split('\n').filter(Boolean)],
    references,
    files
  };
}

/** `file:line kind` of every line of the fixture marked `expect: <kind>`. */
function markedLines(root: string, dir = ''): string[] {
  const marked: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), {
    withFileTypes: true
  })) {
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      marked.push(...markedLines(root, relative));
      continue;
    }
    fs.readFileSync(path.join(root, relative), 'utf-8')
      .split('\n')
      .forEach((text, index) => {
        const marker = /expect: ([\w-]+)/.exec(text);
        if (marker) {
          marked.push(`${relative}:${index + 1} ${marker[1]}`);
        }
      });
  }
  return marked.sort();
}

describe('references to docs/', () => {
  it('all resolve in this repository', () => {
    const run = runCheck(ROOT);
    expect(run.other).toEqual([]);
    expect(run.problems).toEqual([]);
    expect(run.status).toBe(0);
    // The check read the tree: the architecture and protocol documents,
    // the lint rules and the README cite docs/ many times over.
    expect(run.files).toBeGreaterThan(100);
    expect(run.references).toBeGreaterThan(100);
  });

  it('are rejected exactly where the fixture says, and nowhere else', () => {
    const expected = markedLines(FIXTURE);
    expect(new Set(expected.map(line => line.split(' ')[1]))).toEqual(
      new Set(KINDS.map(([, kind]) => kind))
    );
    const run = runCheck(FIXTURE);
    expect(run.other).toEqual([]);
    expect(run.problems).toEqual(expected);
    expect(run.status).toBe(1);
    // Good references and links were read as well, not skipped.
    expect(run.references).toBeGreaterThan(expected.length);
  });

  it('are read in the sub-folders of docs/ and in CONTRIBUTING.md', () => {
    // The fixture's pages, without the folder name (which the check would
    // read as a reference to this repository's docs).
    const problems = runCheck(FIXTURE).problems.map(p =>
      p.replace(/^docs\//, '')
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'sub/page.md:4 no-section',
        'sub/page.md:5 no-file',
        'CONTRIBUTING.md:4 no-section'
      ])
    );
    // A bare § in a page of a sub-folder cites that page (its line 3).
    expect(problems.filter(p => p.startsWith('sub/page.md:3 '))).toEqual([]);
  });

  it('check the files named in comments and documents, not in code', () => {
    const problems = runCheck(FIXTURE).problems.map(p =>
      p.replace(/^docs\//, '')
    );
    expect(problems.filter(p => p.endsWith(' no-source')).sort()).toEqual([
      'CONTRIBUTING.md:5 no-source',
      'jupyterlab_agent_panel/module.py:4 no-source',
      'jupyterlab_agent_panel/module.py:6 no-source',
      'src/a.ts:10 no-source',
      'src/a.ts:12 no-source',
      'src/a.ts:16 no-source',
      'sub/page.md:6 no-source'
    ]);
    // A path in a string of code is data (line 15 of the fixture's a.ts,
    // line 5 of its module.py), and globs and build output are never files
    // to check (lines 6 and 7 of its CONTRIBUTING.md).
    for (const line of [
      'src/a.ts:15 ',
      'jupyterlab_agent_panel/module.py:5 ',
      'CONTRIBUTING.md:6 ',
      'CONTRIBUTING.md:7 '
    ]) {
      expect(problems.filter(p => p.startsWith(line))).toEqual([]);
    }
  });
});
