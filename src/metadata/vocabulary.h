// Rule VOCAB: the package's tokenizer, its decoder graph and its metadata agree on the
// vocabulary, so that `validate` refuses what load would otherwise run wrongly (issue 12):
//   - every tokenizer id (model vocabulary and added tokens, with the ids the tokenizer assigns:
//     a content in the vocabulary keeps that id, another added token its declared id) is a row of
//     the decoder's logits;
//   - the tokenizer spans as many ids as the logits, unless package.tokenizer.vocab_size
//     declares the smaller count (padded logits);
//   - every tokenizer id is below package.tokenizer.vocab_size (a larger vocab_size is legal:
//     models pad their embedding tables); model.vocab_size equals the logits width.
// Only checked when the decoder's logits have a fixed last dimension. tokenizer.json is read with
// simdjson (about 1 GB/s; no tokenizer is built). Messages name package-relative files only.
#pragma once

#include "metadata/diagnostics.h"
#include "metadata/package.h"

namespace ogai::metadata {

void check_vocabulary(const Package& package, Diagnostics& diags);

}  // namespace ogai::metadata
