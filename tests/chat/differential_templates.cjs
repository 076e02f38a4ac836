// Differential test: every chat template in ../shared/chat_templates and in the project's
// fixture packages, rendered by ogai and by @huggingface/jinja over a generated conversation set
// (with and without tools, add_generation_prompt both ways, extra variables). Each case must give
// identical strings, or both must raise. Where @huggingface/jinja raises for lack of a feature
// and ogai renders, ogai must render exactly what Python Jinja2 (set up as transformers sets it
// up, with @huggingface/jinja's strip/lstrip/rstrip, which ogai keeps) renders. Also checks
// `ogai template` end to end on a sample.
//   node differential_templates.cjs RENDER_BATCH OGAI
'use strict';
const fs = require('fs');
const path = require('path');
const cp = require('child_process');
const { Template } = require('../peers/peers.cjs')('@huggingface/jinja');
const { conversations, TOOLS } = require('./conversations.cjs');
const { loadSource, selectTemplate, allSources } = require('./template_sources.cjs');

const [batchTool, ogai] = process.argv.slice(2);
const shared = process.env.OGAI_SHARED_DIR;
const work = path.join(process.env.OGAI_BINARY_DIR, 'chat_differential');
fs.mkdirSync(work, { recursive: true });

function peerRender(text, context) {
  try {
    return { ok: true, output: new Template(text).render(JSON.parse(JSON.stringify(context))) };
  } catch (e) {
    return { ok: false, error: String(e.message) };
  }
}

function runJson(cmd, args, cases, name) {
  const file = path.join(work, name);
  fs.writeFileSync(file, JSON.stringify(cases));
  return JSON.parse(cp.execFileSync(cmd, [...args, file], { maxBuffer: 1 << 28 }).toString());
}

// A config with named templates (default + tool_use) and AddedToken-style special tokens, to
// check the template choice and token extraction against the same logic on the JS side.
function namedTemplateFixture() {
  const qwen = JSON.parse(fs.readFileSync(path.join(shared, 'chat_templates/qwen2.5.tokenizer_config.json'), 'utf8'));
  const file = path.join(work, 'named_templates.tokenizer_config.json');
  fs.writeFileSync(file, JSON.stringify({
    bos_token: { __type: 'AddedToken', content: '<s>', lstrip: false },
    eos_token: '</s>',
    chat_template: [
      { name: 'default', template: '{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{{ eos_token }}' },
      { name: 'tool_use', template: qwen.chat_template },
    ],
  }));
  return file;
}

function buildCases(sources) {
  const cases = [];
  const variants = [{}, { enable_thinking: false }];
  for (const source of sources) {
    const loaded = loadSource(source);
    for (const [convName, messages] of conversations()) {
      for (const tools of [null, TOOLS]) {
        for (const agp of [false, true]) {
          for (const vars of source.includes('smollm3') ? variants : [variants[0]]) {
            const context = { messages, add_generation_prompt: agp, tools, documents: null, ...loaded.tokens, ...vars };
            const text = selectTemplate(loaded.templates, tools);
            cases.push({
              label: `${path.basename(source)} / ${convName} / tools=${tools !== null} / agp=${agp} / ${JSON.stringify(vars)}`,
              text, context, peer: peerRender(text, context),
              ogai: { source, request: { messages, tools, add_generation_prompt: agp, variables: vars } },
            });
          }
        }
      }
    }
  }
  return cases;
}

function checkCli(cases) {
  const failures = [];
  const sample = cases.filter((c, i) => i % 61 === 0 || (c.label.includes('roles_not_alternating') && c.label.includes('gemma.tok')));
  for (const [i, c] of sample.entries()) {
    const m = path.join(work, `cli_messages_${i}.json`), t = path.join(work, `cli_tools_${i}.json`);
    fs.writeFileSync(m, JSON.stringify(c.ogai.request.messages));
    const args = ['template', c.ogai.source, '--messages', m];
    if (c.ogai.request.tools) fs.writeFileSync(t, JSON.stringify(c.ogai.request.tools)), args.push('--tools', t);
    if (c.ogai.request.add_generation_prompt) args.push('--add-generation-prompt');
    for (const [k, v] of Object.entries(c.ogai.request.variables)) args.push('--var', `${k}=${JSON.stringify(v)}`);
    const r = cp.spawnSync(ogai, args, { encoding: 'utf8' });
    if (c.peer.ok && c.result.ok) {
      if (r.status !== 0 || r.stdout !== c.peer.output || r.stderr !== '') failures.push(`CLI ${c.label}: rc=${r.status} stderr=${r.stderr}`);
    } else if (!c.peer.ok && !c.result.ok) {
      const message = c.peer.error.includes('alternate') ? 'Conversation roles must alternate' : '';
      if (r.status !== 1 || r.stdout !== '' || !r.stderr.includes(message)) failures.push(`CLI ${c.label}: expected exit 1 and the template's message, got rc=${r.status} stderr=${r.stderr}`);
    }
  }
  return { failures, count: sample.length };
}

function main() {
  const sources = [...allSources(shared, process.env.OGAI_SOURCE_DIR), namedTemplateFixture()];
  const cases = buildCases(sources);
  const results = runJson(batchTool, [], cases.map((c) => c.ogai), 'ogai_cases.json');
  const toJinja2 = [];
  const failures = [];
  const tally = { identical: 0, both_raise: 0, jinja2: 0 };
  cases.forEach((c, i) => {
    c.result = results[i];
    if (c.peer.ok) {
      if (c.result.ok && c.result.output === c.peer.output) tally.identical++;
      else failures.push(`${c.label}\n  peer: ${JSON.stringify(c.peer.output)}\n  ogai: ${JSON.stringify(c.result.ok ? c.result.output : c.result.error)}`);
    } else if (!c.result.ok) {
      tally.both_raise++;
    } else {
      toJinja2.push(c);
    }
  });
  if (toJinja2.length) {
    const py = runJson('/usr/bin/python3', [path.join(__dirname, 'jinja2_render.py'), '--peer-string-methods'],
                       toJinja2.map((c) => ({ template: c.text, variables: c.context })), 'jinja2_cases.json');
    toJinja2.forEach((c, i) => {
      if (py[i].ok && py[i].output === c.result.output) tally.jinja2++;
      else failures.push(`${c.label}\n  peer raised: ${c.peer.error}\n  jinja2: ${JSON.stringify(py[i])}\n  ogai: ${JSON.stringify(c.result.output)}`);
    });
  }
  const cli = checkCli(cases);
  failures.push(...cli.failures);
  console.log(`${sources.length} sources, ${cases.length} cases: ${tally.identical} identical to @huggingface/jinja, ` +
              `${tally.both_raise} raise in both, ${tally.jinja2} where only @huggingface/jinja raised and ogai matched Jinja2; ` +
              `${cli.count} checked through \`ogai template\``);
  if (tally.identical < cases.length / 2) failures.push('fewer than half the cases rendered identically: the conversation set is broken');
  if (failures.length) {
    console.log(`${failures.length} failures:\n` + failures.slice(0, 15).join('\n'));
    process.exit(1);
  }
}

main();
