// The number of soft tokens an audio encoder produces from a clip's valid feature frames: the
// frame count through a stack of strided 1-D convolutions (each maps t frames to
// floor((t + 2 padding - kernel) / stride) + 1, and a count that reaches 0 stays 0), capped at
// max_tokens. Gemma-4's audio encoder is two convolutions of kernel 3, stride 2, padding 1,
// capped at audio_seq_length 750 (Hugging Face's Gemma4Processor._compute_audio_num_tokens,
// whose frame count equals the valid frames of the extent_end rule, frame_validity.h).
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace ogai::media::audio {

struct Convolution {
  std::int64_t kernel = 3, stride = 2, padding = 1;
};

// `max_tokens` 0: no cap.
std::int64_t token_count(std::int64_t valid_frames, const std::vector<Convolution>& convolutions,
                         std::int64_t max_tokens);

}  // namespace ogai::media::audio
