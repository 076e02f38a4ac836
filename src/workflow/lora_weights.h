// Reading one LoRA adapter's factors from its weight files: the portable JSON
// ({"targets": {weight_key: {"a": [rank*in floats], "b": [out*rank floats]}}}) or a PEFT
// directory's adapter_model.safetensors (`base_model.model.<key>.lora_A.weight` [rank, in],
// `...lora_B.weight` [out, rank]; else the one tensor named `*.<key>.lora_A.weight`, as in the
// fixture's `base_model.<key>...`) with its adapter_config.json (r, lora_alpha, target_modules,
// use_rslora; DoRA and per-module rank/alpha patterns are refused by name).
//
// The artifact's weights are alternatives: the first in declared order whose format is json or
// hf_peft is read (ort_genai and bare safetensors entries are skipped); none readable: refused.
// Every file is resolved inside the package (symlink and `..` escapes refused), bounded in size,
// and checked against the target manifest (A is [rank, input_features], B is
// [output_features, rank]); errors name the file and the field or tensor.
// Pure functions (no shared state); thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "workflow/lora_contract.h"

namespace ogai::workflow {

struct LoraFactors {
  std::int64_t input_features = 0, output_features = 0, rank = 0;
  float factor = 1;      // alpha / rank (alpha_over_rank; alpha / sqrt(rank) with PEFT's use_rslora) or 1 (baked)
  std::vector<float> a;  // [rank, input_features]
  std::vector<float> b;  // [output_features, rank]
};

struct LoadedLora {
  std::string alias;
  std::map<std::pair<std::string, std::string>, LoraFactors> targets;  // (component, initializer) -> factors
  std::string source;  // the weight file read (for diagnostics)
};

// Limits on adapter weight files.
inline constexpr std::uint64_t kMaxLoraJsonBytes = 256ull << 20;
inline constexpr std::uint64_t kMaxPeftConfigBytes = 1ull << 20;

LoadedLora load_lora(const LoraContract& contract, const LoraArtifact& artifact);

}  // namespace ogai::workflow
