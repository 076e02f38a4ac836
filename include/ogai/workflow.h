// ogai::Workflow: runs a package's `pipeline.workflow` through ogai's workflow interpreter (loops,
// branches, policy graphs, native adapters such as LoRA parameter overlays; docs/metadata.md) with named input
// tensors, and returns what it emitted. The native decode loop (ogai::Model) is for single-step
// packages; this runs any workflow the interpreter executes, refusing the rest at load.
//
//   auto wf = ogai::Workflow::load("fixtures/decoder");
//   ogai::WorkflowRequest request;
//   request.inputs["request.input_ids"] = ogai::TensorValue::int64({4, 5}, {1, 2});
//   request.max_new_tokens = 3;
//   auto out = wf->run(request);   // out.outputs["tokens.row.0"]
//
// A Workflow is immutable after load: run() may be called from many threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ogai/export.h"

namespace ogai {

// A host tensor: dtype name ("int64", "float32", "bool", "float16", ...), shape, row-major bytes.
struct OGAI_API TensorValue {
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;

  static TensorValue int64(const std::vector<std::int64_t>& values, std::vector<std::int64_t> shape);
  static TensorValue float32(const std::vector<float>& values, std::vector<std::int64_t> shape);
  static TensorValue boolean(const std::vector<bool>& values, std::vector<std::int64_t> shape);
  // uint8 [size]: a media file's bytes (a PNG, a WAV) for an `encoded` media input.
  static TensorValue bytes(const void* data, std::size_t size);
  std::vector<std::int64_t> as_int64() const;  // int64 tensors only
  std::vector<float> as_float32() const;       // float32 tensors only
};

// One adapter of a row's LoRA selection: an alias of the package's `adapters.artifacts` and its scale.
struct AdapterChoice {
  std::string name;
  float scale = 1.0f;
};

struct WorkflowRequest {
  // By workflow input name (`request.input_ids`) or application alias (`write_indices`).
  std::map<std::string, TensorValue> inputs;
  // The same, as a JSON nested array or scalar typed by the input's contract ("[[1, 2]]").
  std::map<std::string, std::string> json_inputs;
  std::optional<std::int64_t> max_new_tokens;  // max_iterations / max_output_tokens roles
  std::optional<std::int64_t> seed;            // seed role (default 0)
  // None set: greedy (temperature 0, top_k 1, top_p 1, min_p 0); any set: sampling.
  std::optional<double> temperature, top_p, min_p;
  std::optional<std::int64_t> top_k;
  bool stop_on_eos = true;
  // Per batch row, the LoRA adapters it runs (an empty row runs the base): fills the package's
  // adapters.selection inputs by name. Unset: pass those tensors in `inputs` (or none are needed).
  std::optional<std::vector<std::vector<AdapterChoice>>> adapters;
};

// The LoRA adapter cache's counters since load (the package's adapters.cache): adapters loaded
// (reloads: loaded again after an eviction), cache hits, LRU evictions, captured plans forgotten on
// eviction, batches whose adapter composition was seen before, and the resident adapters (least
// recently used first).
struct AdapterLifecycle {
  std::uint64_t loads = 0, cache_hits = 0, evictions = 0, reloads = 0, capture_invalidations = 0, replayed_plans = 0;
  std::vector<std::string> cached;
};

// One batch row's transcript from a transcription profile (CTC): the ids after collapsing repeats
// and removing blanks, and their text, as `ogai run` prints them.
struct WorkflowTranscript {
  std::string text;
  std::vector<std::int64_t> ids;
};

struct OGAI_API WorkflowOutputs {
  // Published keys: `NAME`, `NAME.row.R` (per-row outputs), `NAME.K` / `NAME.row.R.K` (events).
  // An output never emitted is absent.
  std::map<std::string, TensorValue> outputs;
  // The package's transcription profiles (`profiles.NAME`, decoding kind ctc) decoded from this
  // run: profile name -> one transcript per batch row, in row order. Empty without profiles.
  std::map<std::string, std::vector<WorkflowTranscript>> transcriptions;
  // (row, tensor) pairs of a per-row output in row order.
  std::vector<std::pair<std::int64_t, const TensorValue*>> rows(const std::string& output) const;
};

// One emitted media output encoded as a file: `path` is relative (NAME.wav, NAME.png,
// NAME/frame-0001.png; NAME.row.R... per row), as `ogai run --output-dir` writes them.
struct MediaFile {
  std::string path;
  std::vector<std::uint8_t> bytes;
};

// Sees every emitted chunk as it is published: the output, its row (-1 for a dense output), the chunk.
using EmitListener = std::function<void(const std::string& output, std::int64_t row, const TensorValue& chunk)>;

class OGAI_API Workflow {
 public:
  // Validates the package and opens one ONNX Runtime session per ONNX component. Throws
  // ogai::Error naming the document path of anything the interpreter does not execute.
  static std::shared_ptr<const Workflow> load(const std::filesystem::path& package);
  ~Workflow();
  Workflow(const Workflow&) = delete;
  Workflow& operator=(const Workflow&) = delete;

  // Throws ogai::Error naming the value and the step on a bad request.
  WorkflowOutputs run(const WorkflowRequest& request, const EmitListener& on_emit = {}) const;
  // Every media output of `outputs` encoded through its contract (docs/media.md): WAV for audio
  // with a `media` contract, PNG for an image through its value_range, PNG frames for a video.
  // Throws ogai::Error naming the output when a value breaks its contract (an image value
  // outside its value_range: never clamped).
  std::vector<MediaFile> encode_media(const WorkflowOutputs& outputs) const;
  // All zero for a package without `adapters`.
  AdapterLifecycle adapter_lifecycle() const;

  struct Impl;

 private:
  explicit Workflow(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ogai
