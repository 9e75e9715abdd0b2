/**
 * What the panel shows when something the user asked for is refused (a
 * switch during a running turn, a queue edit that came too late): JupyterLab's
 * warning toast with the refusal's own words, gone after a few seconds since
 * nothing is lost and nothing needs an answer.
 */
import { Notification } from '@jupyterlab/apputils';
import { errorMessage } from '../../wire/json';

/** How long a refusal stays on screen. */
const REFUSAL_CLOSE_MS = 5000;

/** Show `error`, thrown by a refused action, as a passing warning. */
export function showRefusal(error: unknown): void {
  Notification.warning(errorMessage(error), { autoClose: REFUSAL_CLOSE_MS });
}
