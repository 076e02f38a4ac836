// ModelRegistry: the models one router serves (router/router.h), each under its id, and the state
// of each: not loaded, loading, loaded, or failed with its load error. Requests ask for a model by
// id and get a Lease on it; a model that is not loaded is loaded on demand (by the injected LoadFn,
// on the injected Executor: never on the caller's thread), and the requests that arrive while it
// loads wait, at most `max_waiting` per model (one more: 429). Before a load, the least recently
// used idle models are unloaded to stay within the ResidencyLimits (eviction_policy.h); a model
// holding a Lease is never unloaded. When busy models hold the room, the load waits: the models
// it must evict (least recently used first) take no new request (those wait, bounded the same
// way, and are served after it, by that model loaded again), and the load is retried each time a
// model goes idle, so requests alternate between models instead of being refused. A model that fails to load keeps its error (every request for
// it gets the error; it is not retried per request) until POST /models/load or /models/unload.
//
// What it does not do: HTTP, parsing, or what a loaded model is (Served is opaque here: the router's
// ModelUnit). Ownership: the registry owns the loaded models; it must outlive every Lease. The
// Executor must run jobs one at a time, in order (router/model_loader.h). Thread-safe; callbacks
// (GrantFn) run without the registry's lock held, on the caller's thread or the Executor's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "serve/router/eviction_policy.h"

namespace ogai::serve::router {

// A loaded model as the registry holds it (destroying it unloads it).
class Served {
 public:
  virtual ~Served() = default;
};

struct ModelSpec {
  std::string id;                  // what requests send as "model"
  std::filesystem::path package;   // the folder it loads from
  std::size_t bytes = 0;           // its measured size (model_loader.h: package_bytes)
};

enum class ModelState { kNotLoaded, kLoading, kLoaded, kFailed };
const char* state_name(ModelState state);  // "not_loaded", "loading", "loaded", "failed"

struct ModelStatus {
  ModelSpec spec;
  ModelState state = ModelState::kNotLoaded;
  std::string error;  // the load error, when failed
  int in_flight = 0;  // requests holding a Lease
  int waiting = 0;    // requests waiting for its load
};

// Why a request gets no model: an HTTP status, a machine-readable code and a message naming the model.
struct Refusal {
  int status = 500;
  std::string code;
  std::string message;
};

class ModelRegistry;

// A request's hold on a loaded model: while it lives the model stays loaded. Release it (drop the
// last reference) when the request's answer is complete.
class Lease {
 public:
  Lease(ModelRegistry& registry, std::string id, Served& model) : registry_(registry), id_(std::move(id)), model_(model) {}
  ~Lease();
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  const std::string& id() const { return id_; }
  Served& model() const { return model_; }

 private:
  ModelRegistry& registry_;
  std::string id_;
  Served& model_;
};

// The answer to acquire() / load(): a lease, or a refusal (exactly one is set).
struct Grant {
  std::shared_ptr<Lease> lease;
  std::optional<Refusal> refusal;
};
using GrantFn = std::function<void(Grant)>;

// A snapshot of the loaded models, for reading (metrics, states, stored responses, drain). When it
// goes, its references are handed to the Executor, so that a model evicted meanwhile is destroyed
// (its threads joined) there, never on the reader's thread. Move-only.
class LoadedModels {
 public:
  using Item = std::pair<std::string, std::shared_ptr<Served>>;
  using Executor = std::function<void(std::function<void()>)>;
  LoadedModels(std::vector<Item> items, Executor executor) : items_(std::move(items)), executor_(std::move(executor)) {}
  ~LoadedModels();
  LoadedModels(LoadedModels&&) = default;
  LoadedModels& operator=(LoadedModels&&) = delete;
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  std::size_t size() const { return items_.size(); }

 private:
  std::vector<Item> items_;
  Executor executor_;
};

struct RegistryOptions {
  ResidencyLimits limits;
  std::size_t max_waiting = 64;  // requests waiting for one model's load; one more -> 429
};

class ModelRegistry {
 public:
  // Loads a model; throws (std::exception) with the reason when it cannot.
  using LoadFn = std::function<std::shared_ptr<Served>(const ModelSpec&)>;
  // Runs a job off the caller's thread, one at a time, in the order given.
  using Executor = std::function<void(std::function<void()>)>;

  // Ids must be unique and non-empty (else ogai::Error kInvalidArgument naming the id).
  ModelRegistry(std::vector<ModelSpec> models, RegistryOptions options, LoadFn load, Executor executor);
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;

  // A lease on `id`, loading it first when needed (waiting for room). Refusals: 404
  // model_not_found (unknown id), 500 model_load_failed (its load failed: the error; or a model
  // larger than the memory budget), 429 model_queue_full, 503 shutting_down (after stop()).
  // With `may_load` false, a model that is not loaded is refused 503 shutting_down instead (a drain).
  void acquire(const std::string& id, GrantFn done, bool may_load = true);
  // acquire(), but a failed model is loaded again (its error is forgotten first).
  void load(const std::string& id, GrantFn done);
  // Unloads `id` (on the Executor) when it is idle; a failed one forgets its error. nullopt when done
  // or nothing to do; 404 model_not_found, 409 model_busy (leases held or requests waiting) or 409
  // model_loading.
  std::optional<Refusal> unload(const std::string& id);

  std::vector<ModelStatus> list() const;  // in the order the models were given
  std::size_t size() const { return order_.size(); }
  const std::vector<std::string>& ids() const { return order_; }
  // The loaded models, in the order given.
  LoadedModels loaded() const;
  bool loading() const;  // a load is running or queued

  // Refuses every later acquire() with 503 and answers the waiting ones so; idempotent.
  void stop();
  // After stop(): the loaded models, taken out (the caller destroys them).
  std::vector<std::shared_ptr<Served>> take_all();

 private:
  friend class Lease;
  struct Entry {
    ModelSpec spec;
    ModelState state = ModelState::kNotLoaded;
    std::string error;
    std::shared_ptr<Served> unit;
    std::uint64_t last_used = 0;
    int in_flight = 0;
    std::vector<GrantFn> waiters;  // for its load, or (loaded, evicting) for its reload
    bool evicting = false;  // loaded, marked to go for a waiting load: takes no new request
    bool blocked = false;   // loading, waiting for room held by busy models
  };
  using Answers = std::vector<std::pair<GrantFn, Grant>>;
  struct Eviction {
    std::vector<std::shared_ptr<Served>> evicted;  // destroyed outside the lock
    std::vector<std::string> reload;               // evicted with requests waiting: load again
    Answers answers;
  };
  enum class RoomOutcome { kRoom, kBlocked, kRefused };

  void release(const std::string& id);
  Grant grant_locked(Entry& e);
  Refusal failed_refusal(const Entry& e) const;
  void run_load(const std::string& id);
  // Under the lock: the room a load of `e` needs, evicting idle models into `out`; kBlocked when
  // busy models hold it (they are marked evicting, the load retried when a lease is released).
  RoomOutcome make_room_locked(Entry& e, Eviction& out);
  void settle_evicting_locked(Answers& answers, const std::set<std::string>& keep = {});
  std::vector<Resident> residents_locked(bool as_idle) const;
  void finish_load(const std::string& id, std::shared_ptr<Served> unit, const std::string& error);
  static void answer(Answers& answers);

  const RegistryOptions options_;
  const LoadFn load_;
  const Executor executor_;
  std::vector<std::string> order_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::uint64_t clock_ = 0;  // last_used ticks
  int loads_pending_ = 0;
  bool stopped_ = false;
};

}  // namespace ogai::serve::router
