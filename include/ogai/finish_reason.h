// Why a generation ended: one enum for every stage (the stop rules in sampling/, the decode loops,
// the C++, C and Python APIs, the CLI and the server).
#pragma once

#include "ogai/export.h"

namespace ogai {

enum class FinishReason {
  kStop,       // a stop string or stop token id matched
  kLength,     // max_new_tokens or the context limit was reached
  kEos,        // the model produced an end-of-sequence token
  kCancelled,  // the caller cancelled (a stream callback returned false, a handle was cancelled)
};

// "stop", "length", "eos", "cancelled" ("unknown" for a value outside the enum).
OGAI_API const char* finish_reason_name(FinishReason reason);

}  // namespace ogai
