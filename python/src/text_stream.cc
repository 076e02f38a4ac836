#include "text_stream.h"

namespace ogai::python {

TextStream::TextStream(std::shared_ptr<const Model> model, Prompt prompt, GenerationOptions options,
                       std::shared_ptr<ContextHandle> context)
    : model_(std::move(model)), options_(std::move(options)), lease_(std::make_unique<ContextLease>(std::move(context))) {
  worker_ = std::thread([this, prompt = std::move(prompt)] { run(prompt); });
}

TextStream::~TextStream() { close(); }

void TextStream::run(const Prompt& prompt) {
  std::optional<GenerationResult> result;
  std::exception_ptr error;
  try {
    auto callback = [this](const StreamEvent& event) { return on_token(event); };
    Context* context = lease_->get();
    if (const auto* text = std::get_if<std::string>(&prompt)) result = model_->generate(*text, options_, callback, context);
    else result = model_->generate(std::get<std::vector<std::int32_t>>(prompt), options_, callback, context);
  } catch (...) {
    error = std::current_exception();
  }
  lease_.reset();  // the context is free before the end is reported
  std::lock_guard<std::mutex> lock(mutex_);
  result_ = std::move(result);
  error_ = error;
  ended_ = true;
  ready_.notify_all();
}

bool TextStream::on_token(const StreamEvent& event) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cancelled_) return false;
  if (!event.text.empty()) {
    pieces_.emplace_back(event.text);
    ready_.notify_all();
  }
  return true;
}

std::optional<std::string> TextStream::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait(lock, [this] { return !pieces_.empty() || ended_; });
  if (!pieces_.empty()) {
    std::string piece = std::move(pieces_.front());
    pieces_.pop_front();
    return piece;
  }
  if (error_ && !delivered_) {
    delivered_ = true;
    std::rethrow_exception(error_);
  }
  delivered_ = true;
  return std::nullopt;
}

void TextStream::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
  }
  if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  pieces_.clear();  // a closed stream yields nothing more
}

const GenerationResult* TextStream::result() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ended_ && pieces_.empty() && result_ ? &*result_ : nullptr;
}

}  // namespace ogai::python
