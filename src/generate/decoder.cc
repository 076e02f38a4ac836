#include "generate/decoder.h"

#include "base/error.h"
#include "base/half.h"
#include "generate/index_feed.h"

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

std::span<float> StepOutput::row_logits(std::int64_t row, std::int64_t pos, std::vector<float>& scratch) {
  const auto& shape = logits.shape();
  const std::size_t vocab = static_cast<std::size_t>(shape[2]);
  const std::size_t offset = static_cast<std::size_t>((row * shape[1] + pos) * shape[2]);
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
  const auto& shape = logits.shape();
  auto all = logits.span<float>();
  std::size_t vocab = static_cast<std::size_t>(shape[2]);
  return all.subspan(static_cast<std::size_t>((row * shape[1] + pos) * shape[2]), vocab);
}

Decoder::Decoder(DecoderSpec spec, const ort::SessionOptions& options)
    : spec_(std::move(spec)),
      session_(ort::Session::open(spec_.artifact, options)),
      memory_(ort::Memory::of(session_)) {
  if (spec_.embedding) {
    const ort::PortInfo& embeds = require_port(session_, spec_.token_input, true, "inputs_embeds");
    if (!is_float_type(embeds.dtype) || embeds.shape.size() != 3)
      fail(ErrorCode::kInvalidPackage, session_.origin(),
           "the inputs_embeds port '{}' is {} of rank {}, expected a float [batch, sequence, hidden]", embeds.name,
           dtype_name(embeds.dtype), embeds.shape.size());
    embedding_ = std::make_unique<EmbeddingStage>(*spec_.embedding, options, embeds.shape[2], embeds.dtype);
  }
  check_against_session();
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
    require_index(require_port(session_, spec_.position_input, true, "position_ids"), origin, 2);
  const auto& logits = require_port(session_, spec_.logits_output, false, "logits");
  if (logits.dtype != DataType::kFloat32 && logits.dtype != DataType::kFloat16 && logits.dtype != DataType::kBfloat16)
    fail(ErrorCode::kUnsupported, origin, "logits '{}' are {}, expected float32, float16 or bfloat16", logits.name,
         dtype_name(logits.dtype));
  if (!spec_.hidden_output.empty()) require_port(session_, spec_.hidden_output, false, "hidden_states");
  for (const auto& pair : spec_.cache.pairs) {
    require_port(session_, pair.input, true, "past KV");
    require_port(session_, pair.output, false, "present KV");
  }
  if (!spec_.write_indices_input.empty())
    require_int64(require_port(session_, spec_.write_indices_input, true, "write_indices"), origin, 1);
  if (!spec_.cache_lengths_input.empty())
    require_int64(require_port(session_, spec_.cache_lengths_input, true, "kv_length"), origin, 1);
  std::size_t fed = 1 + !spec_.mask_input.empty() + !spec_.position_input.empty() + !spec_.write_indices_input.empty() +
                    !spec_.cache_lengths_input.empty() + spec_.cache.pairs.size();
  if (fed != session_.inputs().size()) {
    std::string unfed;
    for (const auto& in : session_.inputs()) {
      bool known = in.name == spec_.token_input || in.name == spec_.mask_input || in.name == spec_.position_input ||
                   in.name == spec_.write_indices_input || in.name == spec_.cache_lengths_input;
      for (const auto& p : spec_.cache.pairs) known = known || p.input == in.name;
      if (!known) unfed += (unfed.empty() ? "'" : ", '") + in.name + "'";
    }
    fail(ErrorCode::kUnsupported, origin, "graph inputs {} have no role the engine can fill", unfed);
  }
}

StepOutput Decoder::step(std::span<const TokenId> tokens, std::int64_t seq, std::span<const std::uint8_t> real,
                         AttentionState& attention, kv::KvCache& cache, const FeatureRows* rows) const {
  const std::int64_t batch = attention.batch();
  const std::int64_t past = attention.length();
  OGAI_CHECK(static_cast<std::int64_t>(tokens.size()) == batch * seq && cache.length() == past);
  OGAI_CHECK(real.empty() || real.size() == tokens.size());

  // Attention rows and positions for the new tokens.
  attention.positions_.resize(static_cast<std::size_t>(batch * seq));
  for (std::int64_t b = 0; b < batch; ++b) {
    auto& row = attention.rows_[static_cast<std::size_t>(b)];
    for (std::int64_t s = 0; s < seq; ++s) {
      bool is_real = real.empty() || real[static_cast<std::size_t>(b * seq + s)] != 0;
      row.mask.push_back(is_real ? 1 : 0);
      attention.positions_[static_cast<std::size_t>(b * seq + s)] = is_real ? row.real++ : kPaddingPosition;
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
      owned[n_owned++] =
          index_feed(spec_.position_dtype, {batch, seq}, attention.positions_, narrow[1], spec_.position_input);
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
    std::vector<ort::Tensor> outputs(output_names_.size());
    std::span<ort::Tensor> presents(outputs.data() + (outputs.size() - pasts.size()), pasts.size());
    cache.bind_presents(presents);
    ort::Binding binding(session_);
    const double run_seconds = run(binding, inputs, outputs, ort::Location{});
    cache.commit(presents, seq);
    StepOutput out;
    out.run_seconds = run_seconds + embed_seconds;
    out.logits = std::move(outputs[0]);
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

double Decoder::run(std::span<const ort::Tensor* const> inputs, std::span<ort::Tensor> outputs) const {
  OGAI_CHECK(inputs.size() == input_names_.size() && outputs.size() == output_names_.size());
  ort::Tensor embeds;
  double seconds = 0;
  const auto fed = embedded(inputs, embeds, seconds);
  return seconds + session_.run_into(input_names_, fed, output_names_, outputs);
}

double Decoder::run(ort::Binding& binding, std::span<const ort::Tensor* const> inputs, std::span<ort::Tensor> outputs,
                    ort::Location presents_at) const {
  OGAI_CHECK(inputs.size() == input_names_.size() && outputs.size() == output_names_.size());
  ort::Tensor embeds;
  double embed_seconds = 0;
  const auto fed = embedded(inputs, embeds, embed_seconds);
  binding.clear();
  for (std::size_t i = 0; i < fed.size(); ++i) binding.bind_input(input_names_[i], *fed[i]);
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
