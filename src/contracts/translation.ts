/**
 * How every part of the extension gets its strings: one translation domain,
 * loaded from JupyterLab's translator when a plugin has one and untranslated
 * (English) otherwise, in tests and in parts built without a translator.
 */
import {
  nullTranslator,
  type ITranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

/** The gettext domain of this extension's strings. */
const DOMAIN = 'jupyterlab_agent_panel';

/** The extension's strings in the user's language. */
export function panelStrings(
  translator?: ITranslator | null
): TranslationBundle {
  return (translator ?? nullTranslator).load(DOMAIN);
}
