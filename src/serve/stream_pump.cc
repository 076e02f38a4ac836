#include "serve/stream_pump.h"

namespace ogai::serve {

StreamPump::StreamPump(std::shared_ptr<GenerationChannel> channel, std::shared_ptr<http::Exchange> exchange,
                       std::unique_ptr<const EventEncoder> encoder, std::optional<LogprobsJson> logprobs,
                       std::unique_ptr<ChatReplyParser> parser, Post post, std::function<void()> cancel,
                       std::function<void()> ended)
    : channel_(std::move(channel)), exchange_(std::move(exchange)), encoder_(std::move(encoder)),
      logprobs_(std::move(logprobs)), parser_(std::move(parser)), post_(std::move(post)), cancel_(std::move(cancel)), ended_(std::move(ended)) {}

void StreamPump::start(GenerationChannel::Update first) {
  exchange_->begin_stream({200, "text/event-stream", {{"Cache-Control", "no-cache"}}, ""});
  send(std::move(first), encoder_->start());
}

// Encodes `update` after `out` and writes it; the write's completion arms the next step.
void StreamPump::send(GenerationChannel::Update update, std::string out) {
  bool finished = update.finished();
  try {
    encode(update, out);
  } catch (const std::exception& e) {  // e.g. a token the tokenizer cannot decode: end the stream saying so
    cancel_();
    out += encoder_->error(internal_error(e.what()));
    finished = true;
  }
  if (out.empty()) {
    if (finished) finish();
    else arm();
    return;
  }
  exchange_->write(std::move(out), [self = shared_from_this(), finished](bool ok) {
    if (!ok) {  // the client went away
      self->cancel_();
      return self->ended_();
    }
    if (finished) self->finish();
    else self->arm();
  });
}

void StreamPump::finish() {
  exchange_->finish();
  ended_();
}

void StreamPump::encode(const GenerationChannel::Update& update, std::string& out) {
  if (parser_) return encode_parsed(update, out);
  if (!update.text.empty())
    out += encoder_->text(update.text, logprobs_ ? (*logprobs_)(update.logprobs) : nlohmann::json(nullptr));
  if (update.error) out += encoder_->error(*update.error);
  else if (update.result) out += encoder_->finish(*update.result);
}

void StreamPump::encode_parsed(const GenerationChannel::Update& update, std::string& out) {
  nlohmann::json logprobs = logprobs_ && !update.text.empty() ? (*logprobs_)(update.logprobs) : nlohmann::json(nullptr);
  out += encoder_->delta(parser_->feed(update.text), std::move(logprobs));
  if (update.error) {
    out += encoder_->error(*update.error);
  } else if (update.result) {
    out += encoder_->delta(parser_->finish());
    out += encoder_->finish(*update.result, &parser_->reply());
  }
}

void StreamPump::arm() {
  channel_->when_ready([self = shared_from_this()] {
    self->post_([self] { self->send(self->channel_->poll(), {}); });
  });
}

}  // namespace ogai::serve
