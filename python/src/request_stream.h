// RequestStream: one generation submitted to an ogai::Engine, read as text chunks
// (ogai.RequestStream, what Engine.stream() returns).
//
// The constructor submits the request (bad options throw there); the engine's thread queues every
// non-empty piece of text and marks the end. next() blocks until a piece or the end arrives (call
// it without holding the GIL: the engine's thread never touches Python). close() (and the
// destructor) cancels the generation at the engine's next step and waits until it has ended, so a
// consumer that stops reading early leaves nothing running; the engine's other requests go on.
//
// Thread safety: next() from one thread at a time; close() from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "convert.h"
#include "ogai/ogai.h"

namespace ogai::python {

class RequestStream {
 public:
  RequestStream(Engine& engine, const Prompt& prompt, const GenerationOptions& options);
  ~RequestStream();
  RequestStream(const RequestStream&) = delete;
  RequestStream& operator=(const RequestStream&) = delete;

  // The next piece of text; nullopt once the generation has ended. Rethrows its error, once.
  std::optional<std::string> next();
  // Cancels the generation if it still runs, waits for its end and drops the pieces not read yet
  // (next() then reports the end). Idempotent.
  void close();
  // The whole result once the generation has ended and every piece was read (or the stream was
  // closed), else null.
  const GenerationResult* result();

 private:
  // What the engine's callbacks share with the stream (they may outlive neither: close() waits).
  struct Pipe {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::string> pieces;
    bool ended = false;      // the completion callback ran
    bool cancelled = false;  // close() asked the generation to stop
  };
  void take_end();  // once ended: the handle's result or error (lock not held)

  std::shared_ptr<Pipe> pipe_;
  std::shared_ptr<GenerationHandle> handle_;
  std::mutex end_mutex_;  // guards the three members below
  bool taken_ = false;            // the handle's end was taken
  bool delivered_ = false;        // next() reported the end
  std::exception_ptr error_;
  std::optional<GenerationResult> result_;
};

}  // namespace ogai::python
