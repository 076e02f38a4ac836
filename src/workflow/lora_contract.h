// The document's `adapters` section as the LoRA runtime reads it: typed targets, artifacts with
// their weight files and bindings, the request selection inputs, the cache size and eviction
// planning. lora_contract() reads the raw JSON the metadata stage keeps (target_manifest.targets,
// artifacts[].bindings, cache, planning) and throws kInvalidPackage naming the document path of a
// missing or malformed field; it reads no weight file (lora_weights.h does, on first use).
// Defaults follow the standard: cache.max_entries 16, eviction lru,
// planning.invalidate_capture_on_eviction true. Immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "metadata/document.h"

namespace ogai::workflow {

struct LoraTarget {  // target_manifest.targets[i]
  std::string id, component, initializer;
  std::int64_t input_features = 0, output_features = 0;
};

struct LoraBinding {  // artifacts.<alias>.bindings[i]
  std::string target, weight_key;
  std::optional<std::int64_t> rank;  // overrides the artifact's
  std::optional<double> alpha;
};

struct LoraWeightFile {  // artifacts.<alias>.weights[i]
  std::string format;          // json | hf_peft (others are refused when chosen)
  std::string location;        // package-relative
  std::optional<std::string> config_location;
  bool alpha_over_rank = true; // scale_encoding: alpha_over_rank (factor alpha/rank) | baked (1)
};

struct LoraArtifact {
  std::string alias, identity, version, dtype;
  std::int64_t index = 0, rank = 0;
  double alpha = 0;
  std::vector<LoraWeightFile> weights;  // alternatives, in declared order
  std::vector<LoraBinding> bindings;
};

struct LoraContract {
  std::filesystem::path root;  // the package directory (canonical)
  std::vector<LoraTarget> targets;
  std::vector<LoraArtifact> artifacts;  // in document order
  std::string segments, counts, scales;  // selection inputs
  std::optional<std::string> active;
  std::int64_t max_adapters = 0;
  std::size_t cache_entries = 16;
  bool invalidate_capture_on_eviction = true;
  bool portable_fallback = false;
  std::string capability;

  const LoraArtifact* by_alias(const std::string& alias) const;
  const LoraArtifact* by_index(std::int64_t index) const;
  const LoraTarget* target(const std::string& id) const;
  // The declared aliases, comma-separated (for errors).
  std::string aliases() const;
};

LoraContract lora_contract(const metadata::Adapters& adapters, const std::filesystem::path& root);

}  // namespace ogai::workflow
