/**
 * The Settings Editor's form for the panel: "Default endpoint" chooses among
 * the endpoints' names (`panel/settings/default-endpoint-field.tsx`).
 */
import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ITranslator } from '@jupyterlab/translation';
import { IFormRendererRegistry } from '@jupyterlab/ui-components';
// The form asks for its field synchronously; the field is a few lines over
// the settings reader the panel plugin loads at start anyway.
/* eslint-disable jupyter/prefer-lazy-imports */
import { defaultEndpointField } from '../panel/settings/default-endpoint-field';
import { PLUGIN_ID } from './panel';
import { panelStrings } from '../contracts/translation';
/* eslint-enable jupyter/prefer-lazy-imports */

export const settingsFormPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-agent-panel:settings-form',
  description: "The Agent Panel's fields in the Settings Editor's form.",
  autoStart: true,
  requires: [IFormRendererRegistry],
  optional: [ITranslator],
  activate: (
    _app: JupyterFrontEnd,
    forms: IFormRendererRegistry,
    translator: ITranslator | null
  ): void => {
    const trans = panelStrings(translator);
    forms.addRenderer(`${PLUGIN_ID}.defaultEndpoint`, {
      fieldRenderer: defaultEndpointField(trans)
    });
  }
};
