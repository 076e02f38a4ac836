#include "generate/output_stream.h"

#include <algorithm>

namespace ogai::generate {
OutputStream::OutputStream(const tokenizer::Tokenizer* tokenizer, const ResolvedRequest& request,
                           const StreamCallback& on_token, GenerationResult& result)
    : request_(request),
      on_token_(on_token),
      result_(result),
      text_(tokenizer ? TextStream(*tokenizer, request.stop_strings, result.prompt_ids, request.kept_specials)
                      : TextStream(request.stop_strings)) {}

bool OutputStream::is_stop_id(TokenId token) const {
  const auto& ids = request_.stop_token_ids;
  return std::find(ids.begin(), ids.end(), token) != ids.end();
}

bool OutputStream::push(TokenId token, const TokenLogprobs* logprobs) {
  result_.ids.push_back(token);
  if (logprobs) {
    result_.logprobs.push_back(*logprobs);
    logprobs = &result_.logprobs.back();
  }
  const bool stop_id = is_stop_id(token);
  const bool ends = request_.stop.is_eos(token) || stop_id;
  std::string_view piece = ends ? std::string_view() : text_.push(token);
  const bool cancelled = on_token_ && !on_token_(StreamEvent{token, piece, logprobs});
  reason_ = request_.stop.check(token, static_cast<std::int64_t>(result_.ids.size()),
                                static_cast<std::int64_t>(result_.prompt_ids.size() + result_.ids.size()), cancelled,
                                text_.stopped() || stop_id);
  return done();
}

void OutputStream::finish() {
  std::string_view tail = text_.finish();
  if (!tail.empty() && on_token_ && !result_.ids.empty()) on_token_(StreamEvent{result_.ids.back(), tail});
  result_.text = text_.text();
  result_.finish_reason = reason_.value_or(FinishReason::kLength);  // ended by its context
}

}  // namespace ogai::generate
