// What a decoder's state looks like: the buffer pairs the state service manages, with the
// geometry read from the graph (never assumed). Built by the generation stage from the decoder
// ABI; the kv stage itself knows nothing about metadata documents.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace ogai::kv {

// How the state of a pair changes with each step (the metadata group's `update`).
enum class Update {
  kAppend,          // [batch, kv_heads, positions, head_dim]: the graph returns past + new positions
                    // ([2, batch, kv_heads, positions, head_dim] for a combined pair)
  kIndexedScatter,  // [batch, kv_heads, capacity, head_dim]: a fixed buffer the graph writes at the
                    // write indices the engine feeds; the valid prefix is the logical length
  kReplace,         // [batch, ...state_dims]: recurrent state the graph returns whole each step
};

// How append pairs are stored (kIndexedScatter and kReplace pairs are unaffected).
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
  std::int64_t kv_heads = 0;  // dim 1 of the port (append, indexed_scatter)
  std::int64_t head_dim = 0;  // last dim of the port (append, indexed_scatter)
  Update update = Update::kAppend;
  std::int64_t capacity = 0;             // indexed_scatter: positions in the fixed buffer
  std::vector<std::int64_t> state_dims = {};  // replace: every dim after the batch dim
  // GPT-2's combined cache: one append tensor [2, batch, kv_heads, positions, head_dim] holding key
  // (plane 0) and value (plane 1); kAppend storage only.
  bool combined = false;
  // The dims before the batch axis (one plane count for a combined pair) and the element count
  // of one position of one row.
  std::int64_t planes() const { return combined ? 2 : 1; }
};

struct CacheSpec {
  std::vector<PairSpec> pairs;
  StorageMode mode = StorageMode::kAppend;
  // Explicit-length attention (GroupQueryAttention) reads each row's length from the mask and its
  // positions from the start of the row's buffer: in a batch, every row's positions must be a
  // prefix of its buffer (right padding), never left-padded.
  bool prefix_rows = false;
  std::int64_t max_length = 0;  // context limit (positions); 0 = unknown
  // Every group the decoder runs says `reuse.prefix_reusable: true`: a finished sequence's state
  // may seed another sequence's prompt (the prefix cache). False: the engine neither keeps nor
  // hands out this package's states (a Context still continues its own).
  bool prefix_reusable = true;
};

}  // namespace ogai::kv
