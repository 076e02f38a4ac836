// The model folder transformers.js (`@huggingface/transformers`) loads offline, made of symlinks
// to an assembled ogai package: ROOT/NAME/{onnx/model.onnx, tokenizer.json, tokenizer_config.json,
// generation_config.json, config.json}. Returns ROOT, the value for `env.localModelPath`; load the
// model by NAME with `env.allowRemoteModels = false`. Links are recreated on every call.
'use strict';
const fs = require('fs');
const path = require('path');

const FILES = [['model.onnx', 'onnx/model.onnx'], ['tokenizer.json'], ['tokenizer_config.json'],
  ['generation_config.json'], ['config.json']];

module.exports = function transformersFolder(packageDir, root, name) {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  for (const [from, to] of FILES) {
    const source = path.resolve(packageDir, from);
    if (!fs.existsSync(source)) throw new Error(`${source} is missing: transformers.js needs it in the model folder`);
    const link = path.join(dir, to || from);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(source, link);
  }
  return root;
};
