// What a decoder's KV state looks like: the buffer pairs the state service manages, with the
// geometry read from the graph (never assumed). Built by the generation stage from the decoder
// ABI; the kv stage itself knows nothing about metadata documents.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace ogai::kv {

enum class StorageMode {
  kAppend,        // the graph's present output (past + new) becomes the next past, by move
  kSharedBuffer,  // past and present are one fixed-capacity buffer the graph writes in place
                  // (explicit-length attention such as GroupQueryAttention); length is logical
};

// One read_write alias: a past input port paired with its present output port.
struct PairSpec {
  std::string group;   // state-service group (e.g. "full_attention")
  std::string input;   // past port, e.g. "past_key_values.4.key"
  std::string output;  // present port, e.g. "present.4.key"
  DataType dtype = DataType::kFloat32;
  std::int64_t kv_heads = 0;  // dim 1 of the port
  std::int64_t head_dim = 0;  // last dim of the port
  // Layout is [batch, kv_heads, sequence, head_dim] (bnsh, sequence axis 2).
};

struct CacheSpec {
  std::vector<PairSpec> pairs;
  StorageMode mode = StorageMode::kAppend;
  std::int64_t max_length = 0;  // context limit (positions); 0 = unknown
};

}  // namespace ogai::kv
