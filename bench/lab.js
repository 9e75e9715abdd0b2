'use strict';
/**
 * A throwaway `jupyter lab` on 127.0.0.1 for the render benchmarks: its own
 * config, data, runtime, settings, workspace and root directories under `dir`, a
 * random token, and bench_proxy.py's routes forwarding turns to the stream
 * server (the agent panel's endpoint is `bench-stream/`; langstage-jupyter's
 * own server extension is disabled, its routes are the proxy's), and the
 * prebuilt labextensions it is given (the bench's minimal panel) linked into
 * its own data directory: no other lab sees them.
 */
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const net = require('net');
const path = require('path');

const START_TIMEOUT_MS = 180000;
const STOP_TIMEOUT_MS = 10000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

/** The agent panel's endpoint: the proxy's route on the lab's own server. */
const PANEL_ENDPOINT = 'bench-stream/';

/** User settings: the panel talks to the proxy; no news or update prompts. */
function writeSettings(settingsDir) {
  writeJson(
    path.join(
      settingsDir,
      'jupyterlab-agent-panel',
      'plugin.jupyterlab-settings'
    ),
    {
      endpoints: [{ name: 'bench', transport: 'http', url: PANEL_ENDPOINT }],
      defaultEndpoint: 'bench'
    }
  );
  writeJson(
    path.join(
      settingsDir,
      '@jupyterlab',
      'apputils-extension',
      'notification.jupyterlab-settings'
    ),
    { fetchNews: 'false', checkForUpdates: false }
  );
}

function wait(ms) {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/** Link each prebuilt labextension folder into `<data>/labextensions/<its name>`. */
function linkLabextensions(dataDir, folders) {
  for (const folder of folders) {
    const { name } = JSON.parse(
      fs.readFileSync(path.join(folder, 'package.json'), 'utf-8')
    );
    const link = path.join(dataDir, 'labextensions', name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(folder, link, 'dir');
  }
}

/**
 * Start `jupyter` (a venv's) and resolve once it answers, with the URL of
 * its lab page, its base URL and `stop()`. Its output goes to `dir/lab.log`.
 * `labextensions`: prebuilt labextension folders this lab alone loads.
 */
async function startLab({ jupyter, dir, streamUrl, labextensions = [] }) {
  const port = await freePort();
  const token = crypto.randomBytes(16).toString('hex');
  const sub = name => {
    const subDir = path.join(dir, name);
    fs.mkdirSync(subDir, { recursive: true });
    return subDir;
  };
  writeSettings(sub('settings'));
  linkLabextensions(sub('data'), labextensions);
  writeJson(path.join(sub('config'), 'jupyter_server_config.json'), {
    ServerApp: {
      jpserver_extensions: { bench_proxy: true, langstage_jupyter: false }
    }
  });
  const args = [
    'lab',
    '--ServerApp.ip=127.0.0.1',
    `--ServerApp.port=${port}`,
    '--ServerApp.port_retries=0',
    '--ServerApp.open_browser=False',
    `--ServerApp.root_dir=${sub('root')}`,
    `--IdentityProvider.token=${token}`,
    `--LabApp.user_settings_dir=${sub('settings')}`,
    `--LabApp.workspaces_dir=${sub('workspaces')}`,
    '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate'
  ];
  if (process.getuid() === 0) {
    args.push('--allow-root');
  }
  const logFile = path.join(dir, 'lab.log');
  const log = fs.openSync(logFile, 'w');
  const child = spawn(jupyter, args, {
    env: {
      ...process.env,
      JUPYTER_CONFIG_DIR: sub('config'),
      // The conversation store (and anything else kept there) stays in `dir`.
      JUPYTER_DATA_DIR: sub('data'),
      JUPYTER_RUNTIME_DIR: sub('runtime'),
      PYTHONPATH: __dirname,
      BENCH_STREAM_URL: streamUrl
    },
    stdio: ['ignore', log, log],
    // Its own process group, so stop() also ends what it started (kernels).
    detached: true
  });
  fs.closeSync(log);
  const exited = new Promise(resolve => child.once('exit', resolve));
  let running = true;
  exited.then(() => {
    running = false;
  });

  async function stop() {
    if (!running) {
      return;
    }
    process.kill(-child.pid, 'SIGTERM');
    if (await Promise.race([exited.then(() => true), wait(STOP_TIMEOUT_MS)])) {
      return;
    }
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  }

  const base = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && running) {
    try {
      const response = await fetch(`${base}api/status?token=${token}`);
      if (response.ok) {
        return {
          url: `${base}lab?token=${token}`,
          base,
          token,
          stop
        };
      }
    } catch {
      // not listening yet
    }
    await wait(250);
  }
  await stop();
  const tail = fs
    .readFileSync(logFile, 'utf-8')
    .split('\n')
    .slice(-20)
    .join('\n');
  throw new Error(`jupyter lab did not start on port ${port}:\n${tail}`);
}

module.exports = { PANEL_ENDPOINT, startLab };
