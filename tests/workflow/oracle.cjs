// An independent oracle for the workflow interpreter (digest section 13): the three conformance
// fixtures' loops wired by hand from their inference_metadata.yaml, each graph run on
// onnxruntime-node (the npm peer), with the loop rules of digest section 5 written out here (pre-test
// activity, the inactive-row merge for non-service cells, ragged per-row emits, the
// indexed_scatter bounds check, the grammar-guidance@1 adapter). Nothing here reads ogai's code.
// Each case runs the oracle and `ogai run ... --json` and requires the same outputs; the oracle's
// own values are also pinned, so a change of the wiring shows even if both sides moved.
// Usage: oracle.cjs OGAI_EXE  (OGAI_SHARED_DIR, OGAI_SOURCE_DIR set; run through run_node.sh)
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const ort = require('../peers/peers.cjs')('onnxruntime-node');

const OGAI = process.argv[2];
const FIXTURES = path.join(process.env.OGAI_SHARED_DIR, 'conformance', 'metadata', 'fixtures');
const MODELS = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_oracle_'));
process.on('exit', () => fs.rmSync(MODELS, { recursive: true, force: true }));
execFileSync('/usr/bin/python3', [path.join(process.env.OGAI_SOURCE_DIR, 'tools', 'textproto_to_onnx.py'), FIXTURES, MODELS]);

// ---- tensors -------------------------------------------------------------------------------
const i64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims || [values.length]);
const f32 = (values, dims) => new ort.Tensor('float32', Float32Array.from(values), dims || [values.length]);
const bool = (values, dims) => new ort.Tensor('bool', Uint8Array.from(values.map((v) => (v ? 1 : 0))), dims || [values.length]);
const num = (t) => Array.from(t.data, (v) => (typeof v === 'bigint' ? Number(v) : t.type === 'bool' ? Boolean(v) : v));
const fill = (n, v) => new Array(n).fill(v);
// Row r of a tensor whose axis 0 is the batch, as a flat array.
function rowOf(t, r) {
  const per = t.dims.slice(1).reduce((a, b) => a * b, 1);
  return num(t).slice(r * per, (r + 1) * per);
}
// Restores rows where keep[r] from `old` into a copy of `next` (same shapes).
function restoreRows(old, next, keep) {
  const per = next.dims.slice(1).reduce((a, b) => a * b, 1);
  const data = next.data.slice();
  keep.forEach((k, r) => { if (k) for (let i = 0; i < per; ++i) data[r * per + i] = old.data[r * per + i]; });
  return new ort.Tensor(next.type, data, next.dims);
}

const sessions = {};
async function call(fixture, component, feeds) {
  const file = { proposer: 'proposer/model.onnx', verifier: 'verifier/model.onnx', model: 'model.onnx' }[component] ||
    `policies/${component}.onnx`;
  const key = `${fixture}/${file}`;
  if (!sessions[key]) sessions[key] = await ort.InferenceSession.create(path.join(MODELS, fixture, file));
  return sessions[key].run(feeds);
}

// ---- decoder (digest 9.1) -----------------------------------------------------------------
async function decoderOracle(q) {
  const B = q.ids.length, W = q.ids[0].length;
  const call_ = (c, f) => call('decoder', c, f);
  const maxIt = i64([q.max]);
  const one = i64(fill(B, 1)), zero = i64(fill(B, 0));
  const ids = i64(q.ids.flat(), [B, W]);
  const init = await call_('decoder_state_initializer', { prompt_tokens: ids, prompt_lengths: i64(q.lengths), max_iterations: maxIt });
  const pre = await call_('model', { input_ids: ids, 'past_key_values.0.key': init['past_key_values.0.key'],
    attention_mask: init.attention_mask, position_ids: init.position_ids });
  const tb = await call_('termination_batch_initializer', { input_eos_ids: i64(q.eos.flat(), [B, q.eos[0].length]),
    input_eos_lengths: i64(q.eosLengths), input_max_iterations: i64(q.rowMax), fallback_max_iterations: maxIt,
    active: bool(q.active) });
  const last = await call_('last_token_logits', { logits: pre.logits });
  let c = { token: init.token_slot, logits: last.last_logits, generated_lengths: init.generated_lengths,
    active: bool(q.active), done: bool(fill(B, false)), cache_lengths: init.cache_lengths, accepted_len: zero,
    rng_counter: i64(q.counter), attention_mask: init.attention_mask, position_ids: init.body_position_ids,
    cache_0: pre['present.0.key'] };
  const rows = {};
  for (let i = 0; i < q.max; ++i) {
    const flags = q.stopOnEos ? num(c.active) : fill(B, true);
    if (!flags.some((f) => f)) break;
    const s = await call_('token_sampler', { logits: c.logits, temperature: f32(q.temperature), top_k: i64(q.topK),
      top_p: f32(q.topP), min_p: f32(q.minP), seed: i64(q.seed), counter: c.rng_counter, active: c.active, done: c.done });
    const slot = (await call_('token_to_slot', { token: s.token })).slot;
    const lens = (await call_('generated_length_update', { left: c.generated_lengths, right: one, active: c.active, done: c.done })).total;
    const emitted = (await call_('generated_length_update', { left: zero, right: one, active: c.active, done: c.done })).total;
    const tokenBody = (await call_('token_state_update', { current: c.token, update: slot, active: c.active, done: c.done })).next;
    const t = await call_('termination', { tokens: s.token, eos_ids: tb.row_eos_ids, eos_lengths: tb.eos_lengths,
      iteration: i64([i]), max_iterations: tb.max_iterations, active: c.active });
    const cl = (await call_('cache_length_update', { left: c.cache_lengths, right: one, active: c.active, done: c.done })).total;
    const acc = (await call_('cache_length_update', { left: zero, right: one, active: c.active, done: c.done })).total;
    const act = num(c.active), n = num(emitted);
    for (let r = 0; r < B; ++r) if (act[r]) rows[r] = (rows[r] || []).concat(rowOf(tokenBody, r).slice(0, n[r]));
    const step = await call_('decoder_step_update', { attention_mask: c.attention_mask, logical_length: c.cache_lengths,
      position_ids: c.position_ids });
    const body = await call_('model', { input_ids: tokenBody, 'past_key_values.0.key': c.cache_0,
      attention_mask: step.next_attention_mask, position_ids: c.position_ids });
    const next = { token: tokenBody, logits: (await call_('last_token_logits', { logits: body.logits })).last_logits,
      generated_lengths: lens, active: t.next_active, done: t.done, cache_lengths: cl, accepted_len: acc,
      rng_counter: s.next_counter, attention_mask: step.next_attention_mask, position_ids: step.next_position_ids,
      cache_0: body['present.0.key'] };
    if (B > 1 && flags.some((f) => !f)) {
      const keep = flags.map((f) => !f);
      for (const k of Object.keys(next)) if (k !== 'cache_0') next[k] = restoreRows(c[k], next[k], keep);
    }
    c = next;
  }
  const out = {};
  for (const r of Object.keys(rows)) out[`tokens.row.${r}`] = rows[r];
  return out;
}

function decoderRequest(ids, o = {}) {
  const B = ids.length;
  const sampling = o.temperature !== undefined;
  return { ids, max: o.max, lengths: o.lengths || fill(B, -1), eos: o.eos || ids.map(() => [127]),
    eosLengths: o.eosLengths || fill(B, 1), rowMax: o.rowMax || fill(B, -1), counter: fill(B, 0),
    active: o.active || fill(B, true), stopOnEos: o.stopOnEos !== false,
    temperature: fill(B, sampling ? o.temperature : 0), topK: fill(B, sampling ? 0 : 1), topP: fill(B, 1), minP: fill(B, 0),
    seed: fill(B, o.seed || 0), cli: o };
}

function decoderArgs(q) {
  const o = q.cli, a = ['--input', `request.input_ids=${JSON.stringify(q.ids)}`, '--max-new-tokens', String(q.max)];
  if (o.lengths) a.push('--input', `prompt_lengths=${JSON.stringify(o.lengths)}`);
  if (o.eos) a.push('--input', `eos_ids=${JSON.stringify(o.eos)}`);
  if (o.eosLengths) a.push('--input', `eos_lengths=${JSON.stringify(o.eosLengths)}`);
  if (o.rowMax) a.push('--input', `row_max_iterations=${JSON.stringify(o.rowMax)}`);
  if (o.active) a.push('--input', `package.active=${JSON.stringify(o.active)}`);
  if (o.temperature !== undefined) a.push('--temperature', String(o.temperature));
  if (o.seed !== undefined) a.push('--seed', String(o.seed));
  if (o.stopOnEos === false) a.push('--no-stop-on-eos');
  return a;
}

// ---- static_cache (digest 9.2) ------------------------------------------------------------
async function staticOracle(q) {
  const B = q.ids.length, W = q.ids[0].length, call_ = (c, f) => call('static_cache', c, f);
  const capacity = i64([8]);
  const checkWrites = (dest, where) => num(dest).forEach((d, r) => {
    if (d < 0 || d >= 8) throw new Error(`${where}: row ${r} position ${d} outside its capacity of 8`);
  });
  const si = await call_('state_init', { input_ids: i64(q.ids.flat(), [B, W]), write_indices: i64(q.writes), capacity });
  checkWrites(i64(q.writes), 'setup');
  const m = await call_('model', { input_ids: si.token, key_cache: si.key_cache, value_cache: si.value_cache,
    write_indices: i64(q.writes), cache_lengths: si.cache_lengths });
  let c = { logits: m.logits, active: bool(q.active), done: bool(fill(B, false)), accepted_len: i64(fill(B, 0)),
    loop_active: bool([true]), write_indices: i64(q.writes), cache_lengths: si.cache_lengths,
    key_cache: m.updated_key_cache, value_cache: m.updated_value_cache };
  for (let i = 0; i < q.steps; ++i) {
    if (!num(c.loop_active)[0]) break;  // one flag: never a merge
    const tok = (await call_('next_token', { logits: c.logits })).token;
    const su = await call_('step_update', { write_indices: c.write_indices, cache_lengths: c.cache_lengths, capacity, active: c.active });
    checkWrites(su.next_write_indices, `body ${i}`);
    const b = await call_('model', { input_ids: tok, key_cache: c.key_cache, value_cache: c.value_cache,
      write_indices: su.next_write_indices, cache_lengths: su.next_cache_lengths });
    const lc = (await call_('loop_continue', { active: su.next_active })).continue;
    c = { logits: b.logits, active: su.next_active, done: su.next_done, accepted_len: su.accepted_len, loop_active: lc,
      write_indices: su.next_write_indices, cache_lengths: su.next_cache_lengths, key_cache: b.updated_key_cache,
      value_cache: b.updated_value_cache };
  }
  const out = {};
  for (const k of ['logits', 'cache_lengths', 'write_indices', 'key_cache', 'value_cache']) out[k] = num(c[k]);
  return out;
}
const staticArgs = (q) => ['--input', `request.input_ids=${JSON.stringify(q.ids)}`, '--input', `write_indices=${JSON.stringify(q.writes)}`,
  '--input', `active=${JSON.stringify(q.active)}`, '--input', `request.max_iterations=[${q.steps}]`, '--max-new-tokens', String(q.steps)];

// ---- speculative (digest 9.3) -------------------------------------------------------------
function grammar(action, state, tokens, valid, table) {
  const [B, Wd] = tokens.dims, [S, V] = table.dims, tk = num(tokens), tab = num(table), st = num(state), vl = num(valid);
  const step = (s, t) => (s < 0 || s >= S || t < 0 || t >= V ? -1 : tab[s * V + t]);
  const next = [], consumed = [], mask = [], forced = [], forcedLen = [];
  for (let r = 0; r < B; ++r) {
    const want = action === 'clone' ? 0 : vl[r];
    let s = st[r], n = 0;
    for (; n < want; ++n) {
      const t = step(s, tk[r * Wd + n]);
      if (t < 0) { if (action === 'commit') throw new Error('rejected token'); break; }
      s = t;
    }
    next.push(s); consumed.push(n);
    const allowed = [];
    for (let v = 0; v < V; ++v) { const ok = step(s, v) >= 0; mask.push(ok); if (ok) allowed.push(v); }
    forced.push(allowed.length === 1 ? allowed[0] : 0); forcedLen.push(allowed.length === 1 ? 1 : 0);
  }
  return { next_state: i64(next), consumed_length: i64(consumed), logits_mask: bool(mask, [B, V]),
    forced_tokens: i64(forced, [B, 1]), forced_length: i64(forcedLen) };
}

async function speculativeOracle(iterations) {
  const call_ = (c, f) => call('speculative', c, f), table = i64(fill(32, 0), [1, 32]);
  let c = { tokens_state: i64([1, 2, 3, 4], [1, 4]), rng_offset: i64([0]), active: bool([true]), done: bool([false]),
    accepted_len: i64([0]), cache_lengths: i64([0]), grammar: i64([0]), proposal_k: i64([4]),
    adaptive_estimates: f32(fill(24, 0), [1, 24]), cache_0: f32([], [1, 2, 0, 8]), cache_1: f32([], [1, 4, 0, 4]) };
  let row = null;
  for (let i = 0; i < iterations; ++i) {
    if (!num(c.active).some((f) => f)) break;
    const p = await call_('proposer', { tokens: c.tokens_state, proposal_budget: c.proposal_k });
    const pm = await call_('proposal_metrics', { proposed_tokens: p.proposed_tokens, requested_k: c.proposal_k });
    const clone = grammar('clone', c.grammar, p.proposed_tokens, i64([0]), table);
    const look = grammar('lookahead', clone.next_state, p.proposed_tokens, pm.evaluated, table);
    const v = await call_('verifier', { proposed_tokens: p.proposed_tokens, 'past_key_values.0.key': c.cache_0,
      'past_key_values.0.value': c.cache_1 });
    const a = await call_('speculative_acceptance', { target_scores: v.target_scores, proposed_tokens: p.proposed_tokens,
      seed: i64([7]), offset: c.rng_offset });
    const gl = (await call_('grammar_length', { left: a.accepted_len, right: look.consumed_length })).minimum;
    const commit = grammar('commit', c.grammar, a.accepted_tokens, gl, table);
    const logits = (await call_('grammar_sampler_logits', { logits: v.target_scores })).last_logits;
    const g = (await call_('grammar_guidance', { logits, logits_mask: commit.logits_mask, forced_tokens: commit.forced_tokens,
      forced_length: commit.forced_length })).token;
    const cl = (await call_('cache_length_update', { left: c.cache_lengths, right: gl })).total;
    const ak = await call_('adaptive_k', { current_k: c.proposal_k, accepted: gl, evaluated: pm.evaluated, committed_tokens: gl,
      filled_proposal_budget: pm.filled_proposal_budget, draft_ms: f32([1]), target_ms: f32([1]), estimates: c.adaptive_estimates });
    row = (row || []).concat(rowOf(a.accepted_tokens, 0).slice(0, num(gl)[0]), rowOf(g, 0).slice(0, num(commit.forced_length)[0]));
    c = { tokens_state: a.accepted_tokens, rng_offset: a.next_offset, active: a.continue, done: a.done, accepted_len: gl,
      cache_lengths: cl, grammar: commit.next_state, proposal_k: ak.next_k, adaptive_estimates: ak.next_estimates,
      cache_0: v['present.0.key'], cache_1: v['present.0.value'] };
  }
  return row === null ? {} : { 'tokens.row.0': row };
}

function speculativeArgs(iterations, dir) {
  const npy = (name, dims) => {  // an empty float32 .npy (format 1.0)
    let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}), }`;
    header += ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
    const buf = Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0, header.length & 255, header.length >> 8]),
      Buffer.from(header, 'latin1')]);
    const file = path.join(dir, name);
    fs.writeFileSync(file, buf);
    return file;
  };
  return ['--input', 'request.tokens=[[1,2,3,4]]', '--max-new-tokens', String(iterations), '--seed', '7',
    '--input', `verifier.past_key_values.0.key=@${npy('k.npy', [1, 2, 0, 8])}`,
    '--input', `verifier.past_key_values.0.value=@${npy('v.npy', [1, 4, 0, 4])}`,
    '--input', 'grammar.initial_state=[0]', '--input', `grammar.transition_table=${JSON.stringify([fill(32, 0)])}`,
    '--input', 'adaptive.current_k=[4]', '--input', `adaptive.estimates=${JSON.stringify([fill(24, 0)])}`,
    '--input', 'telemetry.draft_ms=[1.0]', '--input', 'telemetry.target_ms=[1.0]'];
}

// ---- comparison ----------------------------------------------------------------------------
function ogaiRun(fixture, args) {
  const r = spawnSync(OGAI, ['run', path.join(FIXTURES, fixture), ...args, '--json'], { encoding: 'utf8' });
  if (r.status !== 0) return { error: r.stderr };
  const doc = JSON.parse(r.stdout);
  const out = {};
  for (const [k, v] of Object.entries(doc.outputs)) out[k] = v.data;
  return out;
}

function same(name, oracle, ogai) {
  assert.deepStrictEqual(Object.keys(ogai).sort(), Object.keys(oracle).sort(), `${name}: output names`);
  for (const k of Object.keys(oracle)) {
    assert.strictEqual(ogai[k].length, oracle[k].length, `${name}: ${k} length`);
    oracle[k].forEach((v, i) => {
      if (typeof v === 'number' && !Number.isInteger(v)) assert.ok(Math.abs(v - ogai[k][i]) <= 1e-6, `${name}: ${k}[${i}]`);
      else assert.strictEqual(ogai[k][i], v, `${name}: ${k}[${i}] ${JSON.stringify(ogai[k])} vs ${JSON.stringify(oracle[k])}`);
    });
  }
}

const PIN = require('./oracle_pins.json');
const pinned = (name, value) => {
  if (process.env.OGAI_ORACLE_PRINT) { console.log(JSON.stringify(name), ':', JSON.stringify(value), ','); return; }
  assert.deepStrictEqual(value, PIN[name], `${name}: the oracle no longer gives its pinned value`);
};
const ints = (out) => { const r = {}; for (const [k, v] of Object.entries(out)) if (k.startsWith('tokens') || k === 'cache_lengths' || k === 'write_indices') r[k] = v; return r; };

async function main() {
  const sampled = { max: 5, temperature: 1, seed: 3 };
  const first = await decoderOracle(decoderRequest([[4, 5]], sampled));
  const t2 = first['tokens.row.0'][1];  // an EOS table naming the second sampled token stops there
  const decoderCases = {
    'decoder greedy': [[[4, 5]], { max: 3 }],
    'decoder seeded sampling': [[[4, 5]], sampled],
    'decoder seeded sampling, seed 11': [[[4, 5]], { max: 5, temperature: 0.7, seed: 11 }],
    'decoder EOS table': [[[4, 5]], { ...sampled, eos: [[999, t2]], eosLengths: [2] }],
    'decoder EOS beyond eos_lengths': [[[4, 5]], { ...sampled, eos: [[999, t2]], eosLengths: [1] }],
    'decoder stop_on_eos=false': [[[4, 5]], { ...sampled, eos: [[t2]], stopOnEos: false }],
    'decoder per-row budgets': [[[4, 5], [6, 0]], { max: 4, temperature: 1, seed: 5, lengths: [2, 1], rowMax: [2, 4] }],
    'decoder inactive row': [[[4, 5], [6, 0]], { max: 3, temperature: 1, seed: 2, lengths: [2, 1], active: [true, false] }],
    'decoder per-row EOS': [[[4, 5], [4, 5]], { ...sampled, eos: [[t2], [999]] }],
    'decoder zero trips': [[[4, 5]], { max: 0 }],
  };
  for (const [name, [ids, o]] of Object.entries(decoderCases)) {
    const q = decoderRequest(ids, o);
    const oracle = await decoderOracle(q);
    same(name, oracle, ogaiRun('decoder', decoderArgs(q)));
    pinned(name, oracle);
  }
  const staticCases = {
    'static two rows': { ids: [[1, 2, 3], [4, 5, 6]], writes: [0, 3], active: [true, true], steps: 2 },
    'static capacity edge, last slot': { ids: [[1, 2, 3]], writes: [5], active: [true], steps: 2 },
    'static capacity edge, past the end': { ids: [[1, 2, 3]], writes: [6], active: [true], steps: 3 },
    'static capacity edge, cursor on the last slot': { ids: [[1, 2, 3]], writes: [7], active: [true], steps: 2 },
    'static inactive row': { ids: [[1, 2, 3], [4, 5, 6]], writes: [0, 0], active: [true, false], steps: 3 },
  };
  for (const [name, q] of Object.entries(staticCases)) {
    let oracle;
    try { oracle = await staticOracle(q); } catch (e) { oracle = { error: e.message }; }
    const got = ogaiRun('static_cache', staticArgs(q));
    if (oracle.error) {
      assert.ok(got.error && got.error.includes('outside its capacity'), `${name}: ogai accepted what the oracle refused: ${JSON.stringify(got)}`);
      pinned(name, { error: 'outside its capacity' });
      continue;
    }
    same(name, oracle, got);
    pinned(name, ints(oracle));
  }
  const dir = fs.mkdtempSync(path.join(MODELS, 'npy'));
  for (let n = 1; n <= 4; ++n) {
    const oracle = await speculativeOracle(n);
    same(`speculative ${n}`, oracle, ogaiRun('speculative', speculativeArgs(n, dir)));
    pinned(`speculative ${n}`, oracle);
  }
  console.log('oracle: all cases agree');
}

main().catch((e) => { console.error(e); process.exit(1); });
