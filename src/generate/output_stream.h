// OutputStream: what happens to each generated token of one sequence, shared by every decode loop
// (plain, batched, speculative): record the id, turn it into text (TextStream: final UTF-8 only,
// stop strings held back), call the caller's stream callback, and apply the stop rules (EOS and
// stop ids, stop strings, max_new_tokens, context limit, cancellation). When the sequence ends,
// finish() releases held-back text and fills the result's ids, text and finish reason.
// Not thread-safe; one per sequence.
#pragma once

#include <optional>

#include "generate/request.h"
#include "generate/text_stream.h"
#include "ogai/generation.h"

namespace ogai::generate {

class OutputStream {
 public:
  // `result.prompt_ids` must already hold the prompt as fed; `on_token` may be empty. Without a
  // tokenizer (null) the text is the ids as text (text_stream.h).
  OutputStream(const tokenizer::Tokenizer* tokenizer, const ResolvedRequest& request, const StreamCallback& on_token,
               GenerationResult& result);

  // Records one generated token (and its log-probabilities when the request asks for them: copied
  // into the result and shown to the callback); returns true when the sequence must end with it.
  bool push(TokenId token, const TokenLogprobs* logprobs = nullptr);
  // Ends the stream: flushes held-back text (to the callback too) and sets the finish reason.
  void finish();
  // Ends the sequence as cancelled by its caller (finish() still releases held-back text).
  void cancel() { reason_ = FinishReason::kCancelled; }
  // Ends the sequence for `reason` unless a stop rule already ended it (a workflow that stopped
  // on its own: kStop; one that ran its whole budget: kLength).
  void end(FinishReason reason) {
    if (!reason_) reason_ = reason;
  }

  bool done() const { return reason_.has_value(); }
  std::size_t generated() const { return result_.ids.size(); }

 private:
  bool is_stop_id(TokenId token) const;

  const ResolvedRequest& request_;
  const StreamCallback& on_token_;
  GenerationResult& result_;
  TextStream text_;
  std::optional<FinishReason> reason_;  // set once the sequence must end
};

}  // namespace ogai::generate
