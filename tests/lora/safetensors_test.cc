// The safetensors reader: the adapter fixture's PEFT file, and hostile files written to the build
// folder (truncated, a header length past the end, overlapping / gapped / oversized offsets).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "base/file.h"
#include "ogai/error.h"
#include "workflow/safetensors.h"

namespace ogai::workflow {
namespace {

namespace fs = std::filesystem;

fs::path peft_file() {
  return fs::path(OGAI_SHARED_DIR) / "conformance/metadata/fixtures/adapter/adapters/peft/adapter_model.safetensors";
}

// A file of header `json` (length written as `declared`, default its own length) and `data` bytes.
fs::path write_st(const std::string& name, const std::string& json, std::string data, std::uint64_t declared = ~0ull) {
  fs::path dir = fs::path(OGAI_BINARY_DIR) / "lora_test_files";
  fs::create_directories(dir);
  std::string bytes(8, '\0');
  const std::uint64_t n = declared == ~0ull ? json.size() : declared;
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  bytes += json + data;
  write_file(dir / name, bytes);
  return dir / name;
}

std::string error_of(const fs::path& path) {
  try {
    SafetensorsFile::open(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Safetensors, ReadsThePeftFixture) {
  const auto f = SafetensorsFile::open(peft_file());
  ASSERT_EQ(f.entries().size(), 2u);
  const auto* a = f.find("base_model.projection.lora_A.weight");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(f.floats("base_model.projection.lora_A.weight"), (std::vector<float>{1, -1}));
  EXPECT_EQ(f.floats("base_model.projection.lora_B.weight"), (std::vector<float>{0.5f, 0.25f}));
}

TEST(Safetensors, WidensHalfAndBfloat16) {
  // 1.0 and -2.0 as float16 (0x3c00, 0xc000) and bfloat16 (0x3f80, 0xc000), little-endian.
  const std::string data("\x00\x3c\x00\xc0\x80\x3f\x00\xc0", 8);
  auto path = write_st("half.safetensors",
                       R"({"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[4,8]},"__metadata__":{"format":"pt"}})",
                       data);
  const auto f = SafetensorsFile::open(path);
  EXPECT_EQ(f.floats("h"), (std::vector<float>{1, -2}));
  EXPECT_EQ(f.floats("b"), (std::vector<float>{1, -2}));
}

TEST(Safetensors, RefusesATruncatedFile) {
  // The fixture's first 100 bytes: the header length says 184, only 92 follow.
  const std::string whole = read_file(peft_file());
  fs::path dir = fs::path(OGAI_BINARY_DIR) / "lora_test_files";
  fs::create_directories(dir);
  write_file(dir / "cut.safetensors", whole.substr(0, 100));
  EXPECT_NE(error_of(dir / "cut.safetensors").find("runs past the end of the file"), std::string::npos);
  write_file(dir / "tiny.safetensors", whole.substr(0, 5));
  EXPECT_NE(error_of(dir / "tiny.safetensors").find("truncated: 5 bytes"), std::string::npos);
  // The whole header but half the data: the tensors no longer fit the data section.
  write_file(dir / "half_data.safetensors", whole.substr(0, whole.size() - 8));
  EXPECT_NE(error_of(dir / "half_data.safetensors").find("not a range inside the 8-byte data section"), std::string::npos);
}

TEST(Safetensors, RefusesAHeaderLengthOverTheFileOrTheLimit) {
  const std::string json = R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  auto over = write_st("over.safetensors", json, std::string(4, '\0'), 1000);
  const std::string e = error_of(over);
  EXPECT_NE(e.find("header length 1000 runs past the end of the file"), std::string::npos) << e;
  EXPECT_NE(e.find("over.safetensors"), std::string::npos) << e;
  auto huge = write_st("huge.safetensors", json, std::string(4, '\0'), 1ull << 40);
  EXPECT_NE(error_of(huge).find("exceeds the limit"), std::string::npos);
}

TEST(Safetensors, RefusesBadEntries) {
  struct Case {
    const char* json;
    std::size_t data;
    const char* expect;
  } cases[] = {
      {R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4, "needs 8 bytes"},
      {R"({"x":{"dtype":"Q4","shape":[1],"data_offsets":[0,4]}})", 4, "unknown dtype 'Q4'"},
      {R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4, "non-negative"},
      {R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4, "not a range"},
      {R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"y":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4,
       "must not overlap"},
      {R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 8, "trailing bytes"},
      {R"({"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4, "overflows"},
      {R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})", 4, "unknown key 'extra'"},
      {R"(["not", "an", "object"])", 0, "must be a JSON object"},
      {R"({"x":)", 0, "invalid JSON"},
  };
  int i = 0;
  for (const auto& c : cases) {
    auto path = write_st("bad" + std::to_string(i++) + ".safetensors", c.json, std::string(c.data, '\0'));
    EXPECT_NE(error_of(path).find(c.expect), std::string::npos) << c.json << " -> " << error_of(path);
  }
}

TEST(Safetensors, RefusesIntegerTensorsAsFloats) {
  auto path = write_st("int.safetensors", R"({"i":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})", std::string(4, '\0'));
  const auto f = SafetensorsFile::open(path);
  try {
    f.floats("i");
    FAIL() << "an I32 tensor was read as floats";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a float type"), std::string::npos);
  }
  EXPECT_THROW(f.floats("absent"), Error);
}

// Deterministic mutations of the fixture's bytes (flips, truncations, header length rewrites):
// each either opens and reads every tensor, or throws ogai::Error; nothing else.
TEST(Safetensors, MutatedFilesOnlyThrowOgaiErrors) {
  const std::string whole = read_file(peft_file());
  fs::path dir = fs::path(OGAI_BINARY_DIR) / "lora_test_files";
  fs::create_directories(dir);
  const fs::path path = dir / "mutated.safetensors";
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int opened = 0, refused = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bytes = whole;
    switch (next() % 3) {
      case 0:
        bytes[next() % bytes.size()] = static_cast<char>(next());
        break;
      case 1:
        bytes.resize(next() % bytes.size());
        break;
      default:
        bytes[next() % 8] = static_cast<char>(next());
    }
    write_file(path, bytes);
    try {
      const auto f = SafetensorsFile::open(path);
      for (const auto& [name, e] : f.entries())
        if (e.dtype == DataType::kFloat32 || e.dtype == DataType::kFloat16 || e.dtype == DataType::kBfloat16) f.floats(name);
      ++opened;
    } catch (const Error&) {
      ++refused;
    }
  }
  EXPECT_EQ(opened + refused, 400);
  EXPECT_GT(refused, 100);  // most mutations break the file
  EXPECT_GT(opened, 0);     // flips inside the data leave it readable
}

}  // namespace
}  // namespace ogai::workflow
