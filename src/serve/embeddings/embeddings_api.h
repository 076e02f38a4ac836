// POST /v1/embeddings as OpenAI defines it: the request read into EmbeddingsRequest, and the
// answer written from the vectors.
//   request:  {"model": ID, "input": TEXT | [TEXT...] | [ID...] | [[ID...]...],
//              "encoding_format": "float" (default) | "base64", "dimensions": N, "user": ignored}
//   response: {"object": "list", "data": [{"object": "embedding", "index": i, "embedding": V}...],
//              "model": NAME, "usage": {"prompt_tokens": N, "total_tokens": N}}
// where V is an array of numbers (float32 values, shortest round-trip form) or, for base64, the
// vector's little-endian float32 bytes in standard base64 (what OpenAI's clients decode).
// Every refusal is an ApiError 400 naming the field (input[i] for one input). The body's size and
// the number of inputs (2048) are bounded before any DOM (check_json_limits' "input" budget).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "serve/common/json_limits.h"

namespace ogai::serve {

struct EmbeddingsRequest {
  std::string model;
  // Either texts (to tokenize) or token-id inputs, never both; at least one input.
  std::vector<std::string> texts;
  std::vector<std::vector<std::int32_t>> ids;
  bool base64 = false;
  std::optional<std::int64_t> dimensions;
  std::vector<std::string> unknown_fields;  // top-level fields not read here (sorted)
};

// Throws ApiError 400 naming the field for a body that is not such a request. Token ids are
// checked to be integers in [0, 2^31); the vocabulary bound is the model's (Model::embed).
EmbeddingsRequest parse_embeddings_request(std::string_view body, const JsonLimits& limits);

// The response body (compact JSON, built as text: a vector costs no DOM).
std::string embeddings_response(std::span<const std::vector<float>> vectors, bool base64, const std::string& model,
                                std::int64_t prompt_tokens);

// Standard base64 (with padding) of `bytes`.
std::string base64_encode(std::span<const std::uint8_t> bytes);

}  // namespace ogai::serve
