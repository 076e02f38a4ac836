#include "request_stream.h"

namespace ogai::python {

RequestStream::RequestStream(Engine& engine, const Prompt& prompt, const GenerationOptions& options)
    : pipe_(std::make_shared<Pipe>()) {
  auto on_token = [pipe = pipe_](const StreamEvent& event) {
    std::lock_guard lock(pipe->mutex);
    if (pipe->cancelled) return false;
    if (!event.text.empty()) {
      pipe->pieces.emplace_back(event.text);
      pipe->ready.notify_all();
    }
    return true;
  };
  auto on_done = [pipe = pipe_](GenerationHandle&) {
    std::lock_guard lock(pipe->mutex);
    pipe->ended = true;
    pipe->ready.notify_all();
  };
  if (const auto* text = std::get_if<std::string>(&prompt)) handle_ = engine.submit(*text, options, on_token, on_done);
  else handle_ = engine.submit(std::get<std::vector<std::int32_t>>(prompt), options, on_token, on_done);
}

RequestStream::~RequestStream() { close(); }

void RequestStream::take_end() {
  std::lock_guard lock(end_mutex_);
  if (taken_) return;
  taken_ = true;
  try {
    result_ = handle_->wait();  // at once: the generation has ended
  } catch (...) {
    error_ = std::current_exception();
  }
}

std::optional<std::string> RequestStream::next() {
  {
    std::unique_lock lock(pipe_->mutex);
    pipe_->ready.wait(lock, [this] { return !pipe_->pieces.empty() || pipe_->ended; });
    if (!pipe_->pieces.empty()) {
      std::string piece = std::move(pipe_->pieces.front());
      pipe_->pieces.pop_front();
      return piece;
    }
  }
  take_end();
  std::lock_guard lock(end_mutex_);
  if (error_ && !delivered_) {
    delivered_ = true;
    std::rethrow_exception(error_);
  }
  delivered_ = true;
  return std::nullopt;
}

void RequestStream::close() {
  {
    std::lock_guard lock(pipe_->mutex);
    pipe_->cancelled = true;
  }
  handle_->cancel();
  {
    std::unique_lock lock(pipe_->mutex);
    pipe_->ready.wait(lock, [this] { return pipe_->ended; });
    pipe_->pieces.clear();  // a closed stream yields nothing more
  }
  take_end();
}

const GenerationResult* RequestStream::result() {
  {
    std::lock_guard lock(pipe_->mutex);
    if (!pipe_->ended || !pipe_->pieces.empty()) return nullptr;
  }
  take_end();
  std::lock_guard lock(end_mutex_);
  return result_ ? &*result_ : nullptr;
}

}  // namespace ogai::python
