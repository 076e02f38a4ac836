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
