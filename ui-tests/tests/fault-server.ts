/**
 * The misbehaving endpoint of the reliability and security tests
 * (ui-tests/fault_server.py): started and stopped by the specs that use it,
 * on 127.0.0.1 at a port of its own, so for the panel it is an external
 * endpoint (another origin). Also a request log for the page: every request
 * the browser makes, with foreign hosts blocked and recorded.
 */
import { galata, type IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Page, Request } from '@playwright/test';
import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';

import { PLUGIN_ID } from './review-panel-helpers';

const UI_PORT = Number(process.env.AGENT_PANEL_UI_PORT ?? 8899);
export const FAULT_PORT = Number(
  process.env.AGENT_PANEL_FAULT_PORT ?? UI_PORT + 10
);
export const FAULT_URL = `http://127.0.0.1:${FAULT_PORT}/`;
export const FAULT_ENDPOINT = 'Fault server';

export interface IEndpointOverrides {
  connectTimeoutSeconds?: number;
  idleTimeoutSeconds?: number;
}

/** Galata settings that make the fault server the panel's endpoint. */
export function faultEndpoint(
  overrides: IEndpointOverrides = {}
): Record<string, unknown> {
  return {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN_ID]: {
      endpoints: [
        {
          name: FAULT_ENDPOINT,
          transport: 'http',
          url: FAULT_URL,
          connectTimeoutSeconds: 30,
          idleTimeoutSeconds: 600,
          ...overrides
        }
      ],
      defaultEndpoint: FAULT_ENDPOINT
    }
  };
}

export interface IReceived {
  method: string;
  path: string;
  headers: Record<string, string>;
}

/** The Python process; `start()` resolves once it listens. */
export class FaultServer {
  static async start(): Promise<FaultServer> {
    const script = path.resolve(__dirname, '..', 'fault_server.py');
    const child = spawn(
      process.env.AGENT_PANEL_PYTHON ?? 'python',
      [script, '--port', String(FAULT_PORT)],
      { stdio: ['ignore', 'pipe', 'pipe'] }
    );
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`fault server did not start: ${output}`)),
        30000
      );
      const listen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', listen);
      child.stderr!.on('data', listen);
      child.on('exit', code => {
        clearTimeout(timer);
        reject(new Error(`fault server exited (${code}): ${output}`));
      });
    });
    return new FaultServer(child);
  }

  private constructor(private readonly _child: ChildProcess) {}

  /** Stop it by its own PID and wait until it is gone. */
  async stop(): Promise<void> {
    if (this._child.exitCode !== null) {
      return;
    }
    const exited = new Promise(resolve => this._child.once('exit', resolve));
    this._child.kill('SIGTERM');
    await exited;
  }

  /** What the fault server received, oldest first. */
  async received(): Promise<IReceived[]> {
    const response = await fetch(`${FAULT_URL}_log`);
    return (await response.json()) as IReceived[];
  }
}

export interface ILoggedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The request came from the lab's own page (not a tab a link opened). */
  fromLab: boolean;
}

/**
 * Records every request of the browser context and blocks those to any host
 * but 127.0.0.1: nothing the agent shows may reach another server.
 */
export class RequestLog {
  static async attach(lab: IJupyterLabPageFixture): Promise<RequestLog> {
    const labPage = playwrightPage(lab);
    const context = labPage.context();
    const log = new RequestLog(labPage);
    context.on('request', request => void log._record(request));
    await context.route('**/*', route => {
      const url = new URL(route.request().url());
      return url.hostname === '127.0.0.1' ? route.fallback() : route.abort();
    });
    return log;
  }

  private constructor(private readonly _labPage: Page) {}

  readonly requests: ILoggedRequest[] = [];

  /** Requests to any host but 127.0.0.1 (http and https; not data: or blob:). */
  foreign(): ILoggedRequest[] {
    return this.requests.filter(request => {
      const url = new URL(request.url);
      return url.protocol.startsWith('http') && url.hostname !== '127.0.0.1';
    });
  }

  /** Requests to the fault server. */
  toFaultServer(): ILoggedRequest[] {
    return this.requests.filter(request => request.url.startsWith(FAULT_URL));
  }

  private async _record(request: Request): Promise<void> {
    const entry: ILoggedRequest = {
      url: request.url(),
      method: request.method(),
      headers: {},
      fromLab: pageOf(request) === this._labPage
    };
    this.requests.push(entry);
    entry.headers = await request.allHeaders().catch(() => request.headers());
  }
}

/** The Playwright page behind Galata's page fixture (a proxy). */
export function playwrightPage(page: IJupyterLabPageFixture): Page {
  return (page as unknown as { page: Page }).page;
}

/** The page a request belongs to (null for a service worker's). */
function pageOf(request: Request): unknown {
  try {
    return request.frame().page();
  } catch {
    return null;
  }
}
