// The adapter cache of one loaded package (adapters.cache): at most `cache_entries` adapters
// resident, least recently used evicted first, and the lifecycle counters the standard's
// diagnostics report (loads, cache hits, evictions, reloads, capture invalidations, plan
// variants and replays: a plan is one batch's adapter composition; an eviction with
// planning.invalidate_capture_on_eviction forgets every plan, as a captured graph would be).
//
// prepare() resolves one batch's selection (per row: adapters with scales; inactive rows get
// none) against the cache, loading what is missing (lora_weights.h), and hands back the factors
// as shared pointers, so a later eviction never frees what a running request holds. It refuses,
// naming the row: an undeclared alias (listing the declared ones), a duplicate adapter in a row,
// a scale that is not finite or outside [-16, 16], and a batch that activates more distinct
// adapters than the cache holds. A failed load leaves the cache as it was.
// Thread-safe: one mutex; a load runs under it (adapter files are small next to the model).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "workflow/lora_contract.h"
#include "workflow/lora_rows.h"
#include "workflow/lora_weights.h"

namespace ogai::workflow {

struct LoraLifecycle {
  std::uint64_t loads = 0, cache_hits = 0, evictions = 0, reloads = 0, capture_invalidations = 0, replayed_plans = 0;
  std::size_t plan_variants = 0;
  std::vector<std::string> cached;  // least recently used first
};

struct PreparedAdapter {
  std::shared_ptr<const LoadedLora> weights;
  float scale = 1;
};
using PreparedRows = std::vector<std::vector<PreparedAdapter>>;  // [batch][slot]

class LoraCache {
 public:
  explicit LoraCache(LoraContract contract) : contract_(std::move(contract)) {}
  LoraCache(const LoraCache&) = delete;
  LoraCache& operator=(const LoraCache&) = delete;

  const LoraContract& contract() const { return contract_; }
  // `active` has one flag per row of `rows`; `what` names the request for errors.
  PreparedRows prepare(const LoraRows& rows, const std::vector<bool>& active, const std::string& what);
  LoraLifecycle lifecycle() const;

 private:
  std::shared_ptr<const LoadedLora> acquire(const LoraArtifact& artifact);  // mutex held
  void check_rows(const LoraRows& rows, const std::vector<bool>& active, const std::string& what) const;

  const LoraContract contract_;
  mutable std::mutex mutex_;
  std::list<std::pair<std::string, std::shared_ptr<const LoadedLora>>> lru_;  // front: least recently used
  std::set<std::string> ever_loaded_, plans_;
  LoraLifecycle stats_;
};

}  // namespace ogai::workflow
