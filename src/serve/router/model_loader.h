// ModelLoader: the one thread on which the router loads and unloads models (the registry's
// Executor, router/model_registry.h), so that a load never blocks an I/O or route thread and
// loads never race for memory: jobs run one at a time, in the order posted. Also how a model's
// size is measured for the memory budget (package_bytes).
//
// Thread-safe. The destructor runs the jobs already posted (a load after ModelRegistry::stop()
// returns at once), then joins the thread; posting after that is ignored.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

namespace ogai::serve::router {

class ModelLoader {
 public:
  ModelLoader();
  ~ModelLoader();
  ModelLoader(const ModelLoader&) = delete;
  ModelLoader& operator=(const ModelLoader&) = delete;

  void post(std::function<void()> job);

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool closing_ = false;
  std::thread thread_;  // last: started once the members above exist
};

// A package's size as the memory budget counts it: the sum of the regular files' sizes under
// `package` (a folder; a file counts itself), symbolic links followed, at most `max_entries`
// entries visited (then the sum so far). Unreadable entries count 0. Never throws.
std::size_t package_bytes(const std::filesystem::path& package, std::size_t max_entries = 100000);

}  // namespace ogai::serve::router
