#include "generate/batch.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "base/error.h"
#include "generate/output_stream.h"
#include "generate/token_logprobs.h"
#include "sampling/sampler.h"

namespace ogai::generate {
namespace {

// One row's sampling and output state.
struct Row {
  Row(const SequenceModel& model, const ResolvedRequest& request, GenerationResult& result)
      : sampler(request.sampling, model.decoder.spec().vocab_size), output(model.tokenizer, request, kNoCallback, result),
        logprobs(request.logprobs) {}
  static inline const StreamCallback kNoCallback{};
  sampling::Sampler sampler;
  OutputStream output;
  LogprobRecorder logprobs;  // per row
  bool done = false;
};

// Left-pads the prompts into one [batch, longest] block; `real` marks the prompt tokens.
std::int64_t pad_prompts(std::span<const std::vector<std::int32_t>> prompts, std::vector<std::int64_t>& tokens,
                         std::vector<std::uint8_t>& real) {
  std::size_t longest = 0;
  for (const auto& p : prompts) longest = std::max(longest, p.size());
  tokens.assign(prompts.size() * longest, 0);
  real.assign(prompts.size() * longest, 0);
  for (std::size_t b = 0; b < prompts.size(); ++b) {
    std::size_t pad = longest - prompts[b].size();
    std::copy(prompts[b].begin(), prompts[b].end(), tokens.begin() + b * longest + pad);
    std::fill(real.begin() + b * longest + pad, real.begin() + (b + 1) * longest, 1);
  }
  return static_cast<std::int64_t>(longest);
}

}  // namespace

std::vector<GenerationResult> generate_batch(const SequenceModel& model, const ResolvedRequest& request,
                                             std::span<const std::vector<std::int32_t>> prompts) {
  std::vector<GenerationResult> results(prompts.size());
  if (prompts.empty()) return results;
  if (!model.decoder.spec().left_padding) {
    for (std::size_t i = 0; i < prompts.size(); ++i) {
      SequenceState state(model.decoder);
      results[i] = generate_sequence(model, request, prompts[i], state, {});
    }
    return results;
  }
  const auto batch = static_cast<std::int64_t>(prompts.size());
  std::vector<std::unique_ptr<Row>> rows;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    if (prompts[i].empty()) fail(ErrorCode::kInvalidArgument, "prompts[" + std::to_string(i) + "]", "the prompt has no tokens");
    request.stop.check_prompt(static_cast<std::int64_t>(prompts[i].size()));
    results[i].prompt_ids = prompts[i];
    rows.push_back(std::make_unique<Row>(model, request, results[i]));
    std::vector<std::int64_t> history(prompts[i].begin(), prompts[i].end());
    rows.back()->sampler.reset(history);
  }
  kv::KvCache cache(model.decoder.spec().cache, batch);
  AttentionState attention(batch);
  std::vector<std::int64_t> tokens;
  std::vector<std::uint8_t> real;
  std::int64_t seq = pad_prompts(prompts, tokens, real);
  std::vector<float> scratch;
  StepOutput out = model.decoder.step(tokens, seq, real, attention, cache);
  std::int64_t position = seq - 1;
  for (std::size_t live = rows.size(); live > 0; position = 0) {
    tokens.assign(static_cast<std::size_t>(batch), 0);
    real.assign(static_cast<std::size_t>(batch), 0);
    for (std::int64_t b = 0; b < batch; ++b) {
      Row& row = *rows[static_cast<std::size_t>(b)];
      if (row.done) continue;
      const std::int64_t token = row.sampler.next(row.logprobs.observe(out.row_logits(b, position, scratch)));
      row.done = row.output.push(token, row.logprobs.entry(static_cast<std::int32_t>(token)));
      if (row.done) {
        row.output.finish();
        --live;
      }
      tokens[static_cast<std::size_t>(b)] = token;
      real[static_cast<std::size_t>(b)] = row.done ? 0 : 1;
    }
    if (live > 0) out = model.decoder.step(tokens, 1, real, attention, cache);
  }
  return results;
}

}  // namespace ogai::generate
