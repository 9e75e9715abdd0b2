/**
 * A message the pure layers (wire, agui) have for the user. They have no
 * translator, so they keep the English template and its arguments apart;
 * the transport translates it (`trans.__(template, ...args)`), and
 * `problemText` gives the English text for logs and tests.
 */
export interface IProblem {
  /** English, with `%1`, `%2`… standing for `args`. */
  readonly template: string;
  readonly args: readonly unknown[];
}

export function problem(template: string, ...args: unknown[]): IProblem {
  return { template, args };
}

/** A failed read: what was wrong, in English and ready to translate. */
export interface IFailure {
  ok: false;
  /** The problem in English (`problemText(problem)`). */
  reason: string;
  problem: IProblem;
}

export function failure(template: string, ...args: unknown[]): IFailure {
  const found = problem(template, ...args);
  return { ok: false, reason: problemText(found), problem: found };
}

/** The problem in English, its placeholders filled in. */
export function problemText({ template, args }: IProblem): string {
  return template.replace(/%(\d+)/g, (placeholder, index) =>
    Number(index) >= 1 && Number(index) <= args.length
      ? String(args[Number(index) - 1])
      : placeholder
  );
}
