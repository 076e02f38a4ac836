#include "media/audio/ogg_vorbis_check.h"

#include <vorbis/vorbisfile.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "base/error.h"

namespace ogai::media::audio {
namespace {

struct Reader {
  std::span<const std::uint8_t> bytes;
  std::size_t pos = 0;
};

std::size_t read_cb(void* out, std::size_t size, std::size_t count, void* user) {
  auto* r = static_cast<Reader*>(user);
  if (size == 0) return 0;
  const std::size_t n = std::min(size * count, r->bytes.size() - r->pos) / size;
  std::memcpy(out, r->bytes.data() + r->pos, n * size);
  r->pos += n * size;
  return n;
}

int seek_cb(void* user, ogg_int64_t offset, int whence) {
  auto* r = static_cast<Reader*>(user);
  const auto size = static_cast<ogg_int64_t>(r->bytes.size());
  const ogg_int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? static_cast<ogg_int64_t>(r->pos) : size;
  const ogg_int64_t to = base + offset;
  if (to < 0 || to > size) return -1;
  r->pos = static_cast<std::size_t>(to);
  return 0;
}

long tell_cb(void* user) { return static_cast<long>(static_cast<Reader*>(user)->pos); }

// Ogg whose first page carries a Vorbis identification header ("\x01vorbis").
bool is_ogg_vorbis(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 4 || std::memcmp(bytes.data(), "OggS", 4) != 0) return false;
  const std::string_view head(reinterpret_cast<const char*>(bytes.data()), std::min<std::size_t>(bytes.size(), 128));
  return head.find(std::string_view("\x01vorbis", 7)) != std::string_view::npos;
}

}  // namespace

void check_ogg_vorbis_headers(std::span<const std::uint8_t> bytes, const std::string& name) {
  if (!is_ogg_vorbis(bytes)) return;
  Reader reader{bytes};
  OggVorbis_File vf;
  const ov_callbacks callbacks{read_cb, seek_cb, nullptr, tell_cb};
  const int rc = ov_test_callbacks(&reader, &vf, nullptr, 0, callbacks);  // frees everything on failure
  if (rc < 0)
    fail(ErrorCode::kInvalidArgument, name, "the Ogg Vorbis stream is corrupt or truncated (libvorbisfile error {})", rc);
  ov_clear(&vf);
}

}  // namespace ogai::media::audio
