// Decoder: runs one decoder graph step by step through ONNX Runtime, feeding inputs by role.
//
// A step takes new token ids for every row of a batch, the batch's attention state (which past
// positions are real, per row) and its KvCache; it builds input_ids [B, S], attention_mask
// [B, past + S] and position_ids [B, S] (absolute positions counted over real tokens only, as
// Hugging Face derives them from the mask), runs the graph, commits the KV presents and returns
// the logits. Feeds are views over the caller's buffers (no copies for batch 1). Thread-safe for concurrent steps on
// different batches (the ORT session is); a Decoder is immutable after construction.
// Runs go through ONNX Runtime's IoBinding (io_binding.h); step() keeps its KvCache on the host.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "generate/cross_state.h"
#include "generate/decoder_spec.h"
#include "generate/embedding_stage.h"
#include "generate/mrope_positions.h"
#include "kv/kv_cache.h"
#include "ogai/token_id.h"
#include "ort/io_binding.h"
#include "ort/memory.h"
#include "ort/session.h"

namespace ogai::generate {

// Per-row bookkeeping of which cache positions hold real tokens (1) or padding (0), plus the
// scratch buffers a step builds its feeds in (reused, so steady-state decoding allocates nothing).
class AttentionState {
 public:
  explicit AttentionState(std::int64_t batch);
  // One row holding `length` real positions (a state taken out of a batch).
  static AttentionState all_real(std::int64_t length);
  std::int64_t batch() const { return static_cast<std::int64_t>(rows_.size()); }
  std::int64_t length() const { return static_cast<std::int64_t>(rows_[0].mask.size()); }
  // Real tokens held by a row (= the position id of its next real token).
  std::int64_t real_tokens(std::int64_t row) const { return rows_[static_cast<std::size_t>(row)].real; }
  std::span<const std::int64_t> mask(std::int64_t row) const { return rows_[static_cast<std::size_t>(row)].mask; }
  // Keeps the first `length` positions of every row.
  void truncate(std::int64_t length);
  // 3-D rotary positions of a row's prompt (decoders with DecoderSpec::mrope): real token k gets
  // table->at(axis, k); null (the default) gives k on every axis (a text-only prompt).
  void set_mrope(std::int64_t row, std::shared_ptr<const MropePositions> table) {
    rows_[static_cast<std::size_t>(row)].mrope = std::move(table);
  }
  // What a row's positions after its prompt add to the real token count (the rope delta; 0 without a table).
  std::int64_t position_offset(std::int64_t row) const {
    const auto& t = rows_[static_cast<std::size_t>(row)].mrope;
    return t ? t->delta : 0;
  }

 private:
  friend class Decoder;
  struct Row {
    std::vector<std::int64_t> mask;  // [positions]: 1 real, 0 padding
    std::int64_t real = 0;
    std::shared_ptr<const MropePositions> mrope;  // shared, immutable
  };
  std::vector<Row> rows_;
  std::vector<std::int64_t> batch_mask_;  // [batch, positions] scratch when batch > 1
  std::vector<std::int64_t> positions_;   // [batch, seq] scratch ([3, batch, seq] for 3-D positions)
  std::vector<std::int64_t> lengths_;     // [2, batch] scratch: write indices, then valid lengths
  std::vector<std::int64_t> wide_ids_;    // [batch, seq] scratch: the ids for graphs that take int64
  std::vector<std::int32_t> narrow_[2];   // mask, positions as int32 for graphs that take int32
};

struct StepOutput {
  // [batch, seq - logits_from, vocab]: the logits of the step's last positions, all of them
  // unless the run asked for fewer (a cut graph, Decoder::step's `keep`).
  ort::Tensor logits;
  ort::Tensor hidden;  // [batch, seq, hidden] when the spec has a hidden output, else empty
  std::int64_t seq = 0;          // positions the step fed per row
  std::int64_t logits_from = 0;  // the step position of logits' first row
  // Logits of position `pos` (0 .. seq - 1, at least logits_from) of row `row` as float32: a view
  // into `logits` for float32 graphs (the caller may overwrite it), or converted into `scratch`
  // for float16/bfloat16 ones. Throws ogai::Error (kInternal) for a position the run did not compute.
  std::span<float> row_logits(std::int64_t row, std::int64_t pos, std::vector<float>& scratch);
  // Read-only float32 view (float32 graphs only).
  std::span<const float> row_logits(std::int64_t row, std::int64_t pos) const;
  std::int64_t last_position() const { return seq - 1; }
  // Sets seq and logits_from from the logits' shape after a run that fed `fed` positions per row.
  void locate(std::int64_t fed);
  double run_seconds = 0;  // time spent inside ONNX Runtime for this step
};

// Logits only where they are used: unless spec.cut_logits is false, the constructor rewrites the
// graph (onnx/logits_cut.h) so that each run computes the logits of its last `keep` positions
// only; a graph the rewrite does not recognise runs as it is (logged once, at info level, with the
// reason) and every run then computes every position's logits, whatever `keep` says.
// With OGAI_SESSION_CACHE=DIR set, the session is created through ONNX Runtime's optimized-model
// cache in DIR (ort/session_cache.h: saved once, the next start skips optimizing and pre-packing).
class Decoder {
 public:
  // Every position's logits (keep = 0).
  static constexpr std::int64_t kAllLogits = 0;

  // `preload` (optional): the embedding stage's session started in parallel (session_preload.h).
  Decoder(DecoderSpec spec, const ort::SessionOptions& options, SessionPreload* preload = nullptr);

  const DecoderSpec& spec() const { return spec_; }
  const ort::Session& session() const { return session_; }
  // Where the session runs: a decode batch's state is allocated there (kv::BatchCache).
  const ort::Memory& state_memory() const { return memory_; }

  // The graph input the rewrite added (int64 [1], the `keep` of a run); empty when not cut.
  const std::string& keep_input() const { return keep_input_; }

  // Runs one step over `tokens`, row-major [batch, seq]. `real` (same size, or empty = all real)
  // marks padding positions with 0 (left padding of shorter prompts in a batch). Appends the
  // positions to `attention` and the KV to `cache`; on error both are left as before the step.
  // With an embedding graph, `rows` are the media feature rows of these positions (null: none).
  // `cross`: the row's encoder outputs (batch 1), required when spec().encoder_inputs is not empty.
  // `keep` > 0 asks for the logits of the last `keep` positions only (StepOutput::logits_from
  // says which the run computed: all of them when the graph was not cut).
  StepOutput step(std::span<const TokenId> tokens, std::int64_t seq, std::span<const std::uint8_t> real,
                  AttentionState& attention, kv::KvCache& cache, const FeatureRows* rows = nullptr,
                  std::int64_t keep = kAllLogits, const CrossState* cross = nullptr) const;
  // The embedding graph in front of the decoder (multimodal packages), or null.
  const EmbeddingStage* embedding() const { return embedding_.get(); }

  // Runs the graph once: `inputs` in feed order (tokens, [mask], [positions], [write indices],
  // (with an embedding graph, ids in the tokens slot are embedded first, without media rows)
  // [cache lengths], then one past per KV pair, then the encoder inputs), `outputs` in output order (logits, [hidden],
  // then one present per pair; a non-empty slot is a destination ORT writes into). Returns the
  // seconds spent inside ONNX Runtime. For steps that build their own feeds (batch_step.h).
  // Host outputs, no IO binding: the reference the bound run is tested against.
  // `keep` as in step() (the caller locates the logits: StepOutput::locate).
  double run(std::span<const ort::Tensor* const> inputs, std::span<ort::Tensor> outputs,
             std::int64_t keep = kAllLogits) const;
  // Same through `binding` (io_binding.h): inputs stay where they are; a non-empty output slot
  // is bound as the destination; empty ones are allocated by ORT, logits and hidden states on
  // the host (the sampler reads them there), presents at `presents_at` (the state's location,
  // so that device-resident KV never crosses to the host). Identical bytes to run() on CPU.
  double run(ort::Binding& binding, std::span<const ort::Tensor* const> inputs, std::span<ort::Tensor> outputs,
             ort::Location presents_at, std::int64_t keep = kAllLogits) const;
  std::size_t output_count() const { return output_names_.size(); }

 private:
  void check_against_session() const;
  // The feeds a run adds after `inputs`: the cut's keep, the merged decoder's cache branch flag.
  // The tensors view the struct's own values, so it stays where it was filled until the run ends.
  struct ExtraFeeds {
    std::int64_t keep = 0;
    bool flag = false;
    const std::string* names[2] = {};
    ort::Tensor tensors[2];
    std::size_t count = 0;
  };
  void extra_feeds(std::span<const ort::Tensor* const> inputs, std::int64_t keep, ExtraFeeds& out) const;
  // `inputs` with an ids tensor in the tokens slot replaced by its embeddings (kept in `embeds`).
  std::vector<const ort::Tensor*> embedded(std::span<const ort::Tensor* const> inputs, ort::Tensor& embeds,
                                           double& seconds) const;

  DecoderSpec spec_;
  std::string keep_input_;                 // set by the logits cut (before session_ is opened)
  bool cache_branch_scalar_ = false;       // the cache branch port is rank 0 (else [1])
  ort::Session session_;
  std::unique_ptr<EmbeddingStage> embedding_;  // multimodal packages: ids -> inputs_embeds
  ort::Memory memory_;                     // session_'s device (declared after it)
  std::vector<std::string> input_names_;   // tokens, [mask], [positions], [write indices], [lengths], pasts...
  std::vector<std::string> output_names_;  // logits, [hidden], presents...
};

}  // namespace ogai::generate
