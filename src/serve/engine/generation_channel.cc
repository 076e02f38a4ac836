#include "serve/engine/generation_channel.h"

#include <utility>

namespace ogai::serve {

bool GenerationChannel::on_token(std::string_view text, const TokenLogprobs* logprobs) {
  std::function<void()> ready;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_) return false;
    if (logprobs) held_.push_back(*logprobs);
    if (!text.empty() && !held_.empty()) {
      reported_ += held_.size();
      if (keep_text_) released_.insert(released_.end(), held_.begin(), held_.end());
      held_.clear();
    }
    if (keep_text_) {
      text_.append(text);
      ++events_;
      ready = take_ready();
    }
  }
  if (keep_text_) changed_.notify_all();
  if (ready) ready();
  return true;
}

void GenerationChannel::complete(GenerationResult result) {
  std::function<void()> ready;
  {
    std::lock_guard lock(mutex_);
    result_ = std::move(result);
    ended_ = true;
    ready = take_ready();
  }
  changed_.notify_all();
  if (ready) ready();
}

void GenerationChannel::fail(ApiError error) {
  std::function<void()> ready;
  {
    std::lock_guard lock(mutex_);
    error_ = std::move(error);
    failed_ = true;
    ended_ = true;
    ready = take_ready();
  }
  changed_.notify_all();
  if (ready) ready();
}

GenerationChannel::Update GenerationChannel::take() {
  Update u;
  u.text = std::move(text_);
  text_.clear();
  u.logprobs = std::move(released_);
  released_.clear();
  u.events = events_;
  events_ = 0;
  if (ended_ && !taken_end_) {
    u.result = std::move(result_);
    u.error = std::move(error_);
    taken_end_ = true;
  }
  return u;
}

GenerationChannel::Update GenerationChannel::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return events_ > 0 || ended_; });
  return take();
}

GenerationChannel::Update GenerationChannel::wait_finished() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return ended_; });
  return take();
}

std::function<void()> GenerationChannel::take_ready() {
  if (!ready_ || !has_update()) return {};
  return std::exchange(ready_, nullptr);
}

void GenerationChannel::when_ready(std::function<void()> ready) {
  {
    std::lock_guard lock(mutex_);
    ready_ = std::move(ready);
    ready = take_ready();
  }
  if (ready) ready();
}

GenerationChannel::Update GenerationChannel::poll() {
  std::lock_guard lock(mutex_);
  return take();
}

void GenerationChannel::cancel() {
  std::lock_guard lock(mutex_);
  cancelled_ = true;
}

std::size_t GenerationChannel::reported_logprobs() const {
  std::lock_guard lock(mutex_);
  return reported_;
}

bool GenerationChannel::failed() const {
  std::lock_guard lock(mutex_);
  return failed_;
}

bool GenerationChannel::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

}  // namespace ogai::serve
