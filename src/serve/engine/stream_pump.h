// StreamPump: writes one streaming (server-sent events) response from the GenerationChannels of
// its choices (n of them; n > 1 only for chat completions and completions) to its HTTP Exchange
// without holding a thread while tokens are generated. It arms every open channel's when_ready();
// the first to call back posts one step on the route pool (`post`) that takes what arrived on
// every channel, encodes it choice by choice (each choice's chunks carry its index, so the
// choices interleave as they are produced), writes it, and arms the channels again once the write
// is out: at most one step and one write per response are in flight, and slow clients slow only
// their own stream (the engine keeps generating; text accumulates in the channels). Once every
// choice finished, the first encoder's end() closes the stream (usage, [DONE]). A failed write (the
// client went away) cancels every choice; so does a choice that fails (its error event ends the
// stream). Owned by the callbacks it has armed; thread-safe in that each step runs after the
// previous one has finished.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "serve/common/event_encoder.h"
#include "serve/engine/generation_channel.h"
#include "serve/http/exchange.h"
#include "serve/common/logprobs_json.h"

namespace ogai::serve {

// One choice of a stream.
struct StreamChoice {
  std::shared_ptr<GenerationChannel> channel;
  std::unique_ptr<const EventEncoder> encoder;
  std::optional<LogprobsJson> logprobs;     // empty when the request did not ask for them
  std::unique_ptr<ChatReplyParser> parser;  // null unless the chat reply is parsed (tools or reasoning):
                                            // then text goes through it and out as its deltas
  bool finished = false;                    // its finish() or error() was encoded (the pump's)
  // Several prompts in one stream (completions): set on the first choice of each prompt, whose
  // prompt tokens the usage adds up. When no choice sets it, the choices share one prompt.
  bool own_prompt = false;
};

class StreamPump : public std::enable_shared_from_this<StreamPump> {
 public:
  using Post = std::function<void(std::function<void()>)>;  // runs a step off the I/O and worker threads

  // `choices`: at least one, choice i at index i. `cancel` ends every choice's generation (the
  // client went away), `ended` runs once the stream is over either way (after `cancel`); both from
  // any thread.
  StreamPump(std::vector<StreamChoice> choices, std::shared_ptr<http::Exchange> exchange, Post post,
             std::function<void()> cancel, std::function<void()> ended);

  // Sends the head, every choice's opening events and the first update of choice 0 (taken by
  // the caller, who waited for it), then the rest.
  void start(GenerationChannel::Update first);

 private:
  void step(std::optional<GenerationChannel::Update> first, std::string out);
  void write(std::string out, bool finished);
  void finish();  // the stream's end (written or not)
  void encode(StreamChoice& choice, const GenerationChannel::Update& update, std::string& out);
  void encode_parsed(StreamChoice& choice, const GenerationChannel::Update& update, std::string& out);
  void wake();  // a channel has an update: runs a step unless one is under way
  void arm();   // after a step: re-arms every open channel

  std::vector<StreamChoice> choices_;
  std::shared_ptr<http::Exchange> exchange_;
  Post post_;
  std::function<void()> cancel_;
  std::function<void()> ended_;
  std::size_t prompt_tokens_ = 0;
  bool summing_prompts_ = false;       // some choice has own_prompt
  std::size_t completion_tokens_ = 0;  // summed over the finished choices
  std::mutex mutex_;  // guards the two flags below
  bool busy_ = true;  // a step or its write is under way (start() runs the first)
  bool done_ = false; // the stream is over
};

}  // namespace ogai::serve
