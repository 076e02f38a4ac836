// Id, position and mask feeds in the element type the decoder graph declares for them.
//
// The engine keeps token ids as TokenId (int32, ogai/token_id.h) and positions and attention
// masks as int64 (its own bookkeeping); graphs take each as int64 or int32 (ONNX Runtime GenAI's
// model builder exports int32 ids, GPT-2 exports int32 ids, positions and mask). These are the
// only places ids change width. index_feed() hands the graph a tensor of its dtype: a view of the
// int64 values (no copy) for int64, or the values narrowed into `scratch` for int32; ids_feed()
// views the ids for int32 and widens them into `scratch` for int64. The caller keeps the values
// (and the scratch) alive until the run. A value outside int32's range throws
// ogai::Error(kInvalidArgument) naming the port. Anything but int32/int64 is kInternal (the
// Decoder admits only those).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/dtype.h"
#include "ogai/token_id.h"
#include "ort/tensor.h"

namespace ogai::generate {

// Whether `dtype` is an element type id/position/mask ports may have.
inline bool is_index_dtype(DataType dtype) { return dtype == DataType::kInt64 || dtype == DataType::kInt32; }

ort::Tensor index_feed(DataType dtype, ort::Shape shape, std::span<const std::int64_t> values,
                       std::vector<std::int32_t>& scratch, std::string_view port);
ort::Tensor ids_feed(DataType dtype, ort::Shape shape, std::span<const TokenId> ids, std::vector<std::int64_t>& scratch,
                     std::string_view port);

}  // namespace ogai::generate
