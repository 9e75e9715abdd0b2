import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { CommandRegistry } from '@lumino/commands';
import type { Widget } from '@lumino/widgets';
import type { IPanelSettings } from '../../contracts/settings';
import type { IItemAction } from '../../contracts/extension-points';
import type { Outcome, TranscriptItem } from '../../wire/types';

/** A view of one transcript item that can be brought up to date cheaply. */
export interface IItemView {
  readonly widget: Widget;
  /** The item changed (a delta, a result): redraw this item only. */
  update(item: TranscriptItem): void;
  /** A later item arrived in the same turn (e.g. the answer after reasoning). */
  superseded?(): void;
  /** The turn ended. */
  settle?(outcome: Outcome): void;
  /** The review this turn paused for was answered. */
  reviewed?(): void;
  dispose(): void;
}

export interface IItemViewContext {
  rendermime: IRenderMimeRegistry;
  trans: TranslationBundle;
  commands: CommandRegistry;
  /** The item actions contributed by plugins, read when a view is built. */
  itemActions(): readonly IItemAction[];
  /** The current settings (e.g. how much of a tool result to show). */
  settings(): IPanelSettings;
}

/** Where an item lives: the key of its turn entry and its own key. */
export interface IItemAddress {
  turn: string;
  item: number;
}
