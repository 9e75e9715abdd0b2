/**
 * A conversation's branches (docs/protocol.md §13.8): every entry names the
 * entry before it on its branch, so editing an earlier message or
 * regenerating an answer adds a sibling instead of replacing anything. The
 * branch shown follows, at each fork, the sibling chosen last.
 */

/** What places an entry in the tree. */
export interface IBranchLinks {
  readonly key: string;
  /**
   * The entry before it on its branch (null: it begins the conversation);
   * absent in conversations saved before branches: the entry saved before it.
   */
  parent?: string | null;
  /** When it was last chosen among its siblings, as a counter (absent: never). */
  chosen?: number;
}

/** Where an entry stands among its siblings: `index` of `count`, from 0. */
export interface ISiblings<E> {
  readonly index: number;
  readonly count: number;
  readonly entries: readonly E[];
}

export class BranchTree<E extends IBranchLinks> {
  /** The tree of `entries`, in the order they were first saved. */
  constructor(entries: readonly E[] = []) {
    let previous: string | null = null;
    for (const entry of entries) {
      if (this._byKey.has(entry.key)) {
        continue;
      }
      // A parent saved later than its child, or not saved, is not one.
      const parent: string | null =
        entry.parent === undefined ||
        (entry.parent !== null && !this._byKey.has(entry.parent))
          ? previous
          : entry.parent;
      this._link(entry, parent);
      previous = entry.key;
    }
  }

  /** Every entry of every branch, in the order they were added. */
  get all(): readonly E[] {
    return this._all;
  }

  get(key: string): E | undefined {
    return this._byKey.get(key);
  }

  /** The entry before `key` on its branch (null: none). */
  parentOf(key: string): string | null {
    return this._parents.get(key) ?? null;
  }

  /** The branch shown: from the first entry, the sibling chosen last at each fork. */
  path(): E[] {
    const path: E[] = [];
    let children = this._children.get(null);
    while (children && children.length > 0) {
      const next = latestChosen(children);
      path.push(next);
      children = this._children.get(next.key);
    }
    return path;
  }

  /**
   * Add `entry` after `parent` (null: as a first entry). After the entry
   * added last, it names no parent: that is where an entry without one goes,
   * so two tabs appending to one conversation at once stay on one line
   * (docs/protocol.md §13.7) instead of forking.
   */
  append(entry: E, parent: string | null): void {
    const last = this._all[this._all.length - 1];
    if (parent === (last?.key ?? null)) {
      delete entry.parent;
    } else {
      entry.parent = parent;
    }
    this._link(entry, parent);
  }

  /** `key` and the entries that share its parent, in the order they were added. */
  siblings(key: string): ISiblings<E> {
    const entry = this._byKey.get(key);
    const entries = this._children.get(this.parentOf(key)) ?? [];
    return {
      index: entry ? entries.indexOf(entry) : -1,
      count: entries.length,
      entries
    };
  }

  /** Show `key`'s branch at its fork from now on. */
  choose(key: string): void {
    const entry = this._byKey.get(key);
    if (entry) {
      this._lastChosen += 1;
      entry.chosen = this._lastChosen;
    }
  }

  /** The last entry of the branch that goes through `key`, as it is chosen below it. */
  leafUnder(key: string): E | undefined {
    let entry = this._byKey.get(key);
    let children = entry ? this._children.get(entry.key) : undefined;
    while (entry && children && children.length > 0) {
      entry = latestChosen(children);
      children = this._children.get(entry.key);
    }
    return entry;
  }

  private _link(entry: E, parent: string | null): void {
    this._all.push(entry);
    this._byKey.set(entry.key, entry);
    this._parents.set(entry.key, parent);
    const siblings = this._children.get(parent);
    if (siblings) {
      siblings.push(entry);
    } else {
      this._children.set(parent, [entry]);
    }
    this._lastChosen = Math.max(this._lastChosen, entry.chosen ?? 0);
  }

  private readonly _all: E[] = [];
  private readonly _byKey = new Map<string, E>();
  private readonly _parents = new Map<string, string | null>();
  private readonly _children = new Map<string | null, E[]>();
  private _lastChosen = 0;
}

/** The sibling chosen last; never chosen: the one added last. */
function latestChosen<E extends IBranchLinks>(siblings: readonly E[]): E {
  let best = siblings[siblings.length - 1];
  for (const sibling of siblings) {
    if ((sibling.chosen ?? 0) > (best.chosen ?? 0)) {
      best = sibling;
    }
  }
  return best;
}
