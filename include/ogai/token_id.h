// TokenId: a token's id in the vocabulary, the one type every id has inside ogai and in its C++
// API: prompts, generated ids, EOS and stop ids, logit bias keys, the tokenizer, the sampler, the
// grammar, speculative proposals. 32 bits, as the tokenizer produces them (vocabularies stay far
// below 2^31). ONNX graphs take input_ids as int64 or int32: the feed builders
// (generate/index_feed.h) convert when they write the tensor, and only there. The C API
// (ogai_c.h) declares ids as int32_t, the same type.
#pragma once

#include <cstdint>

namespace ogai {

using TokenId = std::int32_t;

}  // namespace ogai
