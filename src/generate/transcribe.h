// Transcription packages (a workflow with a CTC transcription profile; workflow/transcription.h)
// behind a loaded Model: which profile it decodes, and one encoded audio file through the
// workflow (its audio-preprocess@1 adapter and encoder) and that profile. Such a package need not
// generate: Model::load accepts it without a `tokens` output, and its generations are refused.
// Thread-safe (the workflow program is immutable; each call is its own run).
#pragma once

#include <string>
#include <string_view>

#include "ogai/model.h"

namespace ogai::generate {

// The profile's name under `profiles`, or "" when the package has no transcription profile.
std::string transcription_profile(const Model& model);

// The text of `audio` (an encoded WAV, FLAC, MP3 or Ogg file, fed to the workflow's one uint8
// [bytes] media input): the first profile's first batch row. Throws ogai::Error: kUnsupported
// (where "model") without a transcription profile or without exactly one such input; what the
// audio adapter or the decoder refuses otherwise.
std::string transcribe(const Model& model, std::string_view audio);

}  // namespace ogai::generate
