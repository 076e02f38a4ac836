// The transformers.js oracle of tests/e2e/preprocess_cli_test.py: Hugging Face's image
// processors as @huggingface/transformers implements them (Gemma4ImageProcessor,
// Phi3VImageProcessor, Qwen2VLImageProcessor), constructed directly from config objects (offline).
// Usage (through tests/peers/run_node.sh): hf_image_oracle.cjs JOBS.json
//   JOBS.json: [{"family": "gemma4" | "phi3v" | "qwen2vl", "config": {...}, "image": PATH, "out": PREFIX}]
// For each job writes PREFIX.json ({NAME: {"dtype", "shape"}}) and PREFIX.NAME.bin (raw
// little-endian float32 / int64) per output: pixel_values, position_ids or image_sizes or
// image_grid_thw, and token_count (int64 [1]; Qwen's is the grid's product / merge_size^2, as its
// processor counts image pads).
'use strict';
const fs = require('fs');
const T = require('../peers/peers.cjs')('@huggingface/transformers');

function save(prefix, outputs) {
  const meta = {};
  for (const [name, t] of Object.entries(outputs)) {
    meta[name] = { dtype: t.type, shape: t.dims };
    fs.writeFileSync(`${prefix}.${name}.bin`, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  fs.writeFileSync(`${prefix}.json`, JSON.stringify(meta));
}

const count = (n) => new T.Tensor('int64', BigInt64Array.from([BigInt(n)]), [1]);

async function run(job) {
  const image = await T.RawImage.read(job.image);
  if (job.family === 'gemma4') {
    const out = await new T.Gemma4ImageProcessor(job.config)(image);
    return { pixel_values: out.pixel_values, position_ids: out.image_position_ids,
             token_count: count(out.num_soft_tokens_per_image[0]) };
  }
  if (job.family === 'phi3v') {
    const out = await new T.Phi3VImageProcessor(job.config)(image);
    return { pixel_values: out.pixel_values, image_sizes: out.image_sizes, token_count: count(out.num_img_tokens[0]) };
  }
  if (job.family === 'qwen2vl') {
    const out = await new T.Qwen2VLImageProcessor(job.config)(image);
    const grid = Array.from(out.image_grid_thw.data, Number);
    const merge = job.config.merge_size;
    return { pixel_values: out.pixel_values, image_grid_thw: out.image_grid_thw,
             token_count: count(grid[0] * grid[1] * grid[2] / (merge * merge)) };
  }
  throw new Error(`unknown family ${job.family}`);
}

(async () => {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  for (const job of jobs) save(job.out, await run(job));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
