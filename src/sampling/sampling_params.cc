#include "sampling/sampling_params.h"

#include <cmath>

#include "base/error.h"

namespace ogai::sampling {
namespace {

std::string field(const std::string& where, const char* name) {
  return where.empty() ? std::string(name) : where + "." + name;
}

// `ok` is written so that NaN fails it (every comparison with NaN is false).
void require(bool ok, const std::string& where, const char* name, double value, const char* range) {
  if (!ok) {
    fail(ErrorCode::kInvalidArgument, field(where, name), "{} is outside the allowed range {}",
         value, range);
  }
}

}  // namespace

void SamplingParams::validate(const std::string& where) const {
  require(temperature >= 0.0 && std::isfinite(temperature), where, "temperature", temperature,
          "[0, +inf) (0 means greedy)");
  if (top_k < 0) {
    fail(ErrorCode::kInvalidArgument, field(where, "top_k"),
         "{} is outside the allowed range [0, +inf) (0 disables top-k)", top_k);
  }
  require(top_p > 0.0 && top_p <= 1.0, where, "top_p", top_p, "(0, 1] (1 disables top-p)");
  require(min_p >= 0.0 && min_p <= 1.0, where, "min_p", min_p, "[0, 1] (0 disables min-p)");
  require(typical_p > 0.0 && typical_p <= 1.0, where, "typical_p", typical_p,
          "(0, 1] (1 disables typical-p)");
  require(repetition_penalty > 0.0 && std::isfinite(repetition_penalty), where,
          "repetition_penalty", repetition_penalty, "(0, +inf) (1 disables it)");
  require(frequency_penalty >= -2.0 && frequency_penalty <= 2.0, where, "frequency_penalty",
          frequency_penalty, "[-2, 2]");
  require(presence_penalty >= -2.0 && presence_penalty <= 2.0, where, "presence_penalty",
          presence_penalty, "[-2, 2]");
  for (const auto& [id, bias] : logit_bias) {
    std::string name = fmt::format("logit_bias[{}]", id);
    if (id < 0) {
      fail(ErrorCode::kInvalidArgument, field(where, name.c_str()),
           "token id {} is outside the allowed range [0, vocabulary size)", id);
    }
    require(bias >= -100.0 && bias <= 100.0, where, name.c_str(), bias, "[-100, 100]");
  }
  if (min_tokens_to_keep < 1) {
    fail(ErrorCode::kInvalidArgument, field(where, "min_tokens_to_keep"),
         "{} is outside the allowed range [1, +inf)", min_tokens_to_keep);
  }
}

}  // namespace ogai::sampling
