#include "serve/router/model_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.h"
#include "base/log.h"

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
  std::lock_guard lock(mutex_);
  Entry& e = entries_.at(id);
  --e.in_flight;
  e.last_used = ++clock_;
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
  if (e.state == ModelState::kLoaded || e.state == ModelState::kFailed) {
    Grant g = e.state == ModelState::kLoaded ? grant_locked(e) : refused(failed_refusal(e));
    lock.unlock();
    return done(std::move(g));
  }
  if (e.waiters.size() >= options_.max_waiting) {
    lock.unlock();
    return done(refused(refusal(429, "model_queue_full",
                                fmt::format("model '{}' is loading and {} requests wait for it already; retry later",
                                            id, options_.max_waiting))));
  }
  e.waiters.push_back(std::move(done));
  if (e.state == ModelState::kLoading) return;
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

bool ModelRegistry::make_room_locked(Entry& e, std::vector<std::shared_ptr<Served>>& evicted, Answers& answers) {
  std::vector<Resident> residents;
  for (auto& [id, other] : entries_)
    if (other.state == ModelState::kLoaded) residents.push_back({id, other.spec.bytes, other.last_used, other.in_flight});
  const Room room = make_room(std::move(residents), e.spec.bytes, options_.limits);
  if (room.fits) {
    for (const std::string& victim : room.evict) {
      Entry& v = entries_.at(victim);
      log(LogLevel::kInfo, "serve: unloading model '{}' (least recently used) to load '{}'", victim, e.spec.id);
      evicted.push_back(std::move(v.unit));
      v.state = ModelState::kNotLoaded;
    }
    return true;
  }
  Refusal r;
  if (options_.limits.memory_bytes != 0 && e.spec.bytes > options_.limits.memory_bytes) {
    e.state = ModelState::kFailed;
    e.error = fmt::format("its files take {}, more than the memory budget ({}, --models-memory-mb)", mib(e.spec.bytes),
                          mib(options_.limits.memory_bytes));
    r = failed_refusal(e);
  } else {
    e.state = ModelState::kNotLoaded;
    r = refusal(503, "model_capacity",
                fmt::format("model '{}' cannot be loaded now: the loaded models fill --models-max / "
                            "--models-memory-mb and each has requests in flight; retry later",
                            e.spec.id));
  }
  for (GrantFn& w : e.waiters) answers.emplace_back(std::move(w), refused(r));
  e.waiters.clear();
  return false;
}

void ModelRegistry::run_load(const std::string& id) {
  std::vector<std::shared_ptr<Served>> evicted;
  Answers answers;
  ModelSpec spec;
  {
    std::lock_guard lock(mutex_);
    Entry& e = entries_.at(id);
    if (stopped_ || e.state != ModelState::kLoading || !make_room_locked(e, evicted, answers)) {
      if (e.state == ModelState::kLoading) e.state = ModelState::kNotLoaded;
      --loads_pending_;
    } else {
      spec = e.spec;
    }
  }
  evicted.clear();  // unloads them here, outside the lock
  if (!answers.empty() || spec.id.empty()) return answer(answers);
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
    if (e.state == ModelState::kLoaded && e.in_flight > 0)
      return refusal(409, "model_busy",
                     fmt::format("model '{}' has {} requests in flight; unload it once they end", id, e.in_flight));
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
