// ogai's extension for the 3-D rotary positions (mRoPE) of Qwen2-VL-style decoders
// (Qwen2.5-VL, Qwen3-VL), shared by the importer that writes it and the metadata stage that
// reads it (docs/metadata.md, "3-D positions (mRoPE)").
//
// Such a decoder takes position_ids [3, batch, sequence] (temporal, height, width), computed from
// the images' grids (generate/mrope_positions.h). v1's position_ids role is [batch, sequence],
// so the document keeps the port's position_ids role but feeds it from an application-sourced
// workflow input named kMropeInput (contract [3, batch, sequence], batch axis 1) and lists
// kMropeCapability in the workflow manifest, which gives the role its 3-D meaning. The spatial merge is the image program's patchify `merge_size` (already in
// the document; a second copy could contradict it), the grid its `grid_dimensions` output. A
// runtime without the extension refuses the capability at admission; ogai, with it, feeds the
// positions per run. Without the capability ogai refuses the rank-3 position_ids port by name.
// Constants only; no behaviour.
#pragma once

namespace ogai::importer {

inline constexpr const char* kMropeCapability = "ogai.mrope";
inline constexpr const char* kMropeInput = "mrope_position_ids";  // the application input's name

}  // namespace ogai::importer
