// Hostile images: truncated and corrupt files of every codec, a 60,000 x 60,000 PNG header (a
// decompression bomb) and GIF screen, text passed as an image, an empty file. Each is a
// kInvalidArgument naming the input; the bombs are refused from the header, before any canvas is
// allocated (the peak resident size stays far below the 10.8 GB the PNG declares).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "base/error.h"
#include "cases.h"
#include "media/image/decode.h"

namespace ogai::media {
namespace {

using testing::cases_dir;
using testing::manifest;
using testing::read_bytes;

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(MediaHostile, EveryHostileFileIsAClearErrorNamingTheInput) {
  const auto& cases = manifest()["hostile"];
  ASSERT_GE(cases.size(), 10u);
  const long before = peak_rss_kb();
  for (const auto& c : cases) {
    const std::string file = c["file"];
    SCOPED_TRACE(file);
    const auto bytes = read_bytes(cases_dir() / file);
    const std::string input = "request.image (" + file + ")";
    try {
      decode_image(bytes, input);
      ADD_FAILURE() << "decoded a hostile file";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << what;
      EXPECT_NE(what.find(input), std::string::npos) << what;
      EXPECT_NE(what.find(c["expect"].get<std::string>()), std::string::npos) << what;
    }
  }
  EXPECT_LT(peak_rss_kb() - before, 200 * 1024) << "a hostile file made the decoder allocate over 200 MB";
}

TEST(MediaHostile, BudgetsAreTheCallersToSet) {
  const auto bytes = read_bytes(cases_dir() / "photo.png");  // 97 x 61
  ImageLimits tight;
  tight.max_pixels = 97 * 61 - 1;
  EXPECT_THROW(decode_image(bytes, "x", tight), Error);
  tight.max_pixels = 97 * 61;
  EXPECT_EQ(decode_image(bytes, "x", tight).width, 97u);
  ImageLimits small_file;
  small_file.max_encoded_bytes = bytes.size() - 1;
  EXPECT_THROW(decode_image(bytes, "x", small_file), Error);
}

}  // namespace
}  // namespace ogai::media

namespace ogai::media {
namespace {

// Every decodable case with bytes flipped at random positions (seeded), and cut at random
// lengths: each decodes or is an ogai::Error; nothing crashes, hangs or escapes as another
// exception.
TEST(MediaHostile, MutatedFilesDecodeOrFailCleanly) {
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  std::size_t errors = 0, decoded = 0;
  for (const auto& c : manifest()["decode"]) {
    const auto original = read_bytes(cases_dir() / c["file"].get<std::string>());
    for (int round = 0; round < 12; ++round) {
      auto bytes = original;
      if (round % 3 == 2) {
        bytes.resize(next() % bytes.size());
      } else {
        for (int flips = 1 + static_cast<int>(next() % 4); flips > 0; --flips)
          bytes[next() % bytes.size()] ^= static_cast<std::uint8_t>(1 + next() % 255);
      }
      try {
        decode_image(bytes, "mutated");
        ++decoded;
      } catch (const Error& e) {
        ++errors;
        EXPECT_NE(std::string(e.what()).find("mutated"), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GT(errors, 100u);  // most cuts and many flips are caught
  EXPECT_GT(decoded, 0u);   // flips in pixel data still decode (to other pixels)
}

}  // namespace
}  // namespace ogai::media
