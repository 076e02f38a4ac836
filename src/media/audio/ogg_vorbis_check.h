// A header check of Ogg Vorbis input through libvorbisfile, run before libsndfile opens it:
// Debian 12's libsndfile 1.2.0 leaks the vorbis_info it allocated (~5.8 KB) each time it fails
// to open a corrupt Ogg Vorbis stream, while libvorbisfile's ov_test frees everything when it
// refuses. Input that is not Ogg Vorbis (by its first page) is left to libsndfile unchecked.
// Throws ogai::Error(kInvalidArgument) naming `name`. Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace ogai::media::audio {

void check_ogg_vorbis_headers(std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace ogai::media::audio
