/**
 * Every reference to a document under docs/ resolves: `scripts/check-doc-refs.mjs`
 * finds none broken in this repository, and rejects exactly the broken ones of
 * `fixtures/doc-refs/tree/`, whose lines say what the check must report.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'check-doc-refs.mjs');
const FIXTURE = path.join(ROOT, 'fixtures', 'doc-refs', 'tree');

/** The kind of each problem message the script prints. */
const KINDS: [RegExp, string][] = [
  [/ does not exist$/, 'no-file'],
  [/ has no section \S+$/, 'no-section'],
  [/ has no heading #\S+$/, 'no-heading'],
  [/a bare § cites no document/, 'bare'],
  [/the link leaves the repository$/, 'leaves']
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
});
