// Raw-socket HTTP/1.1 helpers for the transport tests: write exact bytes (pipelined requests,
// half-close, duplicate headers, slow headers) to a server on 127.0.0.1 and parse the responses
// that come back. Every wait is bounded by a timeout. CommonJS; no npm peers.
'use strict';
const net = require('net');

// Opens a connection that may be half-closed (end() keeps reading).
function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

// Collects what `socket` receives. received() -> Buffer; closed() -> ms since creation when the
// server ended the connection, else null; waitFor(pred, ms) -> resolves when pred(buffer) or the
// connection closed or the time is up.
function reader(socket) {
  const start = performance.now();
  let data = Buffer.alloc(0);
  let closedAt = null;
  const waiters = new Set();
  const wake = () => { for (const w of [...waiters]) w(); };
  socket.on('data', (d) => { data = Buffer.concat([data, d]); wake(); });
  const onEnd = () => { if (closedAt === null) closedAt = performance.now() - start; wake(); };
  socket.on('end', onEnd);
  socket.on('close', onEnd);
  socket.on('error', () => {});  // a reset ends it like a close
  return {
    received: () => data,
    closed: () => closedAt,
    waitFor(pred, ms) {
      return new Promise((resolve) => {
        const check = () => {
          if (pred(data) || closedAt !== null) { waiters.delete(check); clearTimeout(timer); resolve(data); }
        };
        const timer = setTimeout(() => { waiters.delete(check); resolve(data); }, ms);
        waiters.add(check);
        check();
      });
    },
  };
}

// Parses back-to-back HTTP/1.1 responses (Content-Length or chunked bodies; interim 1xx skipped).
// Returns the complete ones: [{status, headers (lower-case names), body}].
function parseResponses(buffer) {
  const out = [];
  let text = buffer.toString('latin1');
  for (;;) {
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const lines = text.slice(0, end).split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let rest = text.slice(end + 4);
    if (status >= 100 && status < 200) { text = rest; continue; }
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        if (lineEnd < 0) return out;
        const size = parseInt(rest.slice(0, lineEnd), 16);
        if (rest.length < lineEnd + 2 + size + 2) return out;
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (rest.length < length) return out;
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    out.push({ status, headers, body: Buffer.from(body, 'latin1').toString('utf8') });
    text = rest;
  }
}

// Writes `bytes` on a new connection (then half-closes when asked) and resolves with the parsed
// responses once `count` of them arrived (and, after a half-close, the server closed too), the
// server closed, or `ms` passed.
async function exchange(port, bytes, { count = 1, halfClose = false, ms = 10000 } = {}) {
  const socket = await connect(port);
  const r = reader(socket);
  socket.write(bytes);
  if (halfClose) socket.end();
  await r.waitFor((d) => parseResponses(d).length >= count, ms);
  if (halfClose) await r.waitFor(() => false, ms);
  socket.destroy();
  return { responses: parseResponses(r.received()), closed: r.closed() };
}

function request(method, path, { body = '', headers = {} } = {}) {
  let head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  if (body && !Object.keys(headers).some((k) => /content-length|transfer-encoding/i.test(k)))
    head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return head + '\r\n' + body;
}

module.exports = { connect, reader, parseResponses, exchange, request };
