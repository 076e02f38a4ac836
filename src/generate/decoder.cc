#include "generate/decoder.h"

#include <cstdlib>
#include <string_view>

#include "base/error.h"
#include "base/half.h"
#include "base/log.h"
#include "generate/index_feed.h"
#include "onnx/logits_cut.h"
#include "onnx/textproto.h"
#include "ort/session_cache.h"

namespace ogai::generate {
namespace {

constexpr std::int64_t kPaddingPosition = 1;  // what HF puts at masked positions

const ort::PortInfo& require_port(const ort::Session& s, const std::string& name, bool input, const char* role) {
  const ort::PortInfo* port = input ? s.find_input(name) : s.find_output(name);
  if (port == nullptr)
    fail(ErrorCode::kInvalidPackage, s.origin(), "the {} port '{}' is not {} of the graph", role, name,
         input ? "an input" : "an output");
  return *port;
}

void require_int64(const ort::PortInfo& port, const std::string& origin, int rank) {
  if (port.dtype != DataType::kInt64 || static_cast<int>(port.shape.size()) != rank)
    fail(ErrorCode::kInvalidPackage, origin, "port '{}' is {} of rank {}, expected int64 of rank {}", port.name,
         dtype_name(port.dtype), port.shape.size(), rank);
}

// Ids, mask and positions: int32 or int64 as the graph declares (the feeds follow it).
DataType require_index(const ort::PortInfo& port, const std::string& origin, int rank) {
  if (!is_index_dtype(port.dtype) || static_cast<int>(port.shape.size()) != rank)
    fail(ErrorCode::kInvalidPackage, origin, "port '{}' is {} of rank {}, expected int32 or int64 of rank {}",
         port.name, dtype_name(port.dtype), port.shape.size(), rank);
  return port.dtype;
}

// position_ids: [batch, seq], or [3, batch, seq] with the ogai.mrope extension (DecoderSpec::mrope).
void check_positions(const ort::PortInfo& port, const DecoderSpec& spec, const std::string& origin) {
  const int rank = spec.mrope ? 3 : 2;
  if (!is_index_dtype(port.dtype) || static_cast<int>(port.shape.size()) != rank ||
      (spec.mrope && port.shape[0] > 0 && port.shape[0] != 3))
    fail(ErrorCode::kInvalidPackage, origin, "position_ids port '{}' is {} of rank {}, expected int32 or int64 {}{}",
         port.name, dtype_name(port.dtype), port.shape.size(), spec.mrope ? "[3, batch, sequence]" : "[batch, sequence]",
         !spec.mrope && port.shape.size() == 3 ? " (3-D mRoPE positions need the workflow capability ogai.mrope)" : "");
}

// The merged decoder's flag: bool [1] (or a scalar), over a cache whose past tensors carry their
// length (appended KV; a shared fixed-capacity buffer or a static cache would always read full).
void check_cache_branch(const ort::PortInfo& port, const DecoderSpec& spec, const std::string& origin) {
  const bool one = port.shape.empty() || (port.shape.size() == 1 && port.shape[0] == 1);
  if (port.dtype != DataType::kBool || !one)
    fail(ErrorCode::kInvalidPackage, origin, "the cache branch port '{}' is {} of rank {}, expected bool [1]",
         port.name, dtype_name(port.dtype), port.shape.size());
  if (spec.cache.pairs.empty() || spec.cache.mode != kv::StorageMode::kAppend || !spec.write_indices_input.empty())
    fail(ErrorCode::kUnsupported, origin, "the cache branch port '{}' needs an appended KV cache (the flag says "
         "whether the past is empty, read from the past tensors' length)", port.name);
}

// Whether a run's past is non-empty: the first KV past's sequence axis (axis 3 of a combined
// [2, batch, heads, sequence, head] cache, else axis 2 of [batch, heads, sequence, head]).
bool has_past(const DecoderSpec& spec, std::span<const ort::Tensor* const> inputs) {
  // input_names_ order: ..., the KV pasts, then the encoder-fed inputs (encoder-decoder packages).
  const ort::Tensor& past = *inputs[inputs.size() - spec.encoder_inputs.size() - spec.cache.pairs.size()];
  const std::size_t axis = spec.cache.pairs.front().combined ? 3 : 2;
  return past.shape().size() > axis && past.shape()[axis] > 0;
}

bool cut_enabled(const DecoderSpec& spec) {
  if (!spec.cut_logits) return false;
  const char* env = std::getenv("OGAI_LOGITS_CUT");
  return env == nullptr || std::string_view(env) != "0";
}

// OGAI_SESSION_CACHE=DIR: ONNX Runtime's optimized, pre-packed graphs are saved there and loaded
// from there on the next start (ort/session_cache.h); unset or empty: no cache.
std::filesystem::path session_cache_dir() {
  const char* env = std::getenv("OGAI_SESSION_CACHE");
  return env == nullptr ? std::filesystem::path() : std::filesystem::path(env);
}

// A session on `bytes` (the graph as it will run), through the session cache when one is set.
ort::Session session_on(std::string_view bytes, const DecoderSpec& spec, const ort::SessionOptions& options) {
  const std::filesystem::path cache = session_cache_dir();
  if (cache.empty()) return ort::Session::from_bytes(bytes, options, spec.artifact.parent_path(), spec.artifact.string());
  return ort::open_cached(cache, bytes, spec.artifact.parent_path(), options, spec.artifact.string());
}

// The graph file as it is, through the session cache when one is set.
ort::Session session_on_file(const DecoderSpec& spec, const ort::SessionOptions& options) {
  std::error_code ec;
  if (session_cache_dir().empty() || !std::filesystem::is_regular_file(spec.artifact, ec))
    return ort::Session::open(spec.artifact, options);
  return session_on(onnx::load_model_bytes(spec.artifact), spec, options);
}

// The decoder's session: over the graph with its logits cut (setting `keep_input`) when the
// rewrite recognises it, else over the file as it is.
ort::Session open_session(const DecoderSpec& spec, const ort::SessionOptions& options, std::string& keep_input) {
  std::error_code ec;
  if (!cut_enabled(spec) || !std::filesystem::is_regular_file(spec.artifact, ec))
    return session_on_file(spec, options);
  onnx::LogitsCut cut;
  try {
    cut = onnx::cut_logits(spec.artifact, spec.logits_output);
  } catch (const Error& e) {
    cut.declined = e.what();
  }
  if (!cut.model) {
    log(LogLevel::kInfo, "{}: logits computed for every position (the graph was not cut: {})", spec.artifact.string(),
        cut.declined);
    return session_on_file(spec, options);
  }
  keep_input = onnx::kLogitsKeepInput;
  log(LogLevel::kDebug, "{}: logits cut to the positions each run asks for ('{}')", spec.artifact.string(), keep_input);
  return session_on(*cut.model, spec, options);
}

}  // namespace

AttentionState::AttentionState(std::int64_t batch) : rows_(static_cast<std::size_t>(batch)) {
  if (batch <= 0) fail(ErrorCode::kInvalidArgument, "batch", "batch size {} must be positive", batch);
}

AttentionState AttentionState::all_real(std::int64_t length) {
  AttentionState a(1);
  a.rows_[0].mask.assign(static_cast<std::size_t>(length), 1);
  a.rows_[0].real = length;
  return a;
}

void AttentionState::truncate(std::int64_t length) {
  for (auto& row : rows_) {
    if (length < static_cast<std::int64_t>(row.mask.size())) {
      row.mask.resize(static_cast<std::size_t>(length));
      row.real = 0;
      for (auto m : row.mask) row.real += m;
    }
  }
}

namespace {

// The element offset of (row, pos)'s logits in a [batch, computed, vocab] tensor.
std::size_t logits_offset(const ort::Tensor& logits, std::int64_t logits_from, std::int64_t row, std::int64_t pos) {
  const auto& shape = logits.shape();
  const std::int64_t at = pos - logits_from;
  if (shape.size() != 3 || row < 0 || row >= shape[0] || at < 0 || at >= shape[1])
    fail(ErrorCode::kInternal, "logits", "position {} of row {} was not computed (logits {} from position {})", pos,
         row, ort::shape_string(shape), logits_from);
  return static_cast<std::size_t>((row * shape[1] + at) * shape[2]);
}

}  // namespace

void StepOutput::locate(std::int64_t fed) {
  seq = fed;
  const auto& shape = logits.shape();
  if (shape.size() != 3 || shape[1] > fed || shape[1] < 1)
    fail(ErrorCode::kInvalidPackage, "logits", "the logits are {} for a step of {} positions, expected "
         "[batch, 1..{}, vocab]", ort::shape_string(shape), fed, fed);
  logits_from = fed - shape[1];
}

std::span<float> StepOutput::row_logits(std::int64_t row, std::int64_t pos, std::vector<float>& scratch) {
  const auto& shape = logits.shape();
  const std::size_t vocab = static_cast<std::size_t>(shape[2]);
  const std::size_t offset = logits_offset(logits, logits_from, row, pos);
  if (logits.dtype() == DataType::kFloat32) return logits.span<float>().subspan(offset, vocab);
  scratch.resize(vocab);
  const auto* raw = static_cast<const std::uint16_t*>(logits.raw_data()) + offset;
  if (logits.dtype() == DataType::kFloat16) {
    for (std::size_t i = 0; i < vocab; ++i) scratch[i] = half_to_float(raw[i]);
  } else {
    for (std::size_t i = 0; i < vocab; ++i) scratch[i] = bfloat16_to_float(raw[i]);
  }
  return scratch;
}

std::span<const float> StepOutput::row_logits(std::int64_t row, std::int64_t pos) const {
  const std::size_t offset = logits_offset(logits, logits_from, row, pos);
  return logits.span<float>().subspan(offset, static_cast<std::size_t>(logits.shape()[2]));
}

Decoder::Decoder(DecoderSpec spec, const ort::SessionOptions& options, SessionPreload* preload)
    : spec_(std::move(spec)),
      session_(open_session(spec_, options, keep_input_)),
      memory_(ort::Memory::of(session_)) {
  if (spec_.embedding) {
    const ort::PortInfo& embeds = require_port(session_, spec_.token_input, true, "inputs_embeds");
    if (!is_float_type(embeds.dtype) || embeds.shape.size() != 3)
      fail(ErrorCode::kInvalidPackage, session_.origin(),
           "the inputs_embeds port '{}' is {} of rank {}, expected a float [batch, sequence, hidden]", embeds.name,
           dtype_name(embeds.dtype), embeds.shape.size());
    embedding_ = std::make_unique<EmbeddingStage>(*spec_.embedding, options, embeds.shape[2], embeds.dtype, preload);
  }
  check_against_session();
  if (!spec_.cache_branch_input.empty())
    cache_branch_scalar_ = session_.find_input(spec_.cache_branch_input)->shape.empty();
  spec_.token_dtype = embedding_ ? embedding_->ids_dtype() : session_.find_input(spec_.token_input)->dtype;
  if (!spec_.mask_input.empty()) spec_.mask_dtype = session_.find_input(spec_.mask_input)->dtype;
  if (!spec_.position_input.empty()) spec_.position_dtype = session_.find_input(spec_.position_input)->dtype;
  const auto& logits_shape = session_.find_output(spec_.logits_output)->shape;
  if (spec_.vocab_size == 0 && !logits_shape.empty() && logits_shape.back() > 0) spec_.vocab_size = logits_shape.back();
  input_names_.push_back(spec_.token_input);
  if (!spec_.mask_input.empty()) input_names_.push_back(spec_.mask_input);
  if (!spec_.position_input.empty()) input_names_.push_back(spec_.position_input);
  if (!spec_.write_indices_input.empty()) input_names_.push_back(spec_.write_indices_input);
  if (!spec_.cache_lengths_input.empty()) input_names_.push_back(spec_.cache_lengths_input);
  for (const auto& pair : spec_.cache.pairs) input_names_.push_back(pair.input);
  for (const auto& name : spec_.encoder_inputs) input_names_.push_back(name);
  output_names_.push_back(spec_.logits_output);
  if (!spec_.hidden_output.empty()) output_names_.push_back(spec_.hidden_output);
  for (const auto& pair : spec_.cache.pairs) output_names_.push_back(pair.output);
}

void Decoder::check_against_session() const {
  const std::string& origin = session_.origin();
  if (spec_.token_input.empty())
    fail(ErrorCode::kUnsupported, origin, "decoders fed by inputs_embeds only are not supported yet");
  if (!embedding_) require_index(require_port(session_, spec_.token_input, true, "token_ids"), origin, 2);
  if (!spec_.mask_input.empty())
    require_index(require_port(session_, spec_.mask_input, true, "attention_mask"), origin, 2);
  if (!spec_.position_input.empty())
    check_positions(require_port(session_, spec_.position_input, true, "position_ids"), spec_, origin);
  const auto& logits = require_port(session_, spec_.logits_output, false, "logits");
  if (logits.dtype != DataType::kFloat32 && logits.dtype != DataType::kFloat16 && logits.dtype != DataType::kBfloat16)
    fail(ErrorCode::kUnsupported, origin, "logits '{}' are {}, expected float32, float16 or bfloat16", logits.name,
         dtype_name(logits.dtype));
  if (!spec_.hidden_output.empty()) require_port(session_, spec_.hidden_output, false, "hidden_states");
  for (const auto& pair : spec_.cache.pairs) {
    require_port(session_, pair.input, true, "past KV");
    require_port(session_, pair.output, false, "present KV");
  }
  for (const auto& name : spec_.encoder_inputs) require_port(session_, name, true, "encoder-fed");
  if (!spec_.write_indices_input.empty())
    require_int64(require_port(session_, spec_.write_indices_input, true, "write_indices"), origin, 1);
  if (!spec_.cache_lengths_input.empty())
    require_int64(require_port(session_, spec_.cache_lengths_input, true, "kv_length"), origin, 1);
  if (!spec_.cache_branch_input.empty()) check_cache_branch(require_port(session_, spec_.cache_branch_input, true,
                                                                        "cache branch"), spec_, origin);
  std::size_t fed = 1 + !spec_.mask_input.empty() + !spec_.position_input.empty() + !spec_.write_indices_input.empty() +
                    !spec_.cache_lengths_input.empty() + spec_.cache.pairs.size() + !keep_input_.empty() +
                    spec_.encoder_inputs.size() + !spec_.cache_branch_input.empty();
  if (fed != session_.inputs().size()) {
    std::string unfed;
    for (const auto& in : session_.inputs()) {
      bool known = in.name == spec_.token_input || in.name == spec_.mask_input || in.name == spec_.position_input ||
                   in.name == spec_.write_indices_input || in.name == spec_.cache_lengths_input ||
                   (!keep_input_.empty() && in.name == keep_input_) ||
                   (!spec_.cache_branch_input.empty() && in.name == spec_.cache_branch_input);
      for (const auto& p : spec_.cache.pairs) known = known || p.input == in.name;
      for (const auto& e : spec_.encoder_inputs) known = known || e == in.name;
      if (!known) unfed += (unfed.empty() ? "'" : ", '") + in.name + "'";
    }
    fail(ErrorCode::kUnsupported, origin, "graph inputs {} have no role the engine can fill", unfed);
  }
}

StepOutput Decoder::step(std::span<const TokenId> tokens, std::int64_t seq, std::span<const std::uint8_t> real,
                         AttentionState& attention, kv::KvCache& cache, const FeatureRows* rows,
                         std::int64_t keep, const CrossState* cross) const {
  const std::int64_t batch = attention.batch();
  const std::int64_t past = attention.length();
  OGAI_CHECK(static_cast<std::int64_t>(tokens.size()) == batch * seq && cache.length() == past);
  OGAI_CHECK(real.empty() || real.size() == tokens.size());
  if (!spec_.encoder_inputs.empty() && (batch != 1 || !cross || cross->tensors.size() != spec_.encoder_inputs.size()))
    fail(ErrorCode::kInternal, session_.origin(), "an encoder-decoder step needs its row's encoder outputs");

  // Attention rows and positions for the new tokens ([3, batch, seq] for 3-D positions).
  const int axes = spec_.mrope ? 3 : 1;
  attention.positions_.resize(static_cast<std::size_t>(axes * batch * seq));
  for (std::int64_t b = 0; b < batch; ++b) {
    auto& row = attention.rows_[static_cast<std::size_t>(b)];
    for (std::int64_t s = 0; s < seq; ++s) {
      bool is_real = real.empty() || real[static_cast<std::size_t>(b * seq + s)] != 0;
      row.mask.push_back(is_real ? 1 : 0);
      const std::int64_t k = is_real ? row.real++ : -1;
      for (int a = 0; a < axes; ++a)
        attention.positions_[static_cast<std::size_t>((a * batch + b) * seq + s)] =
            !is_real ? kPaddingPosition : row.mrope ? row.mrope->at(a, k) : k;
    }
  }
  const std::int64_t total = past + seq;
  try {
    std::int64_t* mask_data = attention.rows_[0].mask.data();
    if (batch > 1) {
      attention.batch_mask_.resize(static_cast<std::size_t>(batch * total));
      for (std::int64_t b = 0; b < batch; ++b)
        std::copy(attention.rows_[static_cast<std::size_t>(b)].mask.begin(),
                  attention.rows_[static_cast<std::size_t>(b)].mask.end(), attention.batch_mask_.begin() + b * total);
      mask_data = attention.batch_mask_.data();
    }
    cache.reserve(total);
    // Feeds in input_names_ order: tokens, [mask], [positions], pasts. ORT never writes inputs.
    ort::Tensor owned[5];
    std::size_t n_owned = 0;
    auto& narrow = attention.narrow_;  // int32 copies when the graph takes int32 (index_feed.h)
    owned[n_owned++] = ids_feed(spec_.token_dtype, {batch, seq}, tokens, attention.wide_ids_, spec_.token_input);
    double embed_seconds = 0;
    if (embedding_) owned[0] = embedding_->embed(owned[0], rows, embed_seconds);
    if (!spec_.mask_input.empty())
      owned[n_owned++] = index_feed(spec_.mask_dtype, {batch, total},
                                    {mask_data, static_cast<std::size_t>(batch * total)}, narrow[0], spec_.mask_input);
    if (!spec_.position_input.empty())
      owned[n_owned++] = index_feed(spec_.position_dtype, spec_.mrope ? ort::Shape{3, batch, seq} : ort::Shape{batch, seq},
                                    attention.positions_, narrow[1], spec_.position_input);
    if (!spec_.write_indices_input.empty() || !spec_.cache_lengths_input.empty()) {
      attention.lengths_.assign(static_cast<std::size_t>(batch), past);  // write at the end of every row
      attention.lengths_.resize(static_cast<std::size_t>(2 * batch), total);
    }
    if (!spec_.write_indices_input.empty())
      owned[n_owned++] = ort::Tensor::view(DataType::kInt64, {batch}, attention.lengths_.data());
    if (!spec_.cache_lengths_input.empty())
      owned[n_owned++] = ort::Tensor::view(DataType::kInt64, {batch}, attention.lengths_.data() + batch);
    auto pasts = cache.pasts();
    std::vector<const ort::Tensor*> inputs(input_names_.size());
    for (std::size_t i = 0; i < n_owned; ++i) inputs[i] = &owned[i];
    for (std::size_t i = 0; i < pasts.size(); ++i) inputs[n_owned + i] = &pasts[i];
    std::vector<ort::Tensor> encoder_feeds = cross ? cross_views(*cross) : std::vector<ort::Tensor>{};
    for (std::size_t i = 0; i < spec_.encoder_inputs.size(); ++i)
      inputs[n_owned + pasts.size() + i] = &encoder_feeds[i];
    std::vector<ort::Tensor> outputs(output_names_.size());
    std::span<ort::Tensor> presents(outputs.data() + (outputs.size() - pasts.size()), pasts.size());
    cache.bind_presents(presents);
    ort::Binding binding(session_);
    const double run_seconds = run(binding, inputs, outputs, ort::Location{}, keep);
    cache.commit(presents, seq);
    StepOutput out;
    out.run_seconds = run_seconds + embed_seconds;
    out.logits = std::move(outputs[0]);
    out.locate(seq);
    if (!spec_.hidden_output.empty()) out.hidden = std::move(outputs[1]);
    return out;
  } catch (...) {
    attention.truncate(past);
    throw;
  }
}

std::vector<const ort::Tensor*> Decoder::embedded(std::span<const ort::Tensor* const> inputs, ort::Tensor& embeds,
                                                  double& seconds) const {
  std::vector<const ort::Tensor*> fed(inputs.begin(), inputs.end());
  if (embedding_ && !fed.empty() && is_index_dtype(fed[0]->dtype())) {
    embeds = embedding_->embed(*fed[0], nullptr, seconds);
    fed[0] = &embeds;
  }
  return fed;
}

double Decoder::run(std::span<const ort::Tensor* const> inputs, std::span<ort::Tensor> outputs,
                    std::int64_t keep) const {
  OGAI_CHECK(inputs.size() == input_names_.size() && outputs.size() == output_names_.size());
  ort::Tensor embeds;
  double seconds = 0;
  auto fed = embedded(inputs, embeds, seconds);
  if (keep_input_.empty() && spec_.cache_branch_input.empty())
    return seconds + session_.run_into(input_names_, fed, output_names_, outputs);
  std::vector<std::string> names = input_names_;
  ExtraFeeds extra;
  extra_feeds(inputs, keep, extra);
  for (std::size_t i = 0; i < extra.count; ++i) {
    names.push_back(*extra.names[i]);
    fed.push_back(&extra.tensors[i]);
  }
  return seconds + session_.run_into(names, fed, output_names_, outputs);
}

void Decoder::extra_feeds(std::span<const ort::Tensor* const> inputs, std::int64_t keep, ExtraFeeds& out) const {
  if (!keep_input_.empty()) {
    out.keep = keep;
    out.names[out.count] = &keep_input_;
    out.tensors[out.count++] = ort::Tensor::view(DataType::kInt64, {1}, &out.keep);
  }
  if (!spec_.cache_branch_input.empty()) {
    out.flag = has_past(spec_, inputs);
    out.names[out.count] = &spec_.cache_branch_input;
    out.tensors[out.count++] =
        ort::Tensor::view(DataType::kBool, cache_branch_scalar_ ? ort::Shape{} : ort::Shape{1}, &out.flag);
  }
}

double Decoder::run(ort::Binding& binding, std::span<const ort::Tensor* const> inputs, std::span<ort::Tensor> outputs,
                    ort::Location presents_at, std::int64_t keep) const {
  OGAI_CHECK(inputs.size() == input_names_.size() && outputs.size() == output_names_.size());
  ort::Tensor embeds;
  double embed_seconds = 0;
  const auto fed = embedded(inputs, embeds, embed_seconds);
  binding.clear();
  for (std::size_t i = 0; i < fed.size(); ++i) binding.bind_input(input_names_[i], *fed[i]);
  ExtraFeeds extra;  // lives through the run
  extra_feeds(inputs, keep, extra);
  for (std::size_t i = 0; i < extra.count; ++i) binding.bind_input(*extra.names[i], extra.tensors[i]);
  const std::size_t first_present = output_names_.size() - spec_.cache.pairs.size();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].empty())
      binding.bind_output(output_names_[i], outputs[i]);
    else
      binding.bind_output_to(output_names_[i], i < first_present ? ort::Location{} : presents_at);
  }
  const double seconds = binding.run() + embed_seconds;
  binding.take_outputs(outputs);
  binding.clear();  // the binding would otherwise keep this step's pasts alive until the next step
  return seconds;
}

}  // namespace ogai::generate
