// tiny-e2b with another chat template from ../shared/chat_templates (a .jinja file, or a
// tokenizer_config.json holding chat_template) and its declared context raised from 512 to 2048
// positions (the templates' tool and reasoning preambles do not fit in 512; the graph computes
// positions, and the weights are random anyway), copied into `parent`. Shared by the tool-call,
// Messages and Responses e2e tests.
'use strict';
const fs = require('fs');
const path = require('path');

const tiny = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');
const templates = path.join(process.env.OGAI_SHARED_DIR, 'chat_templates');

function packageWith(template, parent) {
  const dir = path.join(parent, path.basename(template).split('.')[0]);
  fs.cpSync(tiny, dir, { recursive: true });
  let source = fs.readFileSync(path.join(templates, template), 'utf8');
  if (template.endsWith('.json')) source = JSON.parse(source).chat_template;
  fs.writeFileSync(path.join(dir, 'chat_template.jinja'), source);
  const metadata = path.join(dir, 'inference_metadata.yaml');
  fs.writeFileSync(metadata, fs.readFileSync(metadata, 'utf8').replace('max_sequence_length: 512', 'max_sequence_length: 2048'));
  return dir;
}

module.exports = { packageWith, tiny, templates };
