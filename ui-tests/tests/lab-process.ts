/**
 * A `jupyter lab` of a spec's own (the UI tests' config, on a port of its
 * own, its conversations, agent memory and files under one state folder), for
 * the specs that stop and start their server or need one set up otherwise:
 * server-restart.spec.ts and collaboration.spec.ts.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import { waitForUrl } from './review-panel-helpers';

const UI_TESTS = path.resolve(__dirname, '..');
/** Where scripts/setup --ui installs jupyter-collaboration (ui-tests/rtc-requirements.txt). */
const COLLABORATION =
  process.env.AGENT_PANEL_RTC_PACKAGES ??
  path.resolve(UI_TESTS, '..', '.venv', 'rtc');

export interface ILabOptions {
  port: number;
  /** The folder of its conversations and memory; the notebooks are in `root/` under it. */
  state: string;
  /** With real-time collaboration (jupyter-collaboration) on. */
  collaboration?: boolean;
  /** More command-line options, e.g. `--AgentPanel.checkpointer_url=memory`. */
  options?: string[];
}

/** The folder the lab serves: where a test reads its notebooks from disk. */
export function labRoot(state: string): string {
  return path.join(state, 'root');
}

/** Environment and options that put jupyter-collaboration on this lab's paths only. */
function collaboration(state: string): {
  env: Record<string, string>;
  options: string[];
} {
  if (!fs.existsSync(path.join(COLLABORATION, 'jupyter_server_ydoc'))) {
    throw new Error(
      `jupyter-collaboration is not installed in ${COLLABORATION}: run scripts/setup --ui`
    );
  }
  const joined = (extra: string, inherited?: string) =>
    [extra, inherited].filter(Boolean).join(path.delimiter);
  return {
    env: {
      PYTHONPATH: joined(COLLABORATION, process.env.PYTHONPATH),
      JUPYTER_PATH: joined(
        path.join(COLLABORATION, 'share', 'jupyter'),
        process.env.JUPYTER_PATH
      ),
      JUPYTER_CONFIG_PATH: joined(
        path.join(COLLABORATION, 'etc', 'jupyter'),
        process.env.JUPYTER_CONFIG_PATH
      )
    },
    // Its document history and file ids in the state folder, not the user's.
    options: [
      `--SQLiteYStore.db_path=${path.join(state, 'ystore.db')}`,
      `--BaseFileIdManager.db_path=${path.join(state, 'file_id.db')}`
    ]
  };
}

/** Start the lab; resolves once it answers. */
export async function startLab(options: ILabOptions): Promise<ChildProcess> {
  const root = labRoot(options.state);
  fs.mkdirSync(root, { recursive: true });
  const rtc = options.collaboration
    ? collaboration(options.state)
    : { env: {}, options: [] };
  const lab = spawn(
    'jupyter',
    [
      'lab',
      '--config',
      'jupyter_server_test_config.py',
      `--ServerApp.root_dir=${root}`,
      ...rtc.options,
      ...(options.options ?? [])
    ],
    {
      cwd: UI_TESTS,
      env: {
        ...process.env,
        ...rtc.env,
        AGENT_PANEL_UI_PORT: `${options.port}`,
        AGENT_PANEL_UI_STATE: options.state
      },
      stdio: ['ignore', 'ignore', 'inherit']
    }
  );
  await waitForUrl(`http://127.0.0.1:${options.port}/api/status`);
  return lab;
}

/**
 * Stop the lab: SIGTERM, after which it saves and shuts its kernels down;
 * SIGKILL if it has not exited `grace` ms later. With jupyter-collaboration
 * the server does its shutdown and then waits forever on an AnyIO worker
 * thread of the document store, which is not a daemon (seen with py-spy).
 */
export async function stopLab(lab: ChildProcess, grace = 20000): Promise<void> {
  if (lab.exitCode !== null || lab.signalCode !== null) {
    return;
  }
  const exited = new Promise(resolve => lab.once('exit', resolve));
  lab.kill('SIGTERM');
  const timer = setTimeout(() => lab.kill('SIGKILL'), grace);
  await exited;
  clearTimeout(timer);
}
