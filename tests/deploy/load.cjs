// Load for replicas behind a balancer (tests/deploy/balancers_e2e.cjs, bench): `clients` closed-
// loop clients send streamed chat completions for `seconds`; each picks one of `prompts` (long
// system prompts) per request and sends the x-prefix-hash header of deploy/client/prefix_hash.cjs
// (`affinity`) or a random one. Every request is checked: HTTP 200, an x-ogai-replica header,
// at least one token and the stream's final [DONE]; anything else is a failure, with its reason.
// CommonJS, no npm peers.
'use strict';
const crypto = require('crypto');
const { prefixHash } = require('../../deploy/client/prefix_hash.cjs');

// Up to 24 system prompts that differ from their first word on, each several hundred characters,
// so a replica that holds one's KV skips most of a request's prefill.
const subjects = ['a red fox', 'an old lighthouse', 'a brave little ant', 'a sleepy dragon', 'a lost kitten',
                  'a wooden boat', 'a tall giraffe', 'a singing bird', 'a shy turtle', 'a green frog',
                  'a busy bee', 'a silver moon', 'a kind farmer', 'a little train', 'a big bear', 'a white cloud',
                  'a funny monkey', 'a quiet owl', 'a fast rabbit', 'a yellow duck', 'a magic tree', 'a blue whale',
                  'a tiny mouse', 'a happy pig'];
function systemPrompts(count = 8, repeat = 6) {
  return subjects.slice(0, count).map((s, i) =>
    `${i + 1}. You tell short stories about ${s}. ` +
    `The story about ${s} is kind and simple, and ${s} is happy at the end. `.repeat(repeat));
}

function chatBody(model, system, user, maxTokens) {
  return { model, messages: [{ role: 'system', content: system }, { role: 'user', content: user }],
           max_tokens: maxTokens, temperature: 0, stream: true };
}

// One streamed request: {ok, status, replica, ttft_ms, ms, tokens, reason}.
async function streamedRequest(url, body, headers) {
  const start = performance.now();
  let res;
  try {
    res = await fetch(url + '/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  } catch (e) {
    return { ok: false, status: 0, reason: `no answer: ${e.cause ? e.cause.code || e.cause.message : e.message}` };
  }
  const replica = res.headers.get('x-ogai-replica');
  if (res.status !== 200) {
    const text = await res.text().catch(() => '');
    return { ok: false, status: res.status, replica, reason: `HTTP ${res.status}: ${text.slice(0, 200)}` };
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let ttft = null;
  let tokens = 0;
  let done = false;
  try {
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (event === 'data: [DONE]') { done = true; continue; }
        if (!event.startsWith('data: {')) continue;
        const data = JSON.parse(event.slice(6));
        if (data.error) return { ok: false, status: 200, replica, reason: `stream error: ${data.error.code}` };
        const delta = data.choices && data.choices[0] && data.choices[0].delta;
        if (delta && delta.content) {
          if (ttft === null) ttft = performance.now() - start;
          tokens++;
        }
      }
    }
  } catch (e) {
    return { ok: false, status: 200, replica, reason: `stream broken: ${e.message}` };
  }
  if (!replica) return { ok: false, status: 200, reason: 'no x-ogai-replica header' };
  if (!done || tokens === 0) return { ok: false, status: 200, replica, reason: `stream ended early (${tokens} tokens)` };
  return { ok: true, status: 200, replica, ttft_ms: ttft, ms: performance.now() - start, tokens };
}

// Runs the load for `warmup` + `seconds`; resolves with {requests, ok, failures: [reasons],
// byReplica: {id: n}, byPrompt: [{replica: n}], ttft_ms: [..]}. Failures count over the whole run;
// the other figures only for requests sent after the warm-up, when `onWarm` (optional, e.g. a
// metrics snapshot) has been awaited: the first requests of a run find caches that an earlier
// load filled, and the first wave of a closed loop is admitted before any request ended.
async function runLoad({ url, model, clients = 64, seconds = 5, warmup = 0, onWarm = async () => {},
                         prompts = systemPrompts(), affinity = true, maxTokens = 8 }) {
  const start = performance.now();
  const until = start + (warmup + seconds) * 1000;
  let warm = warmup <= 0;
  const warming = warm ? onWarm() : new Promise((r) => setTimeout(r, warmup * 1000)).then(onWarm).then(() => { warm = true; });
  const out = { requests: 0, ok: 0, failures: [], byReplica: {}, byPrompt: prompts.map(() => ({})), ttft_ms: [] };
  const hashes = prompts.map((p) => prefixHash({ messages: [{ role: 'system', content: p }] }));
  async function client(c) {
    for (let i = 0; performance.now() < until; i++) {
      const p = (c * 7 + i * 3) % prompts.length;
      // One question per prompt (an assistant's fixed instructions and its common question): the
      // prefix cache then holds one entry per prompt, so its hit rate reads the routing alone.
      const body = chatBody(model, prompts[p], 'Tell me a story.', maxTokens);
      // Without affinity a random key per request: the balancer spreads the load freely (and
      // HAProxy does not hash the body, which it does for requests without a key).
      const headers = { 'x-prefix-hash': affinity ? hashes[p] : crypto.randomBytes(8).toString('hex') };
      const counted = warm;
      const r = await streamedRequest(url, body, headers);
      out.requests++;
      if (!r.ok) { out.failures.push(r.reason); continue; }
      if (!counted) continue;
      out.ok++;
      out.byReplica[r.replica] = (out.byReplica[r.replica] || 0) + 1;
      out.byPrompt[p][r.replica] = (out.byPrompt[p][r.replica] || 0) + 1;
      out.ttft_ms.push(r.ttft_ms);
    }
  }
  await Promise.all([warming, ...Array.from({ length: clients }, (_, c) => client(c))]);
  return out;
}

function mean(xs) { return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN; }

module.exports = { runLoad, streamedRequest, systemPrompts, chatBody, mean };
