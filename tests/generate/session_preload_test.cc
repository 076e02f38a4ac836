// Parallel session loading (generate/session_preload.h) on the tiny-vlm fixture (four graphs: vision,
// audio, embedding, decoder): a package loaded with its secondary sessions created in parallel
// generates exactly what the serial load (OGAI_PARALLEL_LOAD=0) generates, a session taken from the
// preload is the graph's own, and an error while opening one surfaces where it is taken, with the
// same message the serial load gives.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "base/error.h"
#include "generate/session_preload.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const char* name) { return fs::path(OGAI_BINARY_DIR) / "multimodal" / name; }

// Loads `dir` with OGAI_PARALLEL_LOAD set to `value` (nullptr: unset, the default).
std::shared_ptr<const Model> load_with(const fs::path& dir, const char* value) {
  if (value) setenv("OGAI_PARALLEL_LOAD", value, 1);
  struct Restore {
    ~Restore() { unsetenv("OGAI_PARALLEL_LOAD"); }
  } restore;
  return Model::load(dir);
}

// An 8x8 24-bit BMP.
std::string bmp() {
  std::string b(54 + 8 * 24, '\0');
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  b[0] = 'B', b[1] = 'M';
  put32(2, static_cast<std::uint32_t>(b.size()));
  put32(10, 54), put32(14, 40), put32(18, 8), put32(22, 8);
  b[26] = 1, b[28] = 24;
  for (std::size_t i = 54; i < b.size(); ++i) b[i] = static_cast<char>(i * 37 % 251);
  return b;
}

TEST(SessionPreloadTest, ParallelLoadGeneratesWhatTheSerialLoadDoes) {
  EXPECT_TRUE(generate::SessionPreload::enabled());
  auto serial = load_with(fixture("tiny-vlm"), "0");
  auto parallel = load_with(fixture("tiny-vlm"), nullptr);
  GenerationOptions o;
  o.max_new_tokens = 12;
  o.media = {{MediaInput::Kind::kImage, bmp(), "image/bmp", "image"}};
  const auto a = serial->generate("<bos> describe <|image|> the image", o);
  const auto b = parallel->generate("<bos> describe <|image|> the image", o);
  ASSERT_EQ(a.ids.size(), 12u);
  EXPECT_EQ(a.ids, b.ids);
}

TEST(SessionPreloadTest, TakeGivesTheStartedGraphsSessionAndOpensOthersNow) {
  const fs::path dir = fixture("tiny-vlm");
  generate::SessionPreload preload({dir / "vision.onnx", dir / "embedding.onnx", dir / "vision.onnx"}, {});
  EXPECT_EQ(preload.started(), 2u);  // one start per graph
  for (const char* name : {"embedding.onnx", "vision.onnx", "audio.onnx"}) {
    const ort::Session taken = preload.take(dir / name, {});
    const ort::Session direct = ort::Session::open(dir / name, {});
    ASSERT_EQ(taken.inputs().size(), direct.inputs().size()) << name;
    for (std::size_t i = 0; i < direct.inputs().size(); ++i) EXPECT_EQ(taken.inputs()[i].name, direct.inputs()[i].name);
    EXPECT_EQ(taken.origin(), direct.origin());
  }
  // Taken once already: a second take opens the graph again rather than failing.
  EXPECT_EQ(preload.take(dir / "vision.onnx", {}).origin(), ort::Session::open(dir / "vision.onnx", {}).origin());
}

TEST(SessionPreloadTest, AnErrorWhileOpeningIsRaisedWhereTheSessionIsTaken) {
  const fs::path bad = fs::temp_directory_path() / ("ogai_preload_bad_" + std::to_string(::getpid()) + ".onnx");
  std::ofstream(bad) << "not a model";
  std::string serial_message;
  try {
    (void)ort::Session::open(bad, {});
    ADD_FAILURE() << "opened";
  } catch (const Error& e) {
    serial_message = e.what();
  }
  {
    generate::SessionPreload preload({bad, bad.string() + ".missing"}, {});
    try {
      (void)preload.take(bad, {});
      ADD_FAILURE() << "taken";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), serial_message);
    }
  }  // the missing one was never taken: dropped without a throw
  fs::remove(bad);
}

TEST(SessionPreloadTest, ABrokenSecondaryGraphFailsTheLoadLikeTheSerialLoad) {
  const fs::path dir = fs::temp_directory_path() / ("ogai_preload_pkg_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(fixture("tiny-vlm"), dir, fs::copy_options::recursive);
  std::ofstream(dir / "vision.onnx", std::ios::trunc) << "broken";
  std::string messages[2];
  const char* modes[2] = {"0", nullptr};
  for (int i = 0; i < 2; ++i) {
    try {
      (void)load_with(dir, modes[i]);
      ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
      messages[i] = e.what();
    }
  }
  EXPECT_NE(messages[0].find("vision.onnx"), std::string::npos) << messages[0];
  EXPECT_EQ(messages[0], messages[1]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ogai
