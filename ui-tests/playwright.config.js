/**
 * Galata configuration: a real `jupyter lab` with this extension, driven in
 * Debian's Chromium (Playwright cannot download browsers here).
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

/** A free port on 127.0.0.1, chosen once here and inherited by the lab and the workers. */
function freePortOnce(variable) {
  if (!process.env[variable]) {
    process.env[variable] = execFileSync(process.env.PYTHON || 'python', [
      '-c',
      'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    ])
      .toString()
      .trim();
  }
  return process.env[variable];
}
// The LangGraph Agent Server of deployment.spec.ts, and the scripted
// OpenAI-compatible server of builtin-agent.spec.ts (jupyter_server_test_config.py
// names both to the lab).
// The lab too: a lab left running elsewhere on 8899 must not stop the run.
const port = freePortOnce('AGENT_PANEL_UI_PORT');
const agentServerPort = freePortOnce('AGENT_PANEL_AGENT_SERVER_PORT');
// A deployment deployment.spec.ts starts and stops itself.
freePortOnce('AGENT_PANEL_COMEBACK_PORT');
const openaiPort = freePortOnce('AGENT_PANEL_OPENAI_PORT');
// The lab's user settings in a folder of this run (JupyterLab reads
// $JUPYTERLAB_SETTINGS_DIR): settings-form.spec.ts reads the file the Settings
// Editor writes, and no run sees the user's own settings or another run's.
if (!process.env.JUPYTERLAB_SETTINGS_DIR) {
  process.env.JUPYTERLAB_SETTINGS_DIR = fs.mkdtempSync(
    path.join(os.tmpdir(), 'agent-panel-ui-settings-')
  );
}

module.exports = {
  ...baseConfig,
  reporter: [
    ['list'],
    ['json', { outputFile: 'test-results/results.json' }],
    ['html', { open: 'never' }]
  ],
  workers: 1,
  retries: 0,
  timeout: 120000,
  expect: { timeout: 30000 },
  use: {
    ...baseConfig.use,
    baseURL: `http://127.0.0.1:${port}`,
    video: 'off',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync'
      ]
    }
  },
  webServer: [
    {
      command: 'npm start',
      url: `http://127.0.0.1:${port}/lab`,
      timeout: 180000,
      reuseExistingServer: false
    },
    {
      // The model of the built-in agent (jupyterlab_agent_panel/tests/scripted_openai.py).
      command: `python ../jupyterlab_agent_panel/tests/scripted_openai.py --port ${openaiPort} --script notebook --api-key sk-galata-scripted-0000`,
      url: `http://127.0.0.1:${openaiPort}/v1/models`,
      timeout: 60000,
      reuseExistingServer: false
    },
    {
      // `langgraph dev` serving the tests' graphs (jupyterlab_agent_panel/tests/agent_server.py).
      command: `python ../jupyterlab_agent_panel/tests/agent_server.py --port ${agentServerPort}`,
      url: `http://127.0.0.1:${agentServerPort}/ok`,
      timeout: 180000,
      reuseExistingServer: false,
      gracefulShutdown: { signal: 'SIGTERM', timeout: 20000 }
    }
  ]
};
