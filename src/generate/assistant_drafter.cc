#include "generate/assistant_drafter.h"

#include <algorithm>

#include "base/error.h"
#include "base/half.h"

namespace ogai::generate {
namespace {

TokenId argmax_row(const ort::Tensor& logits, std::vector<float>& scratch) {
  const std::size_t vocab = static_cast<std::size_t>(logits.shape().back());
  scratch.resize(vocab);
  convert_floats(logits.raw_data(), logits.dtype(), scratch.data(), DataType::kFloat32, vocab);
  return static_cast<TokenId>(std::max_element(scratch.begin(), scratch.end()) - scratch.begin());
}

}  // namespace

AssistantDrafter::AssistantDrafter(AssistantSpec spec, const ort::SessionOptions& options, SessionPreload* preload)
    : spec_(std::move(spec)), session_(open_graph(preload, spec_.artifact, options)) {
  const ort::PortInfo* embeds = session_.find_input(spec_.embeds_input);
  if (embeds == nullptr || embeds->shape.size() != 3 || embeds->shape[2] <= 0 || embeds->shape[2] % 2 != 0)
    fail(ErrorCode::kInvalidPackage, session_.origin(),
         "proposer input '{}' must be [batch, seq, 2*hidden] with a fixed width", spec_.embeds_input);
  embeds_dtype_ = embeds->dtype;
  hidden_ = embeds->shape[2] / 2;
  check_ports();
  input_names_.push_back(spec_.embeds_input);
  for (const auto& b : spec_.borrows) input_names_.push_back(b.input);
  output_names_ = {spec_.logits_output, spec_.carry_output};
}

void AssistantDrafter::check_ports() const {
  const std::string& origin = session_.origin();
  const auto& table = spec_.embedding;
  if (table.dims.size() != 2 || table.dims[1] != hidden_)
    fail(ErrorCode::kInvalidPackage, origin, "token-embedding table '{}' is not [vocab, {}]", table.name, hidden_);
  for (const auto* name : {&spec_.logits_output, &spec_.carry_output})
    if (session_.find_output(*name) == nullptr)
      fail(ErrorCode::kInvalidPackage, origin, "proposer output '{}' is not in the graph", *name);
  std::size_t fed = 1 + spec_.borrows.size();
  for (const auto& b : spec_.borrows)
    if (session_.find_input(b.input) == nullptr)
      fail(ErrorCode::kInvalidPackage, origin, "borrowed KV input '{}' is not in the graph", b.input);
  if (fed != session_.inputs().size())
    fail(ErrorCode::kUnsupported, origin,
         "the proposer has {} inputs; ogai feeds inputs_embeds and {} borrowed KV ports", session_.inputs().size(),
         spec_.borrows.size());
}

void AssistantDrafter::propose(const DraftRequest& request, std::vector<TokenId>& out) const {
  if (request.max_tokens <= 0) return;
  if (request.target_hidden == nullptr)
    fail(ErrorCode::kInternal, session_.origin(), "the assistant drafter needs the target's hidden state");
  const std::size_t h = static_cast<std::size_t>(hidden_);
  const std::size_t element = dtype_size(embeds_dtype_);
  std::vector<std::uint8_t> embeds(2 * h * element);
  // Carry 0: the target's hidden state at the last KV position.
  const ort::Tensor& hidden = *request.target_hidden;
  const auto* seed =
      static_cast<const std::uint8_t*>(hidden.raw_data()) + request.hidden_row * h * dtype_size(hidden.dtype());
  convert_floats(seed, hidden.dtype(), embeds.data() + h * element, embeds_dtype_, h);

  std::vector<ort::Tensor> borrowed;
  std::vector<const ort::Tensor*> inputs(input_names_.size());
  for (const auto& b : spec_.borrows) borrowed.push_back(request.target_cache->borrow(b.pair_index));
  for (std::size_t i = 0; i < borrowed.size(); ++i) inputs[i + 1] = &borrowed[i];
  ort::Tensor embeds_tensor = ort::Tensor::view(embeds_dtype_, {1, 1, 2 * hidden_}, embeds.data());
  inputs[0] = &embeds_tensor;

  const auto& table = spec_.embedding;
  const std::size_t table_element = dtype_size(table.dtype);
  std::vector<ort::Tensor> outputs(2);
  std::vector<float> scratch;
  TokenId token = request.history.back();
  for (int k = 0; k < request.max_tokens; ++k) {
    if (token < 0 || token >= table.dims[0])
      fail(ErrorCode::kInvalidArgument, session_.origin(), "token {} is outside the embedding table", token);
    convert_floats(table.bytes.data() + static_cast<std::size_t>(token) * h * table_element, table.dtype, embeds.data(),
                   embeds_dtype_, h);
    outputs[0] = ort::Tensor();
    outputs[1] = ort::Tensor();
    session_.run_into(input_names_, inputs, output_names_, outputs);
    token = argmax_row(outputs[0], scratch);
    out.push_back(token);
    convert_floats(outputs[1].raw_data(), outputs[1].dtype(), embeds.data() + h * element, embeds_dtype_, h);
  }
}

}  // namespace ogai::generate
