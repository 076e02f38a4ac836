// StreamPump: writes one streaming (server-sent events) response from its GenerationChannel to
// its HTTP Exchange without holding a thread while tokens are generated. It arms the channel's
// when_ready(), encodes what arrived on the route pool (`post`), writes it, and arms again once the
// write is out, so at most one write per response is in flight and slow clients slow only their
// own stream (the engine keeps generating; text accumulates in the channel). A failed write (the
// client went away) cancels the generation. Owned by the callbacks
// it has armed; thread-safe in that each step runs after the previous one has finished.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "serve/generation_channel.h"
#include "serve/http/exchange.h"
#include "serve/logprobs_json.h"
#include "serve/event_encoder.h"

namespace ogai::serve {

class StreamPump : public std::enable_shared_from_this<StreamPump> {
 public:
  using Post = std::function<void(std::function<void()>)>;  // runs a step off the I/O and worker threads

  // `logprobs` empty when the request did not ask for them; `parser` null unless the chat reply
  // is parsed (tools or reasoning): then text goes through it and out as its deltas; `cancel` ends the generation (the
  // client went away), `ended` runs once the stream is over either way (after `cancel`); both
  // from any thread.
  StreamPump(std::shared_ptr<GenerationChannel> channel, std::shared_ptr<http::Exchange> exchange,
             std::unique_ptr<const EventEncoder> encoder, std::optional<LogprobsJson> logprobs,
             std::unique_ptr<ChatReplyParser> parser, Post post, std::function<void()> cancel,
             std::function<void()> ended);

  // Sends the head and the first update (with the stream's opening chunk), then the rest.
  void start(GenerationChannel::Update first);

 private:
  void send(GenerationChannel::Update update, std::string out);
  void finish();  // the stream's end (written or not)
  void encode(const GenerationChannel::Update& update, std::string& out);  // appends its events
  void encode_parsed(const GenerationChannel::Update& update, std::string& out);
  void arm();

  std::shared_ptr<GenerationChannel> channel_;
  std::shared_ptr<http::Exchange> exchange_;
  std::unique_ptr<const EventEncoder> encoder_;
  std::optional<LogprobsJson> logprobs_;
  std::unique_ptr<ChatReplyParser> parser_;
  Post post_;
  std::function<void()> cancel_;
  std::function<void()> ended_;
};

}  // namespace ogai::serve
