// The @huggingface/jinja side of chat_template_bench: renders each case's template (compiled once,
// as transformers.js caches it) `iterations` times per run and prints, as JSON, the best
// nanoseconds per render over `runs` runs and the rendered text.
//   node chat_template_peer.cjs CASES.json ITERATIONS RUNS
'use strict';
const fs = require('fs');
const { Template } = require('../tests/peers/peers.cjs')('@huggingface/jinja');

const [file, iterations, runs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const out = {};
for (const c of JSON.parse(fs.readFileSync(file, 'utf8'))) {
  const template = new Template(c.template);
  let text = '';
  for (let i = 0; i < 200; ++i) text = template.render(c.context);  // warm up the JIT
  let best = Infinity;
  for (let r = 0; r < runs; ++r) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; ++i) text = template.render(c.context);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / iterations);
  }
  out[c.name] = { ns: best, output: text };
}
process.stdout.write(JSON.stringify(out));
