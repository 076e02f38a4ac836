// Which STFT frames of a padded clip came from the clip: the frame-level validity a feature
// extractor reports as its attention mask (and zeroes the other frames by). The clip occupies
// samples [begin, begin + valid) of the signal the STFT reads (before the STFT's own centre
// padding); frame t starts at sample t * hop - left_pad (spectrogram.h). Two rules:
//   hop        (default): frame t is valid when its hop step [t * hop, (t + 1) * hop) starts
//              inside the clip's extent rounded up to whole hops: t in
//              [floor(begin / hop), ceil((begin + valid) / hop)) — ceil(valid / hop) frames for a
//              clip at 0, the count Whisper-style attention masks sampled every hop give;
//   extent_end: frame t is valid when the last sample of its extent (frame_extent samples from
//              its start) is a clip sample: Gemma-4's rule (a frame counts only once all of it,
//              including the sample its unfold adds, is real audio; leading centre padding does
//              not make a frame invalid).
// Both give one contiguous range, clipped to [0, frames). Pure functions; thread-safe.
#pragma once

#include <cstddef>

#include "media/audio/spectrogram.h"

namespace ogai::media::audio {

enum class FrameValidity { kHop, kExtentEnd };

struct FrameRange {
  std::size_t begin = 0, count = 0;  // valid frames [begin, begin + count)
};

FrameRange valid_frame_range(std::size_t begin, std::size_t valid, std::size_t frames, const StftOptions& stft,
                             FrameValidity rule);

}  // namespace ogai::media::audio
