/**
 * Galata configuration: a real `jupyter lab` with this extension, driven in
 * Debian's Chromium (Playwright cannot download browsers here).
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

const port = process.env.AGENT_PANEL_UI_PORT || '8899';

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
  webServer: {
    command: 'npm start',
    url: `http://127.0.0.1:${port}/lab`,
    timeout: 180000,
    reuseExistingServer: false
  }
};
