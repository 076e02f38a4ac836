#include "serve/router/model_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.h"
#include "base/log.h"

#include <set>

namespace ogai::serve::router {
namespace {

Refusal refusal(int status, std::string code, std::string message) {
  return Refusal{status, std::move(code), std::move(message)};
}

Grant refused(Refusal r) {
  Grant g;
  g.refusal = std::move(r);
  return g;
}

std::string mib(std::size_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

}  // namespace

const char* state_name(ModelState state) {
  switch (state) {
    case ModelState::kLoading: return "loading";
    case ModelState::kLoaded: return "loaded";
    case ModelState::kFailed: return "failed";
    default: return "not_loaded";
  }
}

Lease::~Lease() { registry_.release(id_); }

ModelRegistry::ModelRegistry(std::vector<ModelSpec> models, RegistryOptions options, LoadFn load, Executor executor)
    : options_(options), load_(std::move(load)), executor_(std::move(executor)) {
  for (ModelSpec& spec : models) {
    if (spec.id.empty()) fail(ErrorCode::kInvalidArgument, spec.package.string(), "a served model needs a non-empty id");
    if (entries_.count(spec.id) != 0)
      fail(ErrorCode::kInvalidArgument, spec.package.string(),
           "model id '{}' is served twice (ids are the folder names: rename one folder)", spec.id);
    order_.push_back(spec.id);
    Entry& e = entries_[spec.id];
    e.spec = std::move(spec);
  }
}

Grant ModelRegistry::grant_locked(Entry& e) {
  ++e.in_flight;
  e.last_used = ++clock_;
  Grant g;
  g.lease = std::make_shared<Lease>(*this, e.spec.id, *e.unit);
  return g;
}

Refusal ModelRegistry::failed_refusal(const Entry& e) const {
  return refusal(500, "model_load_failed", fmt::format("model '{}' failed to load: {}", e.spec.id, e.error));
}

void ModelRegistry::release(const std::string& id) {
  std::vector<std::string> retry;  // loads waiting for room: a model just went idle
  {
    std::lock_guard lock(mutex_);
    Entry& e = entries_.at(id);
    --e.in_flight;
    e.last_used = ++clock_;
    if (e.in_flight > 0 || stopped_) return;
    for (auto& [other_id, other] : entries_)
      if (other.blocked) {
        other.blocked = false;
        retry.push_back(other_id);
      }
  }
  for (const std::string& again : retry) executor_([this, again] { run_load(again); });
}

void ModelRegistry::acquire(const std::string& id, GrantFn done, bool may_load) {
  std::unique_lock lock(mutex_);
  const auto it = entries_.find(id);
  if (it == entries_.end()) {
    lock.unlock();
    return done(refused(refusal(404, "model_not_found", fmt::format("model '{}' is not served here; it serves {}", id,
                                                                    fmt::join(order_, ", ")))));
  }
  Entry& e = it->second;
  if (stopped_ || (!may_load && e.state != ModelState::kLoaded)) {
    lock.unlock();
    return done(refused(refusal(503, "shutting_down",
                                stopped_ ? "the server is shutting down"
                                         : fmt::format("the server is draining; model '{}' is not loaded", id))));
  }
  if ((e.state == ModelState::kLoaded && !e.evicting) || e.state == ModelState::kFailed) {
    Grant g = e.state == ModelState::kLoaded ? grant_locked(e) : refused(failed_refusal(e));
    lock.unlock();
    return done(std::move(g));
  }
  if (e.waiters.size() >= options_.max_waiting) {
    lock.unlock();
    return done(refused(refusal(429, "model_queue_full",
                                fmt::format("model '{}' is not ready (loading, or making room) and {} requests wait for "
                                            "it already; retry later",
                                            id, options_.max_waiting))));
  }
  e.waiters.push_back(std::move(done));
  if (e.state != ModelState::kNotLoaded) return;  // loading, or loaded and marked for eviction
  e.state = ModelState::kLoading;
  ++loads_pending_;
  lock.unlock();
  executor_([this, id] { run_load(id); });
}

void ModelRegistry::load(const std::string& id, GrantFn done) {
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(id);
    if (it != entries_.end() && it->second.state == ModelState::kFailed) {
      it->second.state = ModelState::kNotLoaded;
      it->second.error.clear();
    }
  }
  acquire(id, std::move(done));
}

// Loaded models marked for eviction by a load that was waiting for them, and not evicted after
// all (but those in `keep`): they serve again, their waiting requests granted.
void ModelRegistry::settle_evicting_locked(Answers& answers, const std::set<std::string>& keep) {
  for (auto& [id, other] : entries_) {
    if (!other.evicting || keep.count(id) != 0) continue;
    other.evicting = false;
    if (other.state != ModelState::kLoaded) continue;
    for (GrantFn& w : other.waiters) answers.emplace_back(std::move(w), grant_locked(other));
    other.waiters.clear();
  }
}

std::vector<Resident> ModelRegistry::residents_locked(bool as_idle) const {
  std::vector<Resident> residents;
  for (const auto& [id, other] : entries_)
    if (other.state == ModelState::kLoaded)
      residents.push_back({id, other.spec.bytes, other.last_used, as_idle ? 0 : other.in_flight});
  return residents;
}

ModelRegistry::RoomOutcome ModelRegistry::make_room_locked(Entry& e, Eviction& out) {
  const Room room = make_room(residents_locked(false), e.spec.bytes, options_.limits);
  if (room.fits) {
    for (const std::string& victim : room.evict) {
      Entry& v = entries_.at(victim);
      log(LogLevel::kInfo, "serve: unloading model '{}' (least recently used) to load '{}'", victim, e.spec.id);
      out.evicted.push_back(std::move(v.unit));
      v.evicting = false;
      v.state = v.waiters.empty() ? ModelState::kNotLoaded : ModelState::kLoading;
      if (!v.waiters.empty()) {  // requests came for it while it was marked: load it again after this one
        ++loads_pending_;
        out.reload.push_back(victim);
      }
    }
    settle_evicting_locked(out.answers);
    return RoomOutcome::kRoom;
  }
  if (options_.limits.memory_bytes != 0 && e.spec.bytes > options_.limits.memory_bytes) {
    e.state = ModelState::kFailed;
    e.error = fmt::format("its files take {}, more than the memory budget ({}, --models-memory-mb)", mib(e.spec.bytes),
                          mib(options_.limits.memory_bytes));
    for (GrantFn& w : e.waiters) out.answers.emplace_back(std::move(w), refused(failed_refusal(e)));
    e.waiters.clear();
    return RoomOutcome::kRefused;
  }
  // The room is held by models with requests in flight: mark those that must go (least recently
  // used first, as if idle); they take no new request until evicted, and the load waits.
  const std::vector<std::string> victims = make_room(residents_locked(true), e.spec.bytes, options_.limits).evict;
  settle_evicting_locked(out.answers, std::set<std::string>(victims.begin(), victims.end()));  // an earlier try's
  for (const std::string& victim : victims) entries_.at(victim).evicting = true;
  e.blocked = true;
  return RoomOutcome::kBlocked;
}

void ModelRegistry::run_load(const std::string& id) {
  Eviction eviction;
  ModelSpec spec;
  {
    std::lock_guard lock(mutex_);
    Entry& e = entries_.at(id);
    e.blocked = false;
    if (stopped_ || e.state != ModelState::kLoading) {
      if (e.state == ModelState::kLoading) e.state = ModelState::kNotLoaded;
      --loads_pending_;
    } else if (const RoomOutcome o = make_room_locked(e, eviction); o == RoomOutcome::kRoom) {
      spec = e.spec;
    } else if (o == RoomOutcome::kRefused) {
      --loads_pending_;
    }
  }
  eviction.evicted.clear();  // unloads them here, outside the lock
  for (const std::string& again : eviction.reload) executor_([this, again] { run_load(again); });
  answer(eviction.answers);
  if (spec.id.empty()) return;
  std::shared_ptr<Served> unit;
  std::string error;
  log(LogLevel::kInfo, "serve: loading model '{}' from {}", spec.id, spec.package.string());
  try {
    unit = load_(spec);
    if (unit == nullptr) error = "the loader returned nothing";
  } catch (const std::exception& ex) {
    error = ex.what();
  } catch (...) {
    error = "unknown error";
  }
  finish_load(id, std::move(unit), error);
}

void ModelRegistry::finish_load(const std::string& id, std::shared_ptr<Served> unit, const std::string& error) {
  Answers answers;
  std::shared_ptr<Served> unused;  // a load that finished after stop(): destroyed outside the lock
  {
    std::lock_guard lock(mutex_);
    Entry& e = entries_.at(id);
    --loads_pending_;
    if (stopped_) {
      e.state = ModelState::kNotLoaded;
      unused = std::move(unit);
    } else if (unit != nullptr) {
      log(LogLevel::kInfo, "serve: model '{}' loaded", id);
      e.state = ModelState::kLoaded;
      e.unit = std::move(unit);
      for (GrantFn& w : e.waiters) answers.emplace_back(std::move(w), grant_locked(e));
    } else {
      e.state = ModelState::kFailed;
      e.error = error;
      log(LogLevel::kError, "serve: model '{}' failed to load: {}", id, error);
      for (GrantFn& w : e.waiters) answers.emplace_back(std::move(w), refused(failed_refusal(e)));
    }
    e.waiters.clear();
  }
  answer(answers);
}

void ModelRegistry::answer(Answers& answers) {
  for (auto& [done, grant] : answers) done(std::move(grant));
  answers.clear();
}

std::optional<Refusal> ModelRegistry::unload(const std::string& id) {
  std::shared_ptr<Served> unit;
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(id);
    if (it == entries_.end()) return refusal(404, "model_not_found", fmt::format("model '{}' is not served here", id));
    Entry& e = it->second;
    if (e.state == ModelState::kLoading)
      return refusal(409, "model_loading", fmt::format("model '{}' is loading; unload it once it has loaded", id));
    if (e.state == ModelState::kLoaded && (e.in_flight > 0 || !e.waiters.empty()))
      return refusal(409, "model_busy",
                     fmt::format("model '{}' has {} requests in flight and {} waiting; unload it once they end", id,
                                 e.in_flight, e.waiters.size()));
    unit = std::move(e.unit);
    e.state = ModelState::kNotLoaded;
    e.error.clear();
  }
  if (unit != nullptr) {
    log(LogLevel::kInfo, "serve: unloading model '{}'", id);
    executor_([unit = std::move(unit)]() mutable { unit.reset(); });
  }
  return std::nullopt;
}

std::vector<ModelStatus> ModelRegistry::list() const {
  std::lock_guard lock(mutex_);
  std::vector<ModelStatus> out;
  for (const std::string& id : order_) {
    const Entry& e = entries_.at(id);
    out.push_back({e.spec, e.state, e.error, e.in_flight, static_cast<int>(e.waiters.size())});
  }
  return out;
}

LoadedModels::~LoadedModels() {
  if (items_.empty() || !executor_) return;
  executor_([items = std::move(items_)] {});  // the last reference may be one of these
}

LoadedModels ModelRegistry::loaded() const {
  std::lock_guard lock(mutex_);
  std::vector<LoadedModels::Item> out;
  for (const std::string& id : order_)
    if (const Entry& e = entries_.at(id); e.state == ModelState::kLoaded) out.emplace_back(id, e.unit);
  return LoadedModels(std::move(out), executor_);
}

bool ModelRegistry::loading() const {
  std::lock_guard lock(mutex_);
  return loads_pending_ > 0;
}

void ModelRegistry::stop() {
  Answers answers;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    for (auto& [id, e] : entries_) {
      for (GrantFn& w : e.waiters)
        answers.emplace_back(std::move(w), refused(refusal(503, "shutting_down", "the server is shutting down")));
      e.waiters.clear();
    }
  }
  answer(answers);
}

std::vector<std::shared_ptr<Served>> ModelRegistry::take_all() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Served>> out;
  for (auto& [id, e] : entries_)
    if (e.unit != nullptr) {
      out.push_back(std::move(e.unit));
      e.state = ModelState::kNotLoaded;
    }
  return out;
}

}  // namespace ogai::serve::router
