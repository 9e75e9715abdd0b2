/**
 * Reading one settings field leniently: an absent value gives the default
 * quietly, a wrong one gives the default and a problem naming the field.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

export interface ISettingsProblem {
  /** JSON-pointer-like path of the offending field, e.g. `endpoints[1].url`. */
  field: string;
  message: string;
}

/** Reads optional fields: absent gives the default quietly, wrong reports. */
export class FieldReader {
  constructor(
    readonly problems: ISettingsProblem[],
    readonly trans: TranslationBundle
  ) {}

  string(value: unknown, field: string, fallback: string): string {
    if (value === undefined || typeof value === 'string') {
      return value ?? fallback;
    }
    this._replaced(
      field,
      this.trans.__('must be a string'),
      JSON.stringify(fallback)
    );
    return fallback;
  }

  number(
    value: unknown,
    field: string,
    fallback: number,
    minimum: number,
    integer = false
  ): number {
    if (value === undefined) {
      return fallback;
    }
    const valid =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= minimum &&
      (!integer || Number.isInteger(value));
    if (valid) {
      return value;
    }
    const got = JSON.stringify(value);
    this._replaced(
      field,
      integer
        ? this.trans.__(
            'must be a whole number of at least %1 (got %2)',
            minimum,
            got
          )
        : this.trans.__(
            'must be a number of at least %1 (got %2)',
            minimum,
            got
          ),
      String(fallback)
    );
    return fallback;
  }

  oneOf<T extends string>(
    value: unknown,
    field: string,
    allowed: readonly T[],
    fallback: T
  ): T {
    if (value === undefined) {
      return fallback;
    }
    if (allowed.includes(value as T)) {
      return value as T;
    }
    this._replaced(
      field,
      this.trans.__(
        '%1 is not one of %2',
        JSON.stringify(value),
        allowed.map(a => JSON.stringify(a)).join(', ')
      ),
      JSON.stringify(fallback)
    );
    return fallback;
  }

  boolean(value: unknown, field: string, fallback: boolean): boolean {
    if (value === undefined || typeof value === 'boolean') {
      return value ?? fallback;
    }
    this._replaced(
      field,
      this.trans.__('%1 is not true or false', JSON.stringify(value)),
      JSON.stringify(fallback)
    );
    return fallback;
  }

  private _replaced(field: string, why: string, used: string): void {
    this.problems.push({
      field,
      message: this.trans.__('%1; using %2', why, used)
    });
  }
}
