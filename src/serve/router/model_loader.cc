#include "serve/router/model_loader.h"

#include "base/log.h"

namespace ogai::serve::router {

ModelLoader::ModelLoader() : thread_([this] { loop(); }) {}

ModelLoader::~ModelLoader() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ModelLoader::post(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void ModelLoader::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return closing_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // closing, nothing left
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    try {
      job();
    } catch (const std::exception& e) {
      log(LogLevel::kError, "serve: a model load or unload failed: {}", e.what());
    } catch (...) {
      log(LogLevel::kError, "serve: a model load or unload failed");
    }
  }
}

std::size_t package_bytes(const std::filesystem::path& package, std::size_t max_entries) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(package, ec)) return static_cast<std::size_t>(fs::file_size(package, ec));
  std::size_t total = 0;
  std::size_t seen = 0;
  fs::recursive_directory_iterator it(package, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator() && seen < max_entries; it.increment(ec), ++seen) {
    std::error_code size_ec;
    if (!it->is_regular_file(size_ec)) continue;
    const auto size = it->file_size(size_ec);
    if (!size_ec) total += static_cast<std::size_t>(size);
  }
  return total;
}

}  // namespace ogai::serve::router
