// `--prompt-ids JSON`: a prompt given as token ids, for `ogai generate` and `ogai bench` on every
// package (token-id packages without a tokenizer.json included). The ids are fed exactly as
// given: no BOS or other special token is added.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ogai::cli {

// A non-empty JSON array of integers in [0, 2^31); throws ogai::Error(kInvalidArgument) naming
// `flag` and the offending element otherwise.
std::vector<std::int32_t> parse_prompt_ids(const std::string& json, const std::string& flag);

// "5 7 9": how a reply prints when the package has no tokenizer.
std::string ids_text(const std::vector<std::int32_t>& ids);

}  // namespace ogai::cli
