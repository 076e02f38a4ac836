#include "workflow/lora_cache.h"

#include <fmt/format.h>

#include <cmath>

#include "base/error.h"

namespace ogai::workflow {

void LoraCache::check_rows(const LoraRows& rows, const std::vector<bool>& active, const std::string& what) const {
  if (active.size() != rows.size())
    fail(ErrorCode::kInvalidArgument, what, "the adapter active mask has {} rows but the selection has {}", active.size(),
         rows.size());
  std::set<std::string> distinct;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!active[r]) continue;
    std::set<std::string> in_row;
    for (const auto& a : rows[r]) {
      if (!contract_.by_alias(a.alias))
        fail(ErrorCode::kInvalidArgument, what, "row {} selects undeclared adapter '{}' (declared: {})", r, a.alias,
             contract_.aliases());
      if (!in_row.insert(a.alias).second)
        fail(ErrorCode::kInvalidArgument, what, "row {} selects adapter '{}' twice (duplicate adapter)", r, a.alias);
      if (!std::isfinite(a.scale) || a.scale < -16.0f || a.scale > 16.0f)
        fail(ErrorCode::kInvalidArgument, what, "row {} scales adapter '{}' by {}; expected a finite value in [-16, 16]", r,
             a.alias, a.scale);
      distinct.insert(a.alias);
    }
  }
  if (distinct.size() > contract_.cache_entries)
    fail(ErrorCode::kInvalidArgument, what,
         "the batch activates {} distinct adapters but adapters.cache.max_entries is {}", distinct.size(),
         contract_.cache_entries);
}

std::shared_ptr<const LoadedLora> LoraCache::acquire(const LoraArtifact& artifact) {
  for (auto it = lru_.begin(); it != lru_.end(); ++it)
    if (it->first == artifact.alias) {
      ++stats_.cache_hits;
      lru_.splice(lru_.end(), lru_, it);  // now the most recently used
      return lru_.back().second;
    }
  auto loaded = std::make_shared<const LoadedLora>(load_lora(contract_, artifact));
  if (lru_.size() >= contract_.cache_entries) {
    lru_.pop_front();
    ++stats_.evictions;
    if (contract_.invalidate_capture_on_eviction) {
      ++stats_.capture_invalidations;
      plans_.clear();
    }
  }
  ++stats_.loads;
  if (!ever_loaded_.insert(artifact.alias).second) ++stats_.reloads;
  lru_.emplace_back(artifact.alias, loaded);
  return loaded;
}

PreparedRows LoraCache::prepare(const LoraRows& rows, const std::vector<bool>& active, const std::string& what) {
  check_rows(rows, active, what);
  std::lock_guard lock(mutex_);
  PreparedRows out(rows.size());
  std::string plan = contract_.capability;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    plan += r ? ";[" : "|[";
    if (!active[r]) {
      plan += "]";
      continue;
    }
    for (std::size_t s = 0; s < rows[r].size(); ++s) {
      const auto& a = rows[r][s];
      out[r].push_back({acquire(*contract_.by_alias(a.alias)), a.scale});
      plan += fmt::format("{}{}:{:.8f}", s ? "," : "", a.alias, a.scale);
    }
    plan += "]";
  }
  if (!plans_.insert(plan).second) ++stats_.replayed_plans;
  stats_.plan_variants = plans_.size();
  return out;
}

LoraLifecycle LoraCache::lifecycle() const {
  std::lock_guard lock(mutex_);
  LoraLifecycle out = stats_;
  for (const auto& [alias, _] : lru_) out.cached.push_back(alias);
  return out;
}

}  // namespace ogai::workflow
