// Generating one sequence: prefill (reusing the prefix the state already holds), then the decode
// loop — sample, stream text, check stop rules, feed the token back.
#pragma once

#include <span>
#include <vector>

#include "generate/decoder.h"
#include "generate/media_marks.h"
#include "generate/request.h"
#include "ogai/generation.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {

// The reusable state of one conversation: the KV cache and the tokens it holds.
struct SequenceState {
  explicit SequenceState(const Decoder& decoder) : cache(decoder.spec().cache, 1), attention(1) {}
  void reset(const Decoder& decoder) { *this = SequenceState(decoder); }
  // A deep copy (KV buffers included): a snapshot to restore after speculative verification.
  SequenceState copy() const {
    SequenceState s(cache.copy(), attention, tokens);
    s.media = media;
    s.cross = cross;
    return s;
  }

  kv::KvCache cache;
  AttentionState attention;
  std::vector<TokenId> tokens;  // tokens whose KV is in `cache`
  MediaMarks media;             // the media whose soft tokens are among `tokens` (media_marks.h)
  // Encoder-decoder packages: this request's encoder outputs (shared, read-only); null otherwise.
  CrossStatePtr cross;

 private:
  SequenceState(kv::KvCache c, AttentionState a, std::vector<TokenId> t)
      : cache(std::move(c)), attention(std::move(a)), tokens(std::move(t)) {}
};

// Everything a sequence needs from the loaded package.
struct SequenceModel {
  const Decoder& decoder;
  const tokenizer::Tokenizer* tokenizer;  // null: a token-id package (replies are ids as text)
};

struct Speculation;

// Generates from `prompt`, continuing `state` (its longest common prefix with the prompt is kept,
// the rest rewound): an engine (engine.h) of one sequence, speculative when `speculation` has a
// drafter. Throws ogai::Error for a prompt that does not fit (unless truncation was
// asked) and for ORT failures; `state` stays usable afterwards.
GenerationResult generate_sequence(const SequenceModel& model, const ResolvedRequest& request,
                                   std::span<const TokenId> prompt, SequenceState& state,
                                   const StreamCallback& on_token, const Speculation& speculation);

}  // namespace ogai::generate
