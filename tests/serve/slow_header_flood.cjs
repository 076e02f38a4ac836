// A flood of slow-header clients from one address, run as a process of its own (so that the
// test's probes are not delayed by its event loop): N clients each open a connection to
// 127.0.0.1:PORT, send part of a request header that never ends, and reconnect at once when the
// server closes it (or after 3 s). Prints "flooding" once every client has connected once, and
// "opened K" (the connections opened) when it ends: on SIGTERM, or MS milliseconds after it began
// (a bound in case nobody stops it).
//   node slow_header_flood.cjs PORT N MS
'use strict';
const { connect } = require('./raw_http.cjs');

const [port, clients, ms] = process.argv.slice(2).map(Number);
const until = Date.now() + ms;
const sleep = (t) => new Promise((r) => setTimeout(r, t));
let opened = 0;

async function slowClient() {
  while (Date.now() < until) {
    const socket = await connect(port).catch(() => null);
    if (!socket) { await sleep(5); continue; }
    opened++;
    socket.on('error', () => {});
    socket.write('GET /health HTTP/1.1\r\nHo');  // never finished
    await new Promise((resolve) => {
      socket.once('end', resolve);
      socket.once('close', resolve);
      setTimeout(resolve, Math.min(3000, Math.max(0, until - Date.now())));
    });
    socket.destroy();
  }
}

function end() {
  console.log(`opened ${opened}`);
  process.exit(0);
}
process.on('SIGTERM', end);
const started = setInterval(() => {
  if (opened < clients) return;
  clearInterval(started);
  console.log('flooding');
}, 10);
Promise.all(Array.from({ length: clients }, slowClient)).then(end);
