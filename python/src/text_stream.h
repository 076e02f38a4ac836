// TextStream: one generation running on its own thread, read as text chunks (ogai.TextStream).
//
// The constructor starts Model::generate on a worker thread; the stream callback queues every
// non-empty piece of text. next() blocks until a piece, the end or the error arrives (call it
// without holding the GIL: the worker never touches Python). close() (and the destructor) cancels
// the generation at its next token and joins the worker, so a consumer that stops reading early
// leaves nothing running.
//
// Thread safety: next() from one thread at a time; close() from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "context_handle.h"
#include "convert.h"
#include "ogai/ogai.h"

namespace ogai::python {

class TextStream {
 public:
  // `context` may be null; it is leased (marked busy) from here until the generation ends, and a
  // context in use already throws here.
  TextStream(std::shared_ptr<const Model> model, Prompt prompt, GenerationOptions options,
             std::shared_ptr<ContextHandle> context);
  ~TextStream();
  TextStream(const TextStream&) = delete;
  TextStream& operator=(const TextStream&) = delete;

  // The next piece of text; nullopt once the generation has ended. Rethrows its error, once.
  std::optional<std::string> next();
  // Cancels the generation if it still runs, waits for the worker and drops the pieces not read
  // yet (next() then reports the end). Idempotent.
  void close();
  // The whole result once the generation has ended and every piece was read (or the stream was
  // closed), else null.
  const GenerationResult* result() const;

 private:
  void run(const Prompt& prompt);
  bool on_token(const StreamEvent& event);

  std::shared_ptr<const Model> model_;
  GenerationOptions options_;
  std::unique_ptr<ContextLease> lease_;  // released by the worker when the generation ends
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> pieces_;
  bool ended_ = false;       // the worker has finished (result_ or error_ set)
  bool cancelled_ = false;   // close() asked the generation to stop
  bool delivered_ = false;   // next() has reported the end
  std::exception_ptr error_;
  std::optional<GenerationResult> result_;
  std::thread worker_;  // last: starts once every member above exists
};

}  // namespace ogai::python
