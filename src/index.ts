import { panelPlugin } from './plugins/panel';

export default [panelPlugin];
