// PromptMedia: the media of one prompt after encoding and prompt expansion — each item's feature
// rows and where its soft tokens sit in the expanded prompt. Prefill asks it for the rows of the
// positions a chunk feeds (chunks may cut a media span anywhere: the embedding graph places rows
// at its soft tokens in order). Immutable once built and shared (std::shared_ptr<const>) by the
// request and its forks; thread-safe to read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "generate/embedding_stage.h"
#include "generate/media_marks.h"
#include "generate/mrope_positions.h"

namespace ogai::generate {

// One image or clip through its encoder: rows x width features in the embedding port's dtype.
struct EncodedMedia {
  bool audio = false;
  std::size_t port = 0;  // EmbeddingSpec::feature_inputs index
  std::int64_t rows = 0, width = 0;
  std::size_t row_bytes = 0;
  std::shared_ptr<const std::vector<std::uint8_t>> features;  // [rows, width]
  std::uint64_t digest = 0;                                   // media_digest(*features)
  std::string origin;                                         // for messages
  // Images whose program emits grid_dimensions (Qwen2-VL's image_grid_thw) with a patchify merge:
  // the grid and the merge, for 3-D rotary positions (mrope_positions.h).
  std::optional<MropeGrid> grid;
  std::int64_t merge = 1;
};

struct PromptMedia {
  std::vector<EncodedMedia> items;  // in prompt order
  MediaMarks marks;                 // parallel to items
  // The expanded prompt's 3-D positions when an item has a grid (set_mrope), else null.
  std::shared_ptr<const MropePositions> mrope;

  // Computes `mrope` over an expanded prompt of `length` tokens from the items' grids and marks
  // (no-op when no item has a grid). Throws kInvalidPackage naming the item when its feature rows
  // are not the grid's soft tokens (t * h * w / merge^2).
  void set_mrope(std::int64_t length);

  // The feature rows of prompt positions [begin, end) for each of `ports` feature ports.
  FeatureRows rows(std::size_t begin, std::size_t end, std::size_t ports) const;
};

}  // namespace ogai::generate
