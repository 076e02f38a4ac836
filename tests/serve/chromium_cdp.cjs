// A headless Chromium driven over the Chrome DevTools Protocol for the browser tests: Debian's
// `chromium` started with --remote-debugging-pipe (commands as NUL-terminated JSON on its fd 3,
// replies and events on fd 4), so no WebSocket client is needed. One page per Browser; the
// console errors, exceptions and Content-Security-Policy reports of that page are collected.
// CommonJS; no npm peers.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((c) => fs.existsSync(c));

class Browser {
  // Starts Chromium with a fresh profile and opens one page of `width` x `height` CSS pixels.
  static async launch({ width = 1200, height = 800 } = {}) {
    if (!CHROMIUM) throw new Error('chromium is not installed (Debian package chromium; scripts/install_deps.sh)');
    const b = new Browser();
    b.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-chromium-'));
    b.proc = spawn(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
                              '--disable-extensions', '--hide-scrollbars', '--remote-debugging-pipe',
                              `--user-data-dir=${b.profile}`, 'about:blank'],
                   { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    b.stderr = '';
    b.proc.stderr.on('data', (d) => { b.stderr += d; });
    b.proc.stdio[4].on('data', (d) => b.receive(d));
    b.proc.on('error', (e) => { b.stderr += `cannot run ${CHROMIUM}: ${e.message}\n`; });
    b.proc.on('exit', () => {
      for (const { reject } of b.pending.values()) reject(new Error(`chromium exited:\n${b.stderr}`));
      b.pending.clear();
    });
    const { targetId } = await b.send('Target.createTarget', { url: 'about:blank' });
    b.session = (await b.send('Target.attachToTarget', { targetId, flatten: true })).sessionId;
    await b.page('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    await b.page('Page.enable');
    await b.page('Runtime.enable');
    await b.page('Log.enable');
    return b;
  }

  constructor() {
    this.nextId = 1;
    this.pending = new Map();
    this.buffer = Buffer.alloc(0);
    this.listeners = [];
    this.problems = [];  // console errors, exceptions and policy violations of the page
  }

  receive(data) {
    this.buffer = Buffer.concat([this.buffer, data]);
    let end;
    while ((end = this.buffer.indexOf(0)) >= 0) {
      const message = JSON.parse(this.buffer.subarray(0, end).toString('utf8'));
      this.buffer = this.buffer.subarray(end + 1);
      if (message.id !== undefined) {
        const p = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) p.reject(new Error(`${p.method}: ${message.error.message}`));
        else p.resolve(message.result);
      } else {
        this.event(message);
      }
    }
  }

  event({ method, params }) {
    if (method === 'Runtime.exceptionThrown') this.problems.push(`exception: ${params.exceptionDetails.exception?.description || params.exceptionDetails.text}`);
    if (method === 'Runtime.consoleAPICalled' && params.type === 'error')
      this.problems.push(`console.error: ${params.args.map((a) => a.value ?? a.description).join(' ')}`);
    if (method === 'Log.entryAdded' && params.entry.level === 'error') this.problems.push(`${params.entry.source}: ${params.entry.text}`);
    for (const l of [...this.listeners]) if (l.method === method) l.callback(params);
  }

  // One command; rejects when Chromium answers an error, exits, or stays silent for `ms`.
  send(method, params = {}, sessionId = undefined, ms = 30000) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`chromium did not answer ${method} within ${ms} ms:\n${this.stderr}`));
      }, ms);
      const done = (f) => (v) => { clearTimeout(timer); f(v); };
      this.pending.set(id, { resolve: done(resolve), reject: done(reject), method });
      this.proc.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0');
    });
  }

  page(method, params = {}) { return this.send(method, params, this.session); }

  // Resolves with the params of the next `method` event (rejects after `ms`).
  once(method, ms = 15000) {
    return new Promise((resolve, reject) => {
      const l = { method, callback: (p) => { clearTimeout(timer); this.listeners.splice(this.listeners.indexOf(l), 1); resolve(p); } };
      const timer = setTimeout(() => { this.listeners.splice(this.listeners.indexOf(l), 1); reject(new Error(`no ${method} in ${ms} ms`)); }, ms);
      this.listeners.push(l);
    });
  }

  async navigate(url) {
    const loaded = this.once('Page.loadEventFired');
    await this.page('Page.navigate', { url });
    await loaded;
  }

  // The value of a page expression (awaited when it is a promise); its exception is thrown here.
  async evaluate(expression) {
    const r = await this.page('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  }

  // Polls `expression` until it is truthy; returns its value (throws `what` after `ms`).
  async waitFor(expression, what, ms = 15000) {
    const end = Date.now() + ms;
    for (;;) {
      const v = await this.evaluate(expression);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${expression})`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async screenshot(file) {
    const { data } = await this.page('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(file, Buffer.from(data, 'base64'));
  }

  async close() {
    try { await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 3000))]); } catch { /* gone */ }
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGKILL');
      await exited;
    }
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

module.exports = { Browser };
