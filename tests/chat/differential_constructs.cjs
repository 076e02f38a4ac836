// Differential test of individual template constructs (construct_cases.cjs): ogai against
// @huggingface/jinja, and against Python Jinja2 for the constructs that engine lacks.
//   node differential_constructs.cjs RENDER_BATCH
'use strict';
const fs = require('fs');
const path = require('path');
const cp = require('child_process');
const { Template } = require('../peers/peers.cjs')('@huggingface/jinja');
const { CASES, DEFAULTS } = require('./construct_cases.cjs');

const [batchTool] = process.argv.slice(2);
const work = path.join(process.env.OGAI_BINARY_DIR, 'chat_differential');
fs.mkdirSync(work, { recursive: true });

function runJson(cmd, args, cases, name) {
  const file = path.join(work, name);
  fs.writeFileSync(file, JSON.stringify(cases));
  return JSON.parse(cp.execFileSync(cmd, [...args, file], { maxBuffer: 1 << 26 }).toString());
}

function peerRender(c) {
  try {
    return { ok: true, output: new Template(c.template).render(JSON.parse(JSON.stringify(c.variables))) };
  } catch (e) {
    return { ok: false, error: String(e.message) };
  }
}

const same = (a, b) => (a.ok ? b.ok && a.output === b.output : !b.ok);
const show = (r) => (r.ok ? JSON.stringify(r.output) : `raises: ${r.error}`);

const cases = CASES.map((c) => ({ ...c, template: c.t, variables: { ...DEFAULTS, ...(c.v || {}) } }));
const ogai = runJson(batchTool, [], cases.map((c) => ({ template: c.template, variables: c.variables })), 'construct_cases.json');
const jinja2 = runJson('/usr/bin/python3', [path.join(__dirname, 'jinja2_render.py')],
                       cases.map((c) => ({ template: c.template, variables: c.variables })), 'construct_cases_jinja2.json');
const failures = [];
let peerCount = 0, jinjaCount = 0;
cases.forEach((c, i) => {
  const peer = peerRender(c);
  if (c.oracle === 'jinja2') {
    jinjaCount++;
    if (!same(jinja2[i], ogai[i])) failures.push(`${c.name}: Jinja2 ${show(jinja2[i])}, ogai ${show(ogai[i])}`);
    if (same(peer, ogai[i])) failures.push(`${c.name}: @huggingface/jinja agrees (${show(peer)}); mark the case 'peer'`);
  } else {
    peerCount++;
    if (!same(peer, ogai[i])) failures.push(`${c.name}: @huggingface/jinja ${show(peer)}, ogai ${show(ogai[i])}`);
  }
});
console.log(`${peerCount} constructs checked against @huggingface/jinja, ${jinjaCount} against Jinja2`);
if (failures.length) {
  console.log(`${failures.length} failures:\n  ` + failures.join('\n  '));
  process.exit(1);
}
