// ogai's extension for Hugging Face Optimum's merged decoders (decoder_model_merged.onnx), shared
// by the importer that writes it and the metadata stage that reads it (docs/metadata.md, "Merged
// decoders").
//
// A merged decoder holds two subgraphs behind an If on a bool [1] input `use_cache_branch`: the
// no-cache one (false) for the first step, whose past inputs are empty, and the with-cache one
// (true) for every later step. v1 has no port role for such a flag, so the document declares it
// as an application-sourced workflow input named kCacheBranchInput, bound to the decoder's port,
// and lists kCacheBranchCapability in the workflow manifest. A runtime without the extension
// refuses the package at capability admission; ogai, with it, feeds the flag per run as
// "the run's past KV is non-empty" (what transformers.js and Optimum's ORTModelForCausalLM feed).
// Without the capability the input stays one ogai cannot fill, and is refused.
// Constants only; no behaviour.
#pragma once

namespace ogai::importer {

inline constexpr const char* kCacheBranchCapability = "ogai.use_cache_branch";
inline constexpr const char* kCacheBranchInput = "use_cache_branch";  // graph port and application input name

}  // namespace ogai::importer
