// `ogai preprocess SOURCE (--image FILE | --audio FILE)... [--out DIR]`: runs a package's
// `preprocessing.image` / `preprocessing.audio` programs (src/media) on media files, the tool
// users and tests compare against their Python pipeline.
//   SOURCE: a package directory or metadata file, or an ONNX Runtime GenAI folder (imported in
//           memory, as every command loads it); it is validated as `ogai validate` would.
//   Prints one line per produced tensor: `NAME DTYPE [d0, d1, ...]`, images first (in the order
//   given), then audio clips. When a modality has several files, each tensor name gets `.K` (the
//   file's 0-based position among that modality's files).
//   --out DIR: also writes each tensor as DIR/NAME.npy (bfloat16 widened to float32, npy_write.h),
//           creating DIR. Every file is created exclusively: a file of the same name already there
//           is refused by name before anything is written, and never replaced.
// Exit 0 done, 1 the package or a media file was refused, 2 usage or unreadable input.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/half.h"
#include "base/input_file.h"
#include "cli/command.h"
#include "cli/npy_write.h"
#include "media/audio/program.h"
#include "media/image/program.h"
#include "metadata/contract.h"
#include "metadata/package.h"
#include "ort/tensor.h"

namespace ogai::cli {
namespace {

struct PreprocessFlags {
  std::string source, out;
  std::vector<std::string> images, audio;
};

struct Produced {
  std::string name;
  DataType dtype = DataType::kFloat32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;
};

std::string suffix(std::size_t index, std::size_t count) {
  return count > 1 ? "." + std::to_string(index) : std::string();
}

const nlohmann::json& program_section(const metadata::Package& package, const char* modality,
                                      const std::string& source, const char* flag) {
  const nlohmann::json& pre = package.document.preprocessing;
  if (!pre.is_object() || !pre.contains(modality))
    fail(ErrorCode::kInvalidArgument, source, "has no preprocessing.{} program for {}", modality, flag);
  return pre[modality];
}

std::string read_media(const std::string& file, std::uint64_t max_bytes) {
  return read_file(file, max_bytes);
}

void run_images(const metadata::Package& package, const PreprocessFlags& f, std::vector<Produced>& out) {
  if (f.images.empty()) return;
  const auto program = media::ImageProgram::parse(program_section(package, "image", f.source, "--image"),
                                                  "preprocessing.image");
  const media::ImageLimits limits;
  for (std::size_t i = 0; i < f.images.size(); ++i) {
    const std::string bytes = read_media(f.images[i], limits.max_encoded_bytes);
    const std::span<const std::uint8_t> encoded(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    for (auto& t : program.run(encoded, "--image " + f.images[i], limits))
      out.push_back({t.name + suffix(i, f.images.size()), t.dtype, std::move(t.shape), std::move(t.data)});
  }
}

// An audio tensor in its binding's dtype, converted as the audio-preprocess adapter converts it
// (integers to int64 / int32 / bool, floats to float32 / float16 / bfloat16).
Produced audio_tensor(media::audio::AudioTensor t, const std::string& dtype_text, const std::string& name) {
  const DataType dtype = metadata::canonical_dtype(dtype_text).value_or(t.integer ? DataType::kInt64 : DataType::kFloat32);
  Produced p{name, dtype, std::move(t.shape), {}};
  const bool integer_dtype = dtype == DataType::kInt64 || dtype == DataType::kInt32 || dtype == DataType::kBool;
  if (t.integer && !integer_dtype) t.f32.assign(t.i64.begin(), t.i64.end());
  if (!t.integer && integer_dtype)
    for (float x : t.f32) t.i64.push_back(static_cast<std::int64_t>(x));
  const std::size_t n = integer_dtype ? t.i64.size() : t.f32.size();
  p.data.resize(n * dtype_size(dtype));
  if (dtype == DataType::kInt64) {
    std::memcpy(p.data.data(), t.i64.data(), p.data.size());
  } else if (dtype == DataType::kInt32) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::int32_t>(t.i64[i]);
      std::memcpy(p.data.data() + i * 4, &v, 4);
    }
  } else if (dtype == DataType::kBool) {
    for (std::size_t i = 0; i < n; ++i) p.data[i] = t.i64[i] != 0 ? 1 : 0;
  } else if (dtype == DataType::kFloat32) {
    std::memcpy(p.data.data(), t.f32.data(), p.data.size());
  } else {
    convert_floats(t.f32.data(), DataType::kFloat32, p.data.data(), dtype, n);
  }
  return p;
}

void run_audio(const metadata::Package& package, const PreprocessFlags& f, std::vector<Produced>& out) {
  if (f.audio.empty()) return;
  const auto program = media::audio::parse_audio_program(program_section(package, "audio", f.source, "--audio"),
                                                         "preprocessing.audio");
  const media::audio::DecodeLimits limits;
  for (std::size_t i = 0; i < f.audio.size(); ++i) {
    const std::string bytes = read_media(f.audio[i], kMaxFileBytes);
    const std::span<const std::uint8_t> encoded(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    auto tensors = program.run(encoded, "--audio " + f.audio[i], limits);
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      const std::string name = tensors[k].name + suffix(i, f.audio.size());
      out.push_back(audio_tensor(std::move(tensors[k]), program.outputs()[k].dtype, name));
    }
  }
}

// A tensor name as a file name: refused when it could leave DIR or hide itself.
std::filesystem::path npy_path(const std::string& dir, const std::string& name) {
  const bool safe = !name.empty() && name[0] != '.' && name.find_first_not_of(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
  if (!safe)
    fail(ErrorCode::kInvalidArgument, "--out", "tensor name '{}' is not a plain file name (letters, digits, '.', '_', "
         "'-', not starting with '.')", name);
  return std::filesystem::path(dir) / (name + ".npy");
}

void write_out(const std::string& dir, const std::vector<Produced>& tensors) {
  std::vector<std::filesystem::path> paths;
  for (const auto& t : tensors) {
    paths.push_back(npy_path(dir, t.name));
    for (std::size_t k = 0; k + 1 < paths.size(); ++k)
      if (paths[k] == paths.back()) fail(ErrorCode::kInvalidArgument, paths.back().string(), "two tensors share this name");
    std::error_code ec;
    if (std::filesystem::symlink_status(paths.back(), ec).type() != std::filesystem::file_type::not_found)
      fail(ErrorCode::kInvalidArgument, paths.back().string(), "already exists; ogai preprocess never replaces a file");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(ErrorCode::kInvalidArgument, "--out " + dir, "cannot create the folder: {}", ec.message());
  for (std::size_t i = 0; i < tensors.size(); ++i)
    write_npy_exclusive(paths[i], tensors[i].dtype, tensors[i].shape, tensors[i].data);
}

int run_preprocess(const PreprocessFlags& f) {
  if (f.images.empty() && f.audio.empty()) {
    std::fputs("ogai preprocess: give at least one --image FILE or --audio FILE\n", stderr);
    return kExitUsage;
  }
  std::vector<Produced> tensors;
  try {
    const metadata::Package package = metadata::load_package(f.source);
    run_images(package, f, tensors);
    run_audio(package, f, tensors);
  } catch (const Error& e) {  // a file or package that is not there: unreadable input
    if (e.code() != ErrorCode::kNotFound) throw;
    std::fprintf(stderr, "ogai preprocess: %s\n", e.what());
    return kExitUsage;
  }
  if (!f.out.empty()) write_out(f.out, tensors);
  for (const auto& t : tensors)
    std::printf("%s %s %s\n", t.name.c_str(), std::string(dtype_name(t.dtype)).c_str(),
                ort::shape_string(t.shape).c_str());
  return kExitOk;
}

}  // namespace

void add_preprocess_command(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<PreprocessFlags>();
  auto* cmd = app.add_subcommand("preprocess", "run a package's image / audio preprocessing programs on media files "
                                               "and print (or write as .npy) the tensors they make");
  cmd->add_option("SOURCE", flags->source, "package directory, metadata file or ONNX Runtime GenAI folder")->required();
  cmd->add_option("--image", flags->images, "an image file (PNG, JPEG, WebP, GIF, BMP); repeatable");
  cmd->add_option("--audio", flags->audio, "an audio file (WAV, FLAC, Ogg, MP3); repeatable");
  cmd->add_option("--out", flags->out, "write each tensor as DIR/NAME.npy (existing files are refused)");
  cmd->callback([&result, flags] { result.exit_code = run_preprocess(*flags); });
}

}  // namespace ogai::cli
