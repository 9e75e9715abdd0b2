/**
 * Asks a notebook's kernel for its user variables over the `agent_panel`
 * comm (docs/protocol.md §7.6), whatever endpoint the message goes to: a
 * comm of its own, opened for the one request and closed after it.
 */
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import { UUID } from '@lumino/coreutils';
import { isObject } from '../../wire/json';
import { COMM_PROTOCOL, subshellProblem } from './agent-channel';
import { CLIENT } from './comm';

/** One variable as the kernel summarised it. */
export interface IKernelVariable {
  name: string;
  type: string;
  shape?: number[];
  length?: number;
  dtype?: string;
  dtypes?: Record<string, string>;
  /** What the agent reads of it, worded by the kernel. */
  text: string;
  /** Describing it took longer than the kernel's cap. */
  timed_out?: boolean;
}

export interface IVariablesAnswer {
  variables: IKernelVariable[];
  /** Variables left out, and why (a time cap, too many). */
  omitted: { name: string; reason: string }[];
}

/** How long the panel waits for the answer (the kernel caps itself at about 2 s). */
export const VARIABLES_TIMEOUT_MS = 10_000;

/**
 * The kernel's user variables (`names`: only those). Rejects with a
 * sentence for the user when the helper is not loaded or does not answer.
 */
export function requestVariables(
  kernel: Kernel.IKernelConnection,
  trans: TranslationBundle,
  names?: string[],
  target = 'agent_panel',
  timeoutMs = VARIABLES_TIMEOUT_MS
): Promise<IVariablesAnswer> {
  const requestId = UUID.uuid4();
  const comm = kernel.createComm(target);
  return new Promise<IVariablesAnswer>((resolve, reject) => {
    let done = false;
    const finish = (error: string | null, answer?: IVariablesAnswer) => {
      if (done) {
        return;
      }
      done = true;
      clearTimeout(timer);
      comm.onClose = () => undefined;
      if (!comm.isDisposed) {
        comm.close();
      }
      if (error === null) {
        resolve(answer!);
      } else {
        reject(new Error(error));
      }
    };
    const timer = setTimeout(
      () =>
        finish(
          trans.__(
            'The kernel did not list its variables within %1 s (a running cell delays it until the cell ends).',
            timeoutMs / 1000
          )
        ),
      timeoutMs
    );
    comm.onClose = () =>
      finish(
        trans.__(
          'Run %1 in this notebook to send its variables.',
          '%load_ext jupyterlab_agent_panel'
        )
      );
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
      const data = msg.content.data;
      if (data.type === 'hello') {
        comm.send({
          type: 'variables',
          request_id: requestId,
          ...(names ? { names } : {})
        });
      } else if (data.type === 'variables' && data.request_id === requestId) {
        finish(null, readAnswer(data));
      } else if (data.type === 'rejected') {
        finish(
          trans.__(
            'The kernel refused to list its variables: %1',
            String(data.detail)
          )
        );
      }
    };
    void subshellProblem(kernel, comm)
      .catch(() => null)
      .then(() => {
        if (!done) {
          comm.open({ protocol: COMM_PROTOCOL, client: CLIENT });
        }
      });
  });
}

function readAnswer(data: Record<string, unknown>): IVariablesAnswer {
  const variables = Array.isArray(data.variables)
    ? data.variables.filter(
        (v): v is Record<string, unknown> =>
          isObject(v) &&
          typeof v.name === 'string' &&
          typeof v.text === 'string'
      )
    : [];
  const omitted = Array.isArray(data.omitted)
    ? data.omitted.filter(isObject)
    : [];
  return {
    variables: variables as unknown as IKernelVariable[],
    omitted: omitted.map(o => ({
      name: String(o.name),
      reason: String(o.reason)
    }))
  };
}
