#include "generate/media_encoders.h"

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "metadata/contract.h"
#include "workflow/audio_tensor.h"

namespace ogai::generate {
namespace {

std::span<const std::uint8_t> bytes_of(const MediaInput& media) {
  return {reinterpret_cast<const std::uint8_t*>(media.bytes.data()), media.bytes.size()};
}

// The feed's shape: the produced shape, with a leading batch axis of 1 when the port has one more.
ort::Shape feed_shape(std::vector<std::int64_t> shape, const ort::PortInfo& port) {
  if (port.shape.size() == shape.size() + 1) shape.insert(shape.begin(), 1);
  return shape;
}

const ort::PortInfo& input_port(const ort::Session& s, const std::string& name) {
  const ort::PortInfo* p = s.find_input(name);
  if (p == nullptr) fail(ErrorCode::kInvalidPackage, s.origin(), "the encoder has no input '{}'", name);
  return *p;
}

}  // namespace

MediaEncoders::MediaEncoders(const metadata::MultimodalAbi& abi, const nlohmann::json& preprocessing,
                             const EmbeddingStage& embedding, const ort::SessionOptions& options,
                             SessionPreload* preload) {
  for (const auto& e : abi.encoders) {
    const bool audio = e.kind == metadata::MediaKind::kAudio;
    if (find(audio) != nullptr) continue;  // the first encoder of a kind serves it
    if (!audio && !image_) image_ = media::ImageProgram::parse(preprocessing["image"], "preprocessing.image");
    if (audio && !audio_) audio_ = media::audio::parse_audio_program(preprocessing["audio"], "preprocessing.audio");
    const auto& ports = embedding.spec().feature_inputs;
    const auto at = std::find(ports.begin(), ports.end(), e.embedding_input);
    OGAI_CHECK(at != ports.end());
    const auto port = static_cast<std::size_t>(at - ports.begin());
    Encoder enc{e, open_graph(preload, e.artifact, options), port, embedding.feature_dtype(port),
                embedding.feature_width(port)};
    const ort::PortInfo* out = enc.session.find_output(e.output);
    if (out == nullptr) fail(ErrorCode::kInvalidPackage, enc.session.origin(), "the encoder has no output '{}'", e.output);
    if (out->dtype != enc.dtype)
      fail(ErrorCode::kInvalidPackage, enc.session.origin(), "the encoder's output '{}' is {}, but the embedding's "
           "port '{}' takes {}", e.output, dtype_name(out->dtype), e.embedding_input, dtype_name(enc.dtype));
    for (const auto& in : e.inputs) input_port(enc.session, in.port);
    if (enc.session.inputs().size() != e.inputs.size())
      fail(ErrorCode::kUnsupported, e.path, "encoder '{}' has {} graph inputs but the workflow binds {}", e.component,
           enc.session.inputs().size(), e.inputs.size());
    encoders_.push_back(std::move(enc));
  }
}

const MediaEncoders::Encoder* MediaEncoders::find(bool audio) const {
  for (const auto& e : encoders_)
    if ((e.abi.kind == metadata::MediaKind::kAudio) == audio) return &e;
  return nullptr;
}

namespace {

// One image's grid_dimensions output ([1, 3] or [3] int64: t, h, w patches) and the program's
// patchify merge (Qwen2-VL's image_grid_thw and spatial_merge_size); none when not emitted.
void read_grid(const media::ImageProgram& program, const std::vector<media::ProgramTensor>& produced,
               const std::string& what, std::optional<MropeGrid>& grid, std::int64_t& merge) {
  for (const auto& t : produced) {
    if (t.content != "grid_dimensions") continue;
    if (t.dtype != DataType::kInt64 || t.data.size() != 3 * sizeof(std::int64_t))
      fail(ErrorCode::kInvalidPackage, what, "the image program's grid '{}' is {} of {} bytes, expected int64 [1, 3]",
           t.name, dtype_name(t.dtype), t.data.size());
    std::int64_t v[3];
    std::memcpy(v, t.data.data(), sizeof v);
    grid = MropeGrid{v[0], v[1], v[2]};
  }
  for (const auto& tr : program.transforms())
    if (tr.op == media::ImageProgram::Op::kPatchify) merge = tr.merge;
}

}  // namespace

bool MediaEncoders::accepts(MediaInput::Kind kind) const { return find(kind == MediaInput::Kind::kAudio) != nullptr; }

bool MediaEncoders::hd_tiles() const {
  if (!image_) return false;
  for (const auto& t : image_->transforms())
    if (t.op == media::ImageProgram::Op::kTile && t.tiling.mode == media::TileSpec::Mode::kHdTransform) return true;
  return false;
}

std::vector<ort::Tensor> MediaEncoders::image_feeds(const Encoder& e, const MediaInput& media, const std::string& what,
                                                    std::optional<MropeGrid>& grid, std::int64_t& merge) const {
  auto produced = image_->run(bytes_of(media), what, image_limits);
  read_grid(*image_, produced, what, grid, merge);
  std::vector<ort::Tensor> feeds;
  for (const auto& in : e.abi.inputs) {
    const media::ProgramTensor* t = nullptr;
    for (const auto& p : produced)
      if (p.name == in.program_output) t = &p;
    if (t == nullptr)
      fail(ErrorCode::kInvalidArgument, what, "the preprocessing.image program made no '{}' for this image",
           in.program_output);
    const ort::PortInfo& port = input_port(e.session, in.port);
    if (port.dtype != t->dtype)
      fail(ErrorCode::kInvalidPackage, e.abi.path, "encoder input '{}' is {}, but preprocessing.image output '{}' is {}",
           in.port, dtype_name(port.dtype), t->name, dtype_name(t->dtype));
    ort::Tensor feed = ort::Tensor::allocate(t->dtype, feed_shape(t->shape, port));
    if (!t->data.empty()) std::memcpy(feed.raw_data(), t->data.data(), t->data.size());
    feeds.push_back(std::move(feed));
  }
  return feeds;
}

std::vector<ort::Tensor> MediaEncoders::audio_feeds(const Encoder& e, const MediaInput& media,
                                                    const std::string& what) const {
  auto produced = audio_->run(bytes_of(media), what, audio_limits);
  std::vector<ort::Tensor> feeds;
  for (const auto& in : e.abi.inputs) {
    std::size_t index = produced.size();
    for (std::size_t i = 0; i < produced.size(); ++i)
      if (produced[i].name == in.program_output) index = i;
    if (index == produced.size())
      fail(ErrorCode::kInvalidArgument, what, "the preprocessing.audio program made no '{}' for this clip",
           in.program_output);
    const media::audio::AudioTensor& t = produced[index];
    const ort::PortInfo& port = input_port(e.session, in.port);
    // A mask feeds a bool port only from a bool output (and a bool output nothing else): the
    // declared types must agree there; numbers convert within floats and within integers.
    const auto declared = metadata::canonical_dtype(audio_->outputs()[index].dtype);
    if ((port.dtype == DataType::kBool) != (declared == DataType::kBool))
      fail(ErrorCode::kInvalidPackage, e.abi.path, "encoder input '{}' is {}, but preprocessing.audio output '{}' is {}",
           in.port, dtype_name(port.dtype), t.name, audio_->outputs()[index].dtype);
    feeds.push_back(workflow::audio_tensor_as(t, port.dtype, feed_shape(t.shape, port),
                                              e.abi.path + ": encoder input '" + in.port + "'"));
  }
  return feeds;
}

EncodedMedia MediaEncoders::run(const Encoder& e, std::vector<ort::Tensor> feeds, const std::string& what) const {
  std::vector<std::string> names, outputs{e.abi.output};
  std::vector<const ort::Tensor*> inputs;
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    names.push_back(e.abi.inputs[i].port);
    inputs.push_back(&feeds[i]);
  }
  auto result = e.session.run(names, inputs, outputs);
  const ort::Tensor& out = result[0];
  const auto& shape = out.shape();
  const bool rank_ok = shape.size() == 2 || (shape.size() == 3 && shape[0] == 1);
  if (out.dtype() != e.dtype || !rank_ok || shape.back() != e.width || out.element_count() == 0)
    fail(ErrorCode::kInvalidPackage, e.session.origin(),
         "encoder '{}' returned '{}' as {} {} for {}, expected {} [rows, {}] (or [1, rows, {}]) with rows >= 1",
         e.abi.component, e.abi.output, dtype_name(out.dtype()), ort::shape_string(shape), what, dtype_name(e.dtype),
         e.width, e.width);
  EncodedMedia m;
  m.audio = e.abi.kind == metadata::MediaKind::kAudio;
  m.port = e.port;
  m.width = e.width;
  m.rows = out.element_count() / e.width;
  m.row_bytes = static_cast<std::size_t>(e.width) * dtype_size(e.dtype);
  const auto* data = static_cast<const std::uint8_t*>(out.raw_data());
  auto features = std::make_shared<std::vector<std::uint8_t>>(data, data + out.byte_size());
  m.digest = media_digest(*features);
  m.features = std::move(features);
  m.origin = what;
  return m;
}

EncodedMedia MediaEncoders::encode(const MediaInput& media, const std::string& what) const {
  const bool audio = media.kind == MediaInput::Kind::kAudio;
  const Encoder* e = find(audio);
  if (e == nullptr)
    fail(ErrorCode::kUnsupported, what, "this package has no {} encoder", audio ? "audio" : "image");
  if (media.bytes.empty()) fail(ErrorCode::kInvalidArgument, what, "the {} is empty (0 bytes)", audio ? "audio" : "image");
  std::optional<MropeGrid> grid;
  std::int64_t merge = 1;
  EncodedMedia m = run(*e, audio ? audio_feeds(*e, media, what) : image_feeds(*e, media, what, grid, merge), what);
  m.grid = grid;
  m.merge = merge;
  return m;
}

}  // namespace ogai::generate
