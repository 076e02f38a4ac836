// The media budgets (media/media_limits.h) as command-line flags with their documented defaults:
// --max-media-parts, --max-media-bytes, --max-image-pixels, --max-decoded-bytes,
// --max-audio-seconds (docs/cli.md). Errors from the decoders name the flag.
#pragma once

#include <CLI/CLI.hpp>

#include "media/media_limits.h"

namespace ogai::cli {

// All five (run, generate, chat).
void add_media_limit_flags(CLI::App& cmd, media::MediaLimits& limits);
// --max-image-pixels, --max-decoded-bytes, --max-audio-seconds only (serve, whose
// --max-media-parts / --max-media-bytes are its own server options and are copied in).
void add_decode_limit_flags(CLI::App& cmd, media::MediaLimits& limits);

}  // namespace ogai::cli
