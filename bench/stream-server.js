'use strict';
/**
 * The benchmarks' agent: a chunk-wire HTTP API on 127.0.0.1 (docs/protocol.md §6)
 * streaming pre-generated turns, and the baseline page. The chat message
 * `bench <turn> <pace> <marker>` names the turn (turns.js NAMED_TURNS), the
 * pace — `burst` (all at once) or `trickle` (~1,000 frames/s) — and the end
 * marker of its last delta. The panel calls it from the JupyterLab origin, so
 * every answer allows CORS.
 */
const fs = require('fs');
const http = require('http');
const path = require('path');
const { NAMED_TURNS, endFrames, sseEvent } = require('./turns');

const TRICKLE_FRAMES_PER_SECOND = 1000;
const TRICKLE_TICK_MS = 4;
/** The bare page and the one script it loads, by path. */
const BASELINE_FILES = {
  '/baseline': ['baseline.html', 'text/html; charset=utf-8'],
  '/limit-stream.js': ['limit-stream.js', 'text/javascript; charset=utf-8']
};
const BASELINE_BODIES = Object.fromEntries(
  Object.entries(BASELINE_FILES).map(([route, [file, type]]) => [
    route,
    { type, body: fs.readFileSync(path.join(__dirname, file)) }
  ])
);

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST',
  'Access-Control-Allow-Headers': 'content-type, accept',
  'Access-Control-Max-Age': '600'
};

/** Each named turn's events, encoded once: `{events, burst}`. */
const encodedTurns = new Map();

function encodedTurn(name) {
  if (!encodedTurns.has(name)) {
    const events = NAMED_TURNS[name]().map(sseEvent);
    encodedTurns.set(name, {
      events,
      burst: Buffer.from(events.join(''), 'utf-8')
    });
  }
  return encodedTurns.get(name);
}

function sendJson(response, status, body) {
  response.writeHead(status, {
    ...CORS_HEADERS,
    'Content-Type': 'application/json'
  });
  response.end(JSON.stringify(body));
}

async function readJson(request) {
  const parts = [];
  for await (const part of request) {
    parts.push(part);
  }
  return JSON.parse(Buffer.concat(parts).toString('utf-8'));
}

/** Stream the turn a chat message asks for. */
function streamTurn(message, response) {
  const match = /^bench (\S+) (burst|trickle) (\S+)/.exec(message);
  if (!match || !(match[1] in NAMED_TURNS)) {
    sendJson(response, 400, {
      message: `not a benchmark request: ${message.slice(0, 80)}`
    });
    return;
  }
  const [, name, pace, marker] = match;
  const turn = encodedTurn(name);
  const end = endFrames(marker).map(sseEvent).join('');
  response.writeHead(200, {
    ...CORS_HEADERS,
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache'
  });
  if (pace === 'burst') {
    response.write(turn.burst);
    response.end(end);
    return;
  }
  const events = [...turn.events, end];
  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const elapsedMs = performance.now() - started;
    const due = Math.min(
      events.length,
      Math.ceil((elapsedMs * TRICKLE_FRAMES_PER_SECOND) / 1000)
    );
    if (due > sent) {
      response.write(events.slice(sent, due).join(''));
      sent = due;
    }
    if (sent === events.length) {
      clearInterval(timer);
      response.end();
    }
  }, TRICKLE_TICK_MS);
  response.on('close', () => clearInterval(timer));
}

/** Resolvers of `nextHealthCheck()` promises, called by the next GET health. */
let healthWaiters = [];

async function route(request, response) {
  const { pathname } = new URL(request.url, 'http://127.0.0.1');
  if (request.method === 'OPTIONS') {
    response.writeHead(204, CORS_HEADERS);
    response.end();
  } else if (request.method === 'GET' && pathname === '/health') {
    healthWaiters.forEach(resolve => resolve());
    healthWaiters = [];
    sendJson(response, 200, {
      status: 'healthy',
      ready: true,
      agent_loaded: true,
      message: 'ok'
    });
  } else if (request.method === 'POST' && pathname === '/cancel') {
    sendJson(response, 200, {
      status: 'not_found',
      message: 'No active execution found for this thread'
    });
  } else if (request.method === 'POST' && pathname === '/chat') {
    streamTurn(String((await readJson(request)).message ?? ''), response);
  } else if (request.method === 'GET' && pathname in BASELINE_BODIES) {
    const { type, body } = BASELINE_BODIES[pathname];
    response.writeHead(200, { 'Content-Type': type });
    response.end(body);
  } else {
    sendJson(response, 404, {
      message: `no route ${request.method} ${pathname}`
    });
  }
}

/**
 * Listen on a free port of 127.0.0.1; resolves with its base URL, `close()`
 * and `nextHealthCheck()`, a promise of the next health check: a panel that
 * checks this endpoint's health has read the settings that point at it.
 */
function startStreamServer() {
  const server = http.createServer((request, response) => {
    route(request, response).catch(error =>
      sendJson(response, 400, { message: String(error) })
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        nextHealthCheck: () =>
          new Promise(resolve => healthWaiters.push(resolve)),
        close: () => {
          server.closeAllConnections();
          server.close();
        }
      });
    });
  });
}

module.exports = { startStreamServer };
