import { LabIcon } from '@jupyterlab/ui-components';
import agentSvg from '../style/icons/agent.svg';

export const agentIcon = new LabIcon({
  name: 'jupyterlab-agent-panel:agent',
  svgstr: agentSvg
});
