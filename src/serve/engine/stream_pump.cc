#include "serve/engine/stream_pump.h"

#include <algorithm>

namespace ogai::serve {

StreamPump::StreamPump(std::vector<StreamChoice> choices, std::shared_ptr<http::Exchange> exchange, Post post,
                       std::function<void()> cancel, std::function<void()> ended)
    : choices_(std::move(choices)), exchange_(std::move(exchange)), post_(std::move(post)), cancel_(std::move(cancel)),
      ended_(std::move(ended)),
      summing_prompts_(std::any_of(choices_.begin(), choices_.end(), [](const StreamChoice& c) { return c.own_prompt; })) {}

void StreamPump::start(GenerationChannel::Update first) {
  exchange_->begin_stream({200, "text/event-stream", {{"Cache-Control", "no-cache"}}, ""});
  std::string out;
  for (const StreamChoice& c : choices_) out += c.encoder->start();
  step(std::move(first), std::move(out));
}

// Takes and encodes every open choice's update after `out` (choice 0's is `first` when given),
// then writes it.
void StreamPump::step(std::optional<GenerationChannel::Update> first, std::string out) {
  bool failed = false;
  for (std::size_t i = 0; i < choices_.size() && !failed; ++i) {
    StreamChoice& c = choices_[i];
    if (c.finished) continue;
    GenerationChannel::Update update = i == 0 && first ? std::move(*first) : c.channel->poll();
    try {
      encode(c, update, out);
      failed = update.error.has_value();
    } catch (const std::exception& e) {  // e.g. a token the tokenizer cannot decode: end the stream saying so
      out += c.encoder->error(internal_error(e.what()));
      failed = true;
    }
  }
  if (failed) cancel_();  // the other choices
  const bool all = std::all_of(choices_.begin(), choices_.end(), [](const StreamChoice& c) { return c.finished; });
  if (!failed && all) out += choices_.front().encoder->end(prompt_tokens_, completion_tokens_);
  write(std::move(out), failed || all);
}

// The write's completion runs the next step (or ends the stream).
void StreamPump::write(std::string out, bool finished) {
  if (out.empty()) {
    if (finished) finish();
    else arm();
    return;
  }
  exchange_->write(std::move(out), [self = shared_from_this(), finished](bool ok) {
    if (ok) {
      if (finished) self->finish();
      else self->arm();
      return;
    }
    {  // the client went away
      std::lock_guard lock(self->mutex_);
      self->done_ = true;
    }
    self->cancel_();
    self->ended_();
  });
}

void StreamPump::finish() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  exchange_->finish();
  ended_();
}

void StreamPump::encode(StreamChoice& c, const GenerationChannel::Update& update, std::string& out) {
  if (c.parser) {
    encode_parsed(c, update, out);
  } else {
    if (!update.text.empty())
      out += c.encoder->text(update.text, c.logprobs ? (*c.logprobs)(update.logprobs) : nlohmann::json(nullptr));
    if (update.error) out += c.encoder->error(*update.error);
    else if (update.result) out += c.encoder->finish(*update.result);
  }
  if (update.result) {
    if (!summing_prompts_) prompt_tokens_ = update.result->prompt_ids.size();
    else if (c.own_prompt) prompt_tokens_ += update.result->prompt_ids.size();
    completion_tokens_ += update.result->ids.size();
  }
  c.finished = update.finished();
}

void StreamPump::encode_parsed(StreamChoice& c, const GenerationChannel::Update& update, std::string& out) {
  nlohmann::json logprobs = c.logprobs && !update.text.empty() ? (*c.logprobs)(update.logprobs) : nlohmann::json(nullptr);
  out += c.encoder->delta(c.parser->feed(update.text), std::move(logprobs));
  if (update.error) {
    out += c.encoder->error(*update.error);
  } else if (update.result) {
    out += c.encoder->delta(c.parser->finish());
    out += c.encoder->finish(*update.result, &c.parser->reply());
  }
}

void StreamPump::wake() {
  {
    std::lock_guard lock(mutex_);
    if (busy_ || done_) return;
    busy_ = true;
  }
  post_([self = shared_from_this()] { self->step(std::nullopt, {}); });
}

// Runs on the thread that owns the finished step. The open channels are listed before the step
// is handed back: a channel that calls back at once may start the next step on another thread.
void StreamPump::arm() {
  std::vector<GenerationChannel*> open;
  for (const StreamChoice& c : choices_)
    if (!c.finished) open.push_back(c.channel.get());
  {
    std::lock_guard lock(mutex_);
    busy_ = false;
  }
  for (GenerationChannel* channel : open) channel->when_ready([self = shared_from_this()] { self->wake(); });
}

}  // namespace ogai::serve
