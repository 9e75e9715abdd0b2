/**
 * The panel's settings behind a real `SettingRegistry`: an in-memory settings
 * route (the schema of `schema/plugin.json`, the user's raw text) and what
 * JupyterLab's Settings Editor does with them.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  type ISettingRegistry,
  SettingRegistry
} from '@jupyterlab/settingregistry';
import type { IDataConnector } from '@jupyterlab/statedb';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { JsonObject } from '../../wire/json';
import { panelStrings } from '../../contracts/translation';

export const PLUGIN_ID = 'jupyterlab-agent-panel:plugin';

const trans = panelStrings();

/** A language whose every message is marked, to see what goes through it. */
export const marked: TranslationBundle = {
  ...trans,
  // eslint-disable-next-line jupyter/no-dynamic-translation -- it wraps what it is given
  __: (text: string, ...args: any[]) => `«${trans.__(text, ...args)}»`
};

const SCHEMA_TEXT = fs.readFileSync(
  path.join(__dirname, '..', '..', '..', 'schema', 'plugin.json'),
  'utf8'
);

/** The settings schema, `schema/plugin.json`. */
export const SCHEMA = JSON.parse(SCHEMA_TEXT);

/**
 * What the Settings Editor's form wrote when one field changed, while the
 * built-in endpoints were the schema's default list.
 */
export const OLD_FORM_WRITE = fs.readFileSync(
  path.join(
    __dirname,
    '..',
    '..',
    '..',
    'fixtures',
    'settings',
    'old-form-write.jupyterlab-settings'
  ),
  'utf8'
);

/** What Jupyter's settings route keeps of the plugin, in memory. */
export class SettingsRoute implements IDataConnector<
  ISettingRegistry.IPlugin,
  string,
  string,
  string
> {
  constructor(public raw = '{}') {}

  /** Every raw text saved, in order. */
  readonly saved: string[] = [];

  async fetch(id: string): Promise<ISettingRegistry.IPlugin> {
    // A new schema object each time, as parsed from each answer.
    return {
      id,
      raw: this.raw,
      schema: JSON.parse(SCHEMA_TEXT),
      version: '0.1.0',
      data: { composite: {}, user: {} }
    };
  }

  async list(): Promise<{ ids: string[]; values: ISettingRegistry.IPlugin[] }> {
    return { ids: [], values: [] };
  }

  async save(id: string, raw: string): Promise<void> {
    this.raw = raw;
    this.saved.push(raw);
  }

  async remove(): Promise<void> {
    this.raw = '{}';
  }

  /** The user settings stored (written as JSON by the registry's users). */
  get user(): JsonObject {
    return JSON.parse(this.raw);
  }
}

export function settingRegistry(route: SettingsRoute): SettingRegistry {
  return new SettingRegistry({ connector: route });
}

/**
 * What the Settings Editor's form saves when a field changes: the whole
 * composite with the change, indented by 4 (`SettingsFormEditor`).
 */
export function formSave(
  settings: ISettingRegistry.ISettings,
  changes: JsonObject
): Promise<void> {
  return settings.save(
    JSON.stringify({ ...settings.composite, ...changes }, undefined, 4)
  );
}

/** Let every save and reload under way finish (all of them are in memory). */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) {
    await new Promise(resolve => setTimeout(resolve, 0));
  }
}
