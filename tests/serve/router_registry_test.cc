// The router's registry (src/serve/router/): the LRU eviction rule, on-demand loads with waiting
// requests, the bounded wait, failed loads, leases that pin a model, load/unload, stop. Loads run
// on a manual executor, so each test decides when a load happens.
#include <gtest/gtest.h>

#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <stdexcept>

#include "serve/router/eviction_policy.h"
#include "serve/router/model_loader.h"
#include "serve/router/model_registry.h"

namespace ogai::serve::router {
namespace {

TEST(EvictionPolicy, FitsWithoutEvictingWhenUnderTheLimits) {
  const Room room = make_room({{"a", 10, 1, 0}}, 10, {2, 100});
  EXPECT_TRUE(room.fits);
  EXPECT_TRUE(room.evict.empty());
}

TEST(EvictionPolicy, EvictsTheLeastRecentlyUsedIdleModelFirst) {
  const Room room = make_room({{"new", 1, 9, 0}, {"old", 1, 2, 0}, {"mid", 1, 5, 0}}, 1, {2, 0});
  EXPECT_TRUE(room.fits);
  EXPECT_EQ(room.evict, (std::vector<std::string>{"old", "mid"}));
}

TEST(EvictionPolicy, NeverEvictsAModelWithRequestsInFlight) {
  Room room = make_room({{"old", 1, 1, 2}, {"new", 1, 5, 0}}, 1, {2, 0});
  EXPECT_TRUE(room.fits);
  EXPECT_EQ(room.evict, std::vector<std::string>{"new"});
  room = make_room({{"a", 1, 1, 1}, {"b", 1, 2, 1}}, 1, {2, 0});
  EXPECT_FALSE(room.fits);
  EXPECT_TRUE(room.evict.empty());
}

TEST(EvictionPolicy, MemoryBudgetEvictsUntilTheBytesFit) {
  const Room room = make_room({{"a", 60, 1, 0}, {"b", 30, 2, 0}, {"c", 5, 3, 0}}, 40, {0, 100});
  EXPECT_TRUE(room.fits);
  EXPECT_EQ(room.evict, std::vector<std::string>{"a"});  // 30 + 5 + 40 <= 100
  EXPECT_FALSE(make_room({}, 101, {0, 100}).fits);       // larger than the budget alone
}

struct FakeModel : Served {
  explicit FakeModel(int* alive) : alive(alive) { ++*alive; }
  ~FakeModel() override { --*alive; }
  int* alive;
};

struct Harness {
  std::deque<std::function<void()>> jobs;
  std::vector<std::string> loads;  // ids, in load order
  std::set<std::string> broken;
  int alive = 0;
  std::unique_ptr<ModelRegistry> registry;

  explicit Harness(RegistryOptions options = {}, std::vector<ModelSpec> models = {{"a", "/a", 10}, {"b", "/b", 10},
                                                                                   {"c", "/c", 10}}) {
    registry = std::make_unique<ModelRegistry>(
        std::move(models), options,
        [this](const ModelSpec& spec) -> std::shared_ptr<Served> {
          loads.push_back(spec.id);
          if (broken.count(spec.id) != 0) throw std::runtime_error("bad graph in " + spec.package.string());
          return std::make_shared<FakeModel>(&alive);
        },
        [this](std::function<void()> job) { jobs.push_back(std::move(job)); });
  }
  void run_jobs() {
    while (!jobs.empty()) {
      auto job = std::move(jobs.front());
      jobs.pop_front();
      job();
    }
  }
  // acquire() whose grant lands in `out`.
  void acquire(const std::string& id, std::vector<Grant>& out) {
    registry->acquire(id, [&out](Grant g) { out.push_back(std::move(g)); });
  }
  ModelState state(const std::string& id) const {
    for (const ModelStatus& s : registry->list())
      if (s.spec.id == id) return s.state;
    return ModelState::kNotLoaded;
  }
};

TEST(ModelRegistry, LoadsOnDemandAndRequestsWaitForTheLoad) {
  Harness h;
  std::vector<Grant> grants;
  h.acquire("a", grants);
  h.acquire("a", grants);
  EXPECT_TRUE(grants.empty());
  EXPECT_EQ(h.state("a"), ModelState::kLoading);
  EXPECT_TRUE(h.registry->loading());
  h.run_jobs();
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_NE(grants[0].lease, nullptr);
  EXPECT_NE(grants[1].lease, nullptr);
  EXPECT_EQ(h.loads, std::vector<std::string>{"a"});  // one load for both
  EXPECT_EQ(h.state("a"), ModelState::kLoaded);
  h.acquire("a", grants);  // loaded: granted at once
  ASSERT_EQ(grants.size(), 3u);
  EXPECT_EQ(h.registry->list()[0].in_flight, 3);
}

TEST(ModelRegistry, UnknownIdIs404) {
  Harness h;
  std::vector<Grant> grants;
  h.acquire("zzz", grants);
  ASSERT_EQ(grants.size(), 1u);
  ASSERT_TRUE(grants[0].refusal);
  EXPECT_EQ(grants[0].refusal->status, 404);
  EXPECT_NE(grants[0].refusal->message.find("zzz"), std::string::npos);
}

TEST(ModelRegistry, WaitingRequestsAreBounded) {
  RegistryOptions o;
  o.max_waiting = 2;
  Harness h(o);
  std::vector<Grant> grants;
  for (int i = 0; i < 3; ++i) h.acquire("a", grants);
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0].refusal->status, 429);
  EXPECT_EQ(grants[0].refusal->code, "model_queue_full");
  h.run_jobs();
  EXPECT_EQ(grants.size(), 3u);
}

TEST(ModelRegistry, AFailedLoadAnswersItsRequestsWithTheErrorAndLeavesOthersServing) {
  Harness h;
  h.broken.insert("b");
  std::vector<Grant> grants;
  h.acquire("b", grants);
  h.acquire("a", grants);
  h.run_jobs();
  ASSERT_EQ(grants.size(), 2u);
  ASSERT_TRUE(grants[0].refusal);
  EXPECT_EQ(grants[0].refusal->status, 500);
  EXPECT_EQ(grants[0].refusal->code, "model_load_failed");
  EXPECT_NE(grants[0].refusal->message.find("model 'b' failed to load: bad graph in /b"), std::string::npos);
  EXPECT_NE(grants[1].lease, nullptr);
  EXPECT_EQ(h.state("b"), ModelState::kFailed);
  EXPECT_EQ(h.registry->list()[1].error, "bad graph in /b");
  h.acquire("b", grants);  // the error, without loading again
  EXPECT_EQ(grants.back().refusal->code, "model_load_failed");
  EXPECT_EQ(h.loads, (std::vector<std::string>{"b", "a"}));
  h.broken.clear();  // fixed: load() tries again
  h.registry->load("b", [&grants](Grant g) { grants.push_back(std::move(g)); });
  h.run_jobs();
  EXPECT_NE(grants.back().lease, nullptr);
  EXPECT_EQ(h.state("b"), ModelState::kLoaded);
}

TEST(ModelRegistry, MaxLoadedEvictsTheLeastRecentlyUsedIdleModel) {
  RegistryOptions o;
  o.limits.max_loaded = 2;
  Harness h(o);
  std::vector<Grant> grants;
  h.acquire("a", grants);
  h.run_jobs();
  h.acquire("b", grants);
  h.run_jobs();
  grants.clear();  // both idle now; a used before b
  h.acquire("c", grants);
  h.run_jobs();
  EXPECT_EQ(h.state("a"), ModelState::kNotLoaded);
  EXPECT_EQ(h.state("b"), ModelState::kLoaded);
  EXPECT_EQ(h.state("c"), ModelState::kLoaded);
  EXPECT_EQ(h.alive, 2);
}

TEST(ModelRegistry, ALeaseKeepsItsModelLoadedAndALoadWaitsForRoom) {
  RegistryOptions o;
  o.limits.max_loaded = 1;
  Harness h(o);
  std::vector<Grant> held;
  h.acquire("a", held);
  h.run_jobs();
  std::vector<Grant> for_b, for_a;
  h.acquire("b", for_b);
  h.run_jobs();
  EXPECT_TRUE(for_b.empty());  // waits: a is busy
  EXPECT_EQ(h.state("a"), ModelState::kLoaded);
  EXPECT_EQ(h.state("b"), ModelState::kLoading);
  EXPECT_EQ(h.registry->unload("a")->code, "model_busy");
  h.acquire("a", for_a);  // a is marked to go: a new request for it waits too
  EXPECT_TRUE(for_a.empty());
  held.clear();  // a's request ended: b's load goes on, a is unloaded
  h.run_jobs();
  ASSERT_EQ(for_b.size(), 1u);
  EXPECT_NE(for_b[0].lease, nullptr);
  EXPECT_EQ(h.state("b"), ModelState::kLoaded);
  EXPECT_EQ(h.state("a"), ModelState::kLoading);  // to serve the request that waited for it
  EXPECT_TRUE(for_a.empty());
  for_b.clear();  // b idle: a comes back
  h.run_jobs();
  ASSERT_EQ(for_a.size(), 1u);
  EXPECT_NE(for_a[0].lease, nullptr);
  EXPECT_EQ(h.state("a"), ModelState::kLoaded);
  EXPECT_EQ(h.state("b"), ModelState::kNotLoaded);
  EXPECT_EQ(h.loads, (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_EQ(h.alive, 1);
}

TEST(ModelRegistry, AModelMarkedForAWaitingLoadServesAgainWhenTheRoomIsFoundElsewhere) {
  RegistryOptions o;
  o.limits.memory_bytes = 25;
  Harness h(o, {{"a", "/a", 10}, {"b", "/b", 10}, {"c", "/c", 10}});
  std::vector<Grant> held_a, held_b, for_c, for_a;
  h.acquire("a", held_a);
  h.run_jobs();
  h.acquire("b", held_b);
  h.run_jobs();
  h.acquire("c", for_c);  // needs one of a, b gone; both busy: waits, a (least recent) marked
  h.run_jobs();
  h.acquire("a", for_a);
  EXPECT_TRUE(for_a.empty());
  held_b.clear();  // b goes idle first: c's load evicts b instead
  h.run_jobs();
  ASSERT_EQ(for_c.size(), 1u);
  EXPECT_NE(for_c[0].lease, nullptr);
  ASSERT_EQ(for_a.size(), 1u);  // a was not evicted after all: its waiting request is granted
  EXPECT_NE(for_a[0].lease, nullptr);
  EXPECT_EQ(h.state("b"), ModelState::kNotLoaded);
}

TEST(ModelRegistry, MemoryBudgetCountsBytesAndRefusesAModelLargerThanIt) {
  RegistryOptions o;
  o.limits.memory_bytes = 25;
  Harness h(o, {{"a", "/a", 10}, {"b", "/b", 10}, {"big", "/big", 30}});
  std::vector<Grant> grants;
  h.acquire("a", grants);
  h.acquire("b", grants);
  h.run_jobs();
  grants.clear();
  EXPECT_EQ(h.state("a"), ModelState::kLoaded);
  EXPECT_EQ(h.state("b"), ModelState::kLoaded);
  h.acquire("big", grants);
  h.run_jobs();
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0].refusal->code, "model_load_failed");
  EXPECT_NE(grants[0].refusal->message.find("--models-memory-mb"), std::string::npos);
  EXPECT_EQ(h.state("a"), ModelState::kLoaded);  // nothing evicted for a model that never fits
  EXPECT_EQ(h.loads, (std::vector<std::string>{"a", "b"}));
}

TEST(ModelRegistry, UnloadFreesAnIdleModelOnTheExecutor) {
  Harness h;
  std::vector<Grant> grants;
  h.acquire("a", grants);
  h.run_jobs();
  grants.clear();
  EXPECT_FALSE(h.registry->unload("a"));
  EXPECT_EQ(h.state("a"), ModelState::kNotLoaded);
  EXPECT_EQ(h.alive, 1);  // destroyed by the executor, not the caller
  h.run_jobs();
  EXPECT_EQ(h.alive, 0);
  EXPECT_EQ(h.registry->unload("nope")->status, 404);
  h.acquire("a", grants);
  EXPECT_EQ(h.registry->unload("a")->code, "model_loading");
}

TEST(ModelRegistry, ASnapshotHandsItsReferencesToTheExecutor) {
  Harness h;
  std::vector<Grant> grants;
  h.acquire("a", grants);
  h.run_jobs();
  grants.clear();
  {
    const LoadedModels view = h.registry->loaded();
    ASSERT_EQ(view.size(), 1u);
    EXPECT_EQ(view.begin()->first, "a");
    EXPECT_FALSE(h.registry->unload("a"));
    h.run_jobs();
    EXPECT_EQ(h.alive, 1);  // the snapshot still holds it
  }
  EXPECT_EQ(h.alive, 1);  // not destroyed on this thread...
  h.run_jobs();
  EXPECT_EQ(h.alive, 0);  // ...but on the executor
  EXPECT_EQ(h.registry->loaded().size(), 0u);
}

TEST(ModelRegistry, StopAnswersWaitingRequestsAndRefusesLaterOnes) {
  Harness h;
  std::vector<Grant> grants;
  h.acquire("a", grants);
  h.registry->stop();
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0].refusal->status, 503);
  h.run_jobs();  // the queued load does nothing
  EXPECT_EQ(h.loads.size(), 0u);
  h.acquire("b", grants);
  EXPECT_EQ(grants.back().refusal->code, "shutting_down");
}

TEST(ModelRegistry, DuplicateIdsAreRefused) {
  EXPECT_THROW(Harness({}, {{"a", "/x/a", 1}, {"a", "/y/a", 1}}), std::exception);
}

TEST(ModelLoader, RunsJobsInOrderOnItsThread) {
  std::vector<int> order;
  std::thread::id caller = std::this_thread::get_id(), ran;
  {
    ModelLoader loader;
    for (int i = 0; i < 5; ++i) loader.post([&, i] { order.push_back(i); ran = std::this_thread::get_id(); });
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_NE(ran, caller);
}

TEST(PackageBytes, SumsTheFilesUnderAFolder) {
  const auto dir = std::filesystem::temp_directory_path() / ("ogai_pkg_bytes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "a.bin") << std::string(100, 'x');
  std::ofstream(dir / "sub" / "b.bin") << std::string(23, 'y');
  EXPECT_EQ(package_bytes(dir), 123u);
  EXPECT_EQ(package_bytes(dir / "a.bin"), 100u);
  EXPECT_EQ(package_bytes(dir / "missing"), 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ogai::serve::router
