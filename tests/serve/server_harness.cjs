// Starting and stopping `ogai serve` for the HTTP tests and the load benchmark, plus small HTTP and
// /proc helpers. CommonJS; no npm peers needed here.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');

// Starts `ogai serve PKG ...args` (with --port 0 unless args name a port); resolves once it prints its address on stderr.
// `env`: variables added to this process's environment for the server. The tests' servers are
// greedy for requests that set no temperature (`--temperature 0`, so answers are reproducible)
// unless args give one or `openaiDefaults` keeps the server's own default (OpenAI's: sampled).
function startServer(ogai, pkg, args = [], env = {}, { openaiDefaults = false } = {}) {
  return new Promise((resolve, reject) => {
    const port = args.includes('--port') ? [] : ['--port', '0'];
    const greedy = openaiDefaults || args.includes('--temperature') ? [] : ['--temperature', '0'];
    const proc = spawn(ogai, ['serve', pkg, ...port, ...greedy, ...args],
                       { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`ogai serve did not start:\n${stderr}`)); }, 30000);
    proc.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on http:\/\/([^\s:]+):(\d+)/.exec(stderr);
      if (m && !proc.started) {
        proc.started = true;
        clearTimeout(timer);
        resolve({ proc, pid: proc.pid, url: `http://${m[1]}:${m[2]}`, stderr: () => stderr });
      }
    });
    proc.on('exit', (code) => {
      proc.exitCode_ = code;
      if (!proc.started) { clearTimeout(timer); reject(new Error(`ogai serve exited ${code}:\n${stderr}`)); }
    });
  });
}

// Sends `signal` and resolves with {code, ms, stderr} once the process exited (rejects after 15 s).
function stopServer(server, signal = 'SIGTERM') {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const done = () => resolve({ code: server.proc.exitCode_ ?? server.proc.exitCode, signal: server.proc.signalCode,
                                 ms: Date.now() - start, stderr: server.stderr() });
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) return done();  // exited, or died
    const timer = setTimeout(() => { server.proc.kill('SIGKILL'); reject(new Error(`ogai serve ignored ${signal}`)); }, 15000);
    server.proc.on('exit', () => { clearTimeout(timer); done(); });
    server.proc.kill(signal);
  });
}

// fetch() that resolves with {status, headers, text, json}.
async function http(url, options = {}) {
  let res;
  try {
    res = await fetch(url, options);
  } catch (e) {  // undici says only "fetch failed"; the cause says how (refused, reset, closed)
    const cause = e.cause ? ` (${e.cause.code || ''} ${e.cause.message || e.cause})` : '';
    throw new Error(`${options.method || 'GET'} ${url}: ${e.message}${cause}`);
  }
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}

function postJson(url, body) {
  return http(url, { method: 'POST', headers: { 'content-type': 'application/json' },
                     body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body) });
}

// A sample of Prometheus text: metric(text, 'name{labels}') -> number (0 when absent).
function metric(text, series) {
  for (const line of text.split('\n')) {
    if (line.startsWith(series + ' ')) return Number(line.slice(series.length + 1));
  }
  return 0;
}

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

module.exports = { startServer, stopServer, http, postJson, metric, rssKiB };
