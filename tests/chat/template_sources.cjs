// Loads chat-template sources the way Hugging Face's apply_chat_template sees them, for the
// JavaScript side of the differential tests: the template text(s), the named-template choice
// (tool_use when tools are given, else default) and the special tokens from the config.
'use strict';
const fs = require('fs');
const path = require('path');

const TOKEN_NAMES = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

function tokenText(v) {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof v.content === 'string') return v.content;
  return '';
}

function fromConfig(config) {
  const ct = config.chat_template;
  if (ct === undefined) return {};
  if (typeof ct === 'string') return { default: ct };
  return Object.fromEntries(ct.map((t) => [t.name, t.template]));
}

function specialTokens(config) {
  const tokens = {};
  for (const name of TOKEN_NAMES) {
    const text = tokenText(config[name]);
    if (text) tokens[name] = text;
  }
  if (Array.isArray(config.additional_special_tokens)) {
    tokens.additional_special_tokens = config.additional_special_tokens.map(tokenText).filter((t) => t);
  }
  return tokens;
}

// {templates: {name: text}, tokens: {...}} for a .jinja file, a .json config or a package directory.
function loadSource(p) {
  const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
  if (!fs.statSync(p).isDirectory()) {
    if (p.endsWith('.json')) {
      const config = readJson(p);
      return { templates: fromConfig(config), tokens: specialTokens(config) };
    }
    return { templates: { default: fs.readFileSync(p, 'utf8') }, tokens: {} };
  }
  const configPath = path.join(p, 'tokenizer_config.json');
  const config = fs.existsSync(configPath) ? readJson(configPath) : {};
  let templates;
  if (fs.existsSync(path.join(p, 'chat_template.jinja'))) templates = { default: fs.readFileSync(path.join(p, 'chat_template.jinja'), 'utf8') };
  else if (fs.existsSync(path.join(p, 'chat_template.json'))) templates = fromConfig(readJson(path.join(p, 'chat_template.json')));
  else templates = fromConfig(config);
  return { templates, tokens: specialTokens(config) };
}

function selectTemplate(templates, tools) {
  const names = Object.keys(templates);
  if (names.length === 1) return templates[names[0]];
  if (tools !== null && templates.tool_use !== undefined) return templates.tool_use;
  return templates.default;
}

// Every chat-template source under ../shared/chat_templates and the project's fixture packages.
function allSources(sharedDir, sourceDir) {
  const out = [];
  const shared = path.join(sharedDir, 'chat_templates');
  for (const f of fs.readdirSync(shared).sort()) {
    if (f.endsWith('.jinja') || f.endsWith('.json')) out.push(path.join(shared, f));
  }
  const walk = (dir) => {
    if (!fs.existsSync(dir)) return;
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    const names = new Set(entries.map((e) => e.name));
    const hasConfigTemplate = names.has('tokenizer_config.json') &&
      JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')).chat_template !== undefined;
    if (names.has('chat_template.jinja') || names.has('chat_template.json') || hasConfigTemplate) out.push(dir);
    for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  walk(path.join(sourceDir, 'tests', 'data'));
  return out;
}

module.exports = { loadSource, selectTemplate, allSources };
