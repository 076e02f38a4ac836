// Model::embed: the public entry to the Embedder (generate/embedder.h) of a loaded package.
#include "base/error.h"
#include "generate/model_impl.h"

namespace ogai {

std::vector<std::vector<float>> Model::embed(std::span<const std::vector<TokenId>> inputs, Pooling pooling,
                                             bool normalize, const std::function<bool()>& cancelled) const {
  if (!impl_->embedder)
    fail(ErrorCode::kUnsupported, "model", "this package cannot embed: {}", impl_->info.embedding_unavailable);
  return impl_->embedder->embed(inputs, pooling, normalize, cancelled);
}

}  // namespace ogai
