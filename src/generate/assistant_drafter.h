// AssistantDrafter: a draft model that borrows the target's KV cache (the Gemma-4 E2B assistant;
// metadata catalogue example 24: chained proposal execution with a folded carry).
//
// Each draft step feeds inputs_embeds [1, 1, 2H] = concat(target embedding row of the last token,
// carry) together with read-only views of target KV pairs, and reads the draft logits and the next
// carry (the projected state). The first carry is the target's hidden state at the last KV
// position (folded_carry_seed); the embedding rows come from the target's initializer named by
// token_embedding.table, read once at load. Immutable after construction; propose() is const and
// may run concurrently for different requests.
#pragma once

#include <string>
#include <vector>

#include "generate/drafter.h"
#include "generate/session_preload.h"
#include "onnx/initializer_data.h"
#include "ort/session.h"

namespace ogai::generate {

struct AssistantSpec {
  std::filesystem::path artifact;  // the proposer graph
  std::string embeds_input;        // token_embedding_input, [batch, seq, 2H]
  std::string logits_output;       // draft logits [batch, seq, vocab]
  std::string carry_output;        // folded_carry_output, [batch, seq, H]
  struct Borrow {
    std::string input;       // proposer port, e.g. shared_kv.full_attention.key
    std::size_t pair_index;  // the target KV pair it reads (index into the target's CacheSpec)
  };
  std::vector<Borrow> borrows;
  onnx::InitializerData embedding;  // the target's token-embedding table [vocab, H]
};

class AssistantDrafter : public Drafter {
 public:
  AssistantDrafter(AssistantSpec spec, const ort::SessionOptions& options,
                   SessionPreload* preload = nullptr);  // session_preload.h
  void propose(const DraftRequest& request, std::vector<TokenId>& out) const override;
  bool needs_hidden() const override { return true; }
  bool needs_target_cache() const override { return true; }

 private:
  void check_ports() const;

  AssistantSpec spec_;
  ort::Session session_;
  DataType embeds_dtype_ = DataType::kFloat32;
  std::int64_t hidden_ = 0;                // H: the embedding width and the carry width
  std::vector<std::string> input_names_;   // embeds, then borrows
  std::vector<std::string> output_names_;  // logits, carry
};

}  // namespace ogai::generate
