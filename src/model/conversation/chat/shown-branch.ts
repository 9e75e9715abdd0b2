/**
 * The branch of a conversation that is shown: its entries in order, among
 * every branch kept (`BranchTree`, docs/protocol.md §13.8). Adding an entry
 * announces it; moving to another branch tells which entries were left.
 */
import { BranchTree, type ISiblings } from './branches';
import { type ChatEntry, type ITurnEntry, lastTurn } from './chat-entries';

export class ShownBranch {
  /** `added` hears of each entry added to the branch shown. */
  constructor(private readonly _added: (entry: ChatEntry) => void) {}

  /** The entries of the branch shown, oldest first. */
  get entries(): readonly ChatEntry[] {
    return this._entries;
  }

  /** Every entry of every branch, in the order they were added. */
  get all(): readonly ChatEntry[] {
    return this._tree.all;
  }

  get(key: string): ChatEntry | undefined {
    return this._tree.get(key);
  }

  /** Where entry `key` is on the branch shown; -1 when it is not there. */
  indexOf(key: string): number {
    return this._entries.findIndex(entry => entry.key === key);
  }

  siblings(key: string): ISiblings<ChatEntry> {
    return this._tree.siblings(key);
  }

  lastTurn(): ITurnEntry | undefined {
    return lastTurn(this._entries);
  }

  /** Add `entry` at the end of the branch shown. */
  add(entry: ChatEntry): void {
    const last = this._entries[this._entries.length - 1];
    this._tree.append(entry, last?.key ?? null);
    this._entries.push(entry);
    this._added(entry);
  }

  /**
   * Put `entry` on a new branch in place of entry `key` of the branch shown,
   * and choose it; returns the entries left (`key` and those after it). The
   * branch shown ends before `entry` until `showForked` adds it, so that
   * views rebuild without it first and then hear of it as added.
   */
  fork(key: string, entry: ChatEntry): ChatEntry[] {
    const index = this.indexOf(key);
    const left = this._entries.slice(index);
    this._entries = this._entries.slice(0, index);
    this._tree.append(entry, this._tree.parentOf(key));
    this._tree.choose(entry.key);
    return left;
  }

  /** Show `entry`, which `fork` put on the branch chosen. */
  showForked(entry: ChatEntry): void {
    this._entries.push(entry);
    this._added(entry);
  }

  /** Show the branch of entry `key`; returns the entries the branch left has and it has not. */
  choose(key: string): ChatEntry[] {
    const old = this._entries;
    this._tree.choose(key);
    this._entries = this._tree.path();
    let same = 0;
    while (same < old.length && old[same] === this._entries[same]) {
      same += 1;
    }
    return old.slice(same);
  }

  /** Keep `entries` (every branch, as saved) instead, showing the branch they chose. */
  reset(entries: ChatEntry[]): void {
    this._tree = new BranchTree(entries);
    this._entries = this._tree.path();
  }

  /**
   * Where the agent's thread goes back to before the next run, when another
   * branch than the one the thread last ran on is shown: the checkpoint the
   * branch's last turn ended at (docs/protocol.md §5.10).
   */
  forkPoint(): { checkpointId: string | null } | undefined {
    const last = this.lastTurn();
    let ran: ITurnEntry | undefined;
    for (const entry of this._tree.all) {
      if (entry.kind === 'turn' && (!ran || entry.startedAt >= ran.startedAt)) {
        ran = entry;
      }
    }
    if (!last || last === ran) {
      return undefined;
    }
    // A turn stopped before it reported its end goes back to its start.
    const at = last.state.endCheckpoint ?? last.state.startCheckpoint;
    return at !== undefined ? { checkpointId: at } : undefined;
  }

  private _entries: ChatEntry[] = [];
  private _tree = new BranchTree<ChatEntry>();
}
