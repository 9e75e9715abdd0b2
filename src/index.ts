import { aguiPlugin } from './plugins/agui';
import { commPlugin } from './plugins/comm';
import { contextPlugin } from './plugins/context';
import { notebookPlugin } from './plugins/notebook';
import { panelPlugin } from './plugins/panel';
import { settingsFormPlugin } from './plugins/settings-form';

export default [
  panelPlugin,
  notebookPlugin,
  commPlugin,
  aguiPlugin,
  contextPlugin,
  settingsFormPlugin
];
