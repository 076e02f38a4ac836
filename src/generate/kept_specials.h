// Which special tokens stay in generated text. Text streams skip special tokens (Hugging Face's
// skip_special_tokens), but some chat families write their reply markers as special tokens:
// Gemma-4's <|channel>, <|tool_call> and <|"|>, gpt-oss's <|channel|> and <|message|>. Skipped,
// the reply parser would never see a thinking section or a tool call (vLLM's parsers for these
// families ask for skip_special_tokens=false for the same reason). So a special token whose text
// occurs in one of the reply layout's marker sources (chat/reply/reply_layout.h) is kept, except
// the end ids (EOS ends the reply; its text is never emitted). Computed once per model at load.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ogai/token_id.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {

// `sources` are regex sources or plain texts; a backslash before punctuation is read as that
// punctuation (so "\<\|channel\>" names <|channel>). Sorted ids.
std::vector<TokenId> kept_specials(const tokenizer::Tokenizer& tokenizer, const std::vector<std::string>& sources,
                                   std::span<const TokenId> end_ids);

}  // namespace ogai::generate
