/**
 * The panel's settings in JupyterLab's setting registry, followed: each change
 * is read (`parseSettings`) and applied, its problems are reported until
 * they are fixed, and what the Settings Editor's form wrote is cut down to
 * what the user changed.
 */
import { Notification } from '@jupyterlab/apputils';
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IDisposable } from '@lumino/disposable';
import {
  describeProblems,
  type IPanelSettings,
  parseSettings
} from '../contracts/settings';
import { formWrittenChanges } from '../contracts/settings-editor';
import { type JsonObject, sameJson } from '../wire/json';

/** The indentation the Settings Editor writes settings with. */
const SETTINGS_INDENT = 4;

export class SettingsFollower implements IDisposable {
  constructor(private readonly _options: SettingsFollower.IOptions) {}

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Load the settings, apply them once `ready` resolves, then follow each
   * change. Rejects when the registry cannot load them.
   */
  async start(ready: Promise<unknown>): Promise<void> {
    const { registry, pluginId } = this._options;
    const [, settings] = await Promise.all([ready, registry.load(pluginId)]);
    if (this._isDisposed) {
      return;
    }
    this._settings = settings;
    this._read(settings);
    settings.changed.connect(this._read, this);
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._settings?.changed.disconnect(this._read, this);
    this._dismissNotice();
  }

  private _read(settings: ISettingRegistry.ISettings): void {
    const { apply, trans } = this._options;
    const { settings: parsed, problems } = parseSettings(
      settings.composite,
      trans
    );
    this._report(describeProblems(problems, trans));
    // The registry announces a save, and the save that trims it, alike.
    if (!sameJson(parsed, this._applied)) {
      this._applied = parsed;
      apply(parsed);
    }
    this._keepOnlyChanges(settings);
  }

  /**
   * One notification of the problems: shown once per change (the registry
   * may announce one save twice), replaced when they change, and dismissed
   * once the settings have none.
   */
  private _report(text: string): void {
    if (text === this._reported) {
      return;
    }
    this._reported = text;
    this._dismissNotice();
    if (text) {
      const { openSettings, trans } = this._options;
      console.warn(`Agent Panel settings:\n${text}`);
      this._notice = Notification.warning(
        trans.__('Agent Panel settings: %1', text),
        {
          autoClose: false,
          actions: [
            { label: trans.__('Open Settings'), callback: openSettings }
          ]
        }
      );
    }
  }

  private _dismissNotice(): void {
    if (this._notice !== null) {
      Notification.dismiss(this._notice);
      this._notice = null;
    }
  }

  /**
   * Save what the user changed of a whole composite the Settings Editor's
   * form wrote; that save comes back through `_read`.
   */
  private _keepOnlyChanges(settings: ISettingRegistry.ISettings): void {
    const changes = formWrittenChanges(
      settings.user as JsonObject,
      settings.schema as JsonObject
    );
    if (changes) {
      settings
        .save(JSON.stringify(changes, null, SETTINGS_INDENT))
        .catch(reason =>
          console.warn('Agent Panel: could not trim its settings.', reason)
        );
    }
  }

  private _isDisposed = false;
  private _settings: ISettingRegistry.ISettings | null = null;
  private _applied: IPanelSettings | null = null;
  private _reported = '';
  /** The id of the notification of the problems shown, if any. */
  private _notice: string | null = null;
}

export namespace SettingsFollower {
  export interface IOptions {
    registry: ISettingRegistry;
    pluginId: string;
    /** Called with the settings read, whenever they change. */
    apply: (settings: IPanelSettings) => void;
    /** The action of a notification about the settings' problems. */
    openSettings: () => void;
    trans: TranslationBundle;
  }
}
