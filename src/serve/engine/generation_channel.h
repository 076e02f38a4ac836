// GenerationChannel: the hand-off between the worker that generates one request and the HTTP
// side that answers it. The worker pushes text as tokens arrive and ends with complete() or
// fail(); the HTTP side takes what arrived with wait() (blocking) or, without holding a thread,
// arms when_ready() and takes it with poll() once called back. Either side may give up: the HTTP side
// calls cancel() when its client went away, and the worker's next on_token() returns false, which
// cancels the generation. Shared by both sides through shared_ptr; all methods are thread-safe.
//
// Log-probabilities follow the text: a token's entry is held until an event releases text (its
// own or a later token's; the engine holds back incomplete UTF-8 and possible stop strings) and
// then handed over with that text. Entries still held at the end (an EOS or stop id, tokens that
// became a stop string, trailing tokens that decode to nothing) are never reported;
// reported_logprobs() says how many were, for the whole response to report the same.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ogai/ogai.h"
#include "serve/common/api_error.h"

namespace ogai::serve {

class GenerationChannel {
 public:
  // `keep_text`: collect streamed text for the HTTP side (streaming); off, only the end is kept.
  explicit GenerationChannel(bool keep_text) : keep_text_(keep_text) {}

  // Worker side. on_token returns false once the HTTP side cancelled. `logprobs` is the token's
  // entry (null when off, and on the engine's closing event).
  bool on_token(std::string_view text, const TokenLogprobs* logprobs = nullptr);
  void complete(GenerationResult result);
  void fail(ApiError error);

  struct Update {
    std::string text;                       // text pushed since the last wait()
    std::vector<TokenLogprobs> logprobs;    // entries released with that text (streaming)
    int events = 0;                         // on_token calls since the last wait()
    std::optional<GenerationResult> result; // set once the generation completed
    std::optional<ApiError> error;          // set once it failed
    bool finished() const { return result.has_value() || error.has_value(); }
  };
  // Blocks until there is new text, a token event, or the end; takes what is pending. After the
  // end has been taken, returns an empty Update at once.
  Update wait();
  // Blocks until the end (collecting text too).
  Update wait_finished();

  // Non-blocking HTTP side: `ready` is called once, as soon as wait() would not block (at once,
  // on this thread, if that is already so; else on the worker's thread as it pushes the update or
  // ends). One callback is armed at a time (arming another replaces it). It runs without the
  // channel's lock held and must not block: it should post the work elsewhere.
  void when_ready(std::function<void()> ready);
  // Takes what is pending without waiting (an empty Update when nothing is).
  Update poll();
  // fail() was called (whether or not the error was taken).
  bool failed() const;

  void cancel();
  bool cancelled() const;
  // Entries released with text so far (counted in both modes).
  std::size_t reported_logprobs() const;

 private:
  Update take();  // lock held
  bool has_update() const { return events_ > 0 || ended_; }  // lock held
  std::function<void()> take_ready();  // lock held: the armed callback if has_update(), else empty

  const bool keep_text_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::string text_;
  std::vector<TokenLogprobs> held_;      // entries whose text is not out yet
  std::vector<TokenLogprobs> released_;  // entries released since the last wait() (streaming)
  std::size_t reported_ = 0;
  int events_ = 0;
  std::optional<GenerationResult> result_;
  std::optional<ApiError> error_;
  bool failed_ = false;
  bool ended_ = false;     // complete() or fail() was called
  bool taken_end_ = false; // the end was handed to the HTTP side
  bool cancelled_ = false;
  std::function<void()> ready_;  // armed by when_ready()
};

}  // namespace ogai::serve
