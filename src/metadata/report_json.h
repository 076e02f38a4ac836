// JSON renderings of validation results and the decoder ABI, as `ogai validate --json` prints
// them: {"valid": bool, "errors": [{"rule","path","message"}], "abi": {...} | null}.
#pragma once

#include <nlohmann/json.hpp>

#include "metadata/decoder_abi.h"
#include "metadata/diagnostics.h"

namespace ogai::metadata {

nlohmann::ordered_json diagnostics_json(const Diagnostics& diags);  // [{"rule","path","message"}]
nlohmann::ordered_json abi_json(const DecoderAbi& abi);
nlohmann::ordered_json geometry_json(const PortGeometry& g);  // {"dtype","rank","shape","kv_heads","head_dim","sequence_axis"}

}  // namespace ogai::metadata
