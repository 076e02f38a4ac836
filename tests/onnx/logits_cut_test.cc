// The logits cut (onnx/logits_cut.h) and the wire-level model split under it (onnx/model_split.h):
// what the rewrite recognises, what it declines and why, that embedded weights become references
// to their own bytes, and that ONNX Runtime running the rewritten stories260k graph gives exactly
// the rows of the original run that `keep` asks for.
#include <gtest/gtest.h>
#include <google/protobuf/util/message_differencer.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "base/error.h"
#include "base/file.h"
#include "onnx/logits_cut.h"
#include "onnx/model_split.h"
#include "ort/session.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kStories = fs::path(OGAI_SHARED_DIR) / "models/stories260k/model.onnx";
const fs::path kFixtures = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages";

::onnx::ModelProto parse(const std::string& bytes) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

const ::onnx::NodeProto* producer(const ::onnx::GraphProto& g, const std::string& tensor) {
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == tensor) return &n;
  return nullptr;
}

// The skeleton of `path` and its initializers, with the bytes they view kept alive.
struct Loaded {
  explicit Loaded(const fs::path& path) : file(path), split(onnx::split_model(file.view(), path.string())) {}
  MappedFile file;
  onnx::SplitModel split;
  std::string declined(const std::string& logits = "logits") {
    return onnx::rewrite_logits_cut(split.skeleton, split.initializers, logits);
  }
};

TEST(LogitsCutTest, SplitAndJoinWithoutReferencesIsTheSameModel) {
  MappedFile file(kStories);
  onnx::SplitModel split = onnx::split_model(file.view(), kStories.string());
  EXPECT_EQ(split.skeleton.graph().initializer_size(), 0);
  EXPECT_FALSE(split.initializers.empty());
  const std::string joined = onnx::join_model(split.skeleton, split.initializers, {}, "stories");
  ::onnx::ModelProto original, rejoined = parse(joined);
  ASSERT_TRUE(original.ParseFromArray(file.data(), static_cast<int>(file.size())));
  google::protobuf::util::MessageDifferencer same;
  same.TreatAsSet(::onnx::GraphProto::descriptor()->FindFieldByName("initializer"));
  EXPECT_TRUE(same.Compare(original, rejoined));
}

TEST(LogitsCutTest, StoriesHeadIsCutAndItsWeightsStayInTheFile) {
  onnx::LogitsCut cut = onnx::cut_logits(kStories, "logits");
  ASSERT_TRUE(cut.model) << cut.declined;
  MappedFile file(kStories);
  EXPECT_LT(cut.model->size(), file.size() / 4);  // the weights are referenced, not copied
  const ::onnx::ModelProto m = parse(*cut.model);
  const auto& g = m.graph();
  const auto& keep = g.input(g.input_size() - 1);
  EXPECT_EQ(keep.name(), onnx::kLogitsKeepInput);
  EXPECT_EQ(keep.type().tensor_type().elem_type(), ::onnx::TensorProto::INT64);
  for (const auto& o : g.output())
    if (o.name() == "logits") {
      EXPECT_EQ(o.type().tensor_type().shape().dim(1).dim_param(), "ogai_logits_positions");
    }
  const ::onnx::NodeProto* head = producer(g, "logits");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->input(0), "ogai_logits_cut/hidden");
  const ::onnx::NodeProto* slice = producer(g, head->input(0));
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->op_type(), "Slice");
  ::onnx::ModelProto original;
  ASSERT_TRUE(original.ParseFromArray(file.data(), static_cast<int>(file.size())));
  int referenced = 0;
  for (const auto& t : g.initializer()) {
    if (t.data_location() != ::onnx::TensorProto::EXTERNAL) continue;
    std::map<std::string, std::string> entries;
    for (const auto& e : t.external_data()) entries[e.key()] = e.value();
    ASSERT_EQ(entries["location"], "model.onnx");
    const std::size_t offset = std::stoull(entries["offset"]), length = std::stoull(entries["length"]);
    ASSERT_LE(offset + length, file.size());
    for (const auto& o : original.graph().initializer()) {
      if (o.name() != t.name()) continue;
      ASSERT_EQ(o.raw_data().size(), length) << t.name();
      EXPECT_EQ(std::memcmp(o.raw_data().data(), file.data() + offset, length), 0) << t.name();
      ++referenced;
    }
  }
  EXPECT_GT(referenced, 5);
}

// stories260k's graph, run by ONNX Runtime on a 5-token prompt with an empty past.
std::vector<ort::Tensor> run_stories(const ort::Session& s, const std::vector<std::int64_t>* keep) {
  const std::vector<std::int64_t> ids = {1, 403, 407, 261, 378}, mask(5, 1), positions = {0, 1, 2, 3, 4};
  std::vector<std::string> names = {"input_ids", "attention_mask", "position_ids"};
  std::vector<ort::Tensor> feeds;
  feeds.push_back(ort::Tensor::copy_of(std::span<const std::int64_t>(ids), {1, 5}));
  feeds.push_back(ort::Tensor::copy_of(std::span<const std::int64_t>(mask), {1, 5}));
  feeds.push_back(ort::Tensor::copy_of(std::span<const std::int64_t>(positions), {1, 5}));
  for (int layer = 0; layer < 5; ++layer)
    for (const char* kind : {"key", "value"}) {
      names.push_back("past_key_values." + std::to_string(layer) + "." + kind);
      feeds.push_back(ort::Tensor::zeros(DataType::kFloat32, {1, 4, 0, 8}));
    }
  if (keep != nullptr) {
    names.push_back(onnx::kLogitsKeepInput);
    feeds.push_back(ort::Tensor::copy_of(std::span<const std::int64_t>(*keep), {1}));
  }
  std::vector<const ort::Tensor*> inputs;
  for (const auto& f : feeds) inputs.push_back(&f);
  const std::vector<std::string> outputs = {"logits"};
  return s.run(names, inputs, outputs);
}

TEST(LogitsCutTest, CutGraphComputesExactlyTheKeptRows) {
  onnx::LogitsCut cut = onnx::cut_logits(kStories, "logits");
  ASSERT_TRUE(cut.model) << cut.declined;
  ort::Session whole = ort::Session::open(kStories);
  ort::Session cut_session = ort::Session::from_bytes(*cut.model, {}, kStories.parent_path(), "cut stories260k");
  const ort::Tensor reference = std::move(run_stories(whole, nullptr)[0]);
  ASSERT_EQ(reference.shape(), (ort::Shape{1, 5, 512}));
  const auto all = reference.span<float>();
  for (std::int64_t keep : {0, 1, 2, 5, 9}) {
    SCOPED_TRACE("keep " + std::to_string(keep));
    const std::vector<std::int64_t> k = {keep};
    const ort::Tensor logits = std::move(run_stories(cut_session, &k)[0]);
    const std::int64_t rows = keep == 0 || keep > 5 ? 5 : keep;
    ASSERT_EQ(logits.shape(), (ort::Shape{1, rows, 512}));
    const auto got = logits.span<float>();
    const std::size_t first = static_cast<std::size_t>(5 - rows) * 512;
    EXPECT_EQ(std::memcmp(got.data(), all.data() + first, got.size() * sizeof(float)), 0);  // bit for bit
  }
}

TEST(LogitsCutTest, FixtureHeadsWithSoftcapAndExternalDataAreCut) {
  for (const char* name : {"tiny-e2b", "tiny-e2b-fp16", "tiny-moe", "tiny-recurrent", "tiny-static"}) {
    SCOPED_TRACE(name);
    onnx::LogitsCut cut = onnx::cut_logits(kFixtures / name / "model.onnx", "logits");
    ASSERT_TRUE(cut.model) << cut.declined;
    const ::onnx::ModelProto m = parse(*cut.model);
    const ::onnx::NodeProto* node = producer(m.graph(), "logits");
    while (node != nullptr && node->op_type() != "MatMul") node = producer(m.graph(), node->input(0));
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->input(0), "ogai_logits_cut/hidden");
  }
}

TEST(LogitsCutTest, DeclinesWhatItCannotProveAndLeavesTheGraphAlone) {
  struct Case {
    const char* what;
    std::function<void(::onnx::ModelProto&)> change;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"logits read by another node",
       [](::onnx::ModelProto& m) {
         auto* n = m.mutable_graph()->add_node();
         n->set_op_type("ArgMax");
         n->add_input("logits");
         n->add_output("best");
       },
       "also read by other nodes"},
      {"weights from an input",
       [](::onnx::ModelProto& m) {
         for (auto& n : *m.mutable_graph()->mutable_node())
           if (n.output(0) == "logits") n.set_input(1, "input_ids");
       },
       "not a MatMul or MatMulNBits over constant weights"},
      {"fixed sequence",
       [](::onnx::ModelProto& m) {
         for (auto& o : *m.mutable_graph()->mutable_output())
           if (o.name() == "logits") o.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(1);
       },
       "fixed sequence dimension"},
      {"old opset",
       [](::onnx::ModelProto& m) {
         for (auto& o : *m.mutable_opset_import())
           if (o.domain().empty()) o.set_version(9);
       },
       "opset 9"},
      {"name taken",
       [](::onnx::ModelProto& m) { m.mutable_graph()->add_input()->set_name(onnx::kLogitsKeepInput); },
       "already names"},
      {"no such output", [](::onnx::ModelProto& m) { m.mutable_graph()->mutable_output(0)->set_name("scores"); },
       "is not a graph output"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Loaded model(kStories);
    c.change(model.split.skeleton);
    const std::string before = model.split.skeleton.SerializeAsString();
    const std::string why = model.declined();
    EXPECT_NE(why.find(c.reason), std::string::npos) << why;
    EXPECT_EQ(model.split.skeleton.SerializeAsString(), before);
  }
}

TEST(LogitsCutTest, DeclinesASoftcapStepAnotherOutputReads) {
  Loaded model(kFixtures / "tiny-e2b/model.onnx");
  auto* g = model.split.skeleton.mutable_graph();
  const ::onnx::NodeProto* tanh = nullptr;
  for (const auto& n : g->node())
    if (n.op_type() == "Tanh") tanh = &n;
  ASSERT_NE(tanh, nullptr);
  g->add_output()->set_name(tanh->output(0));
  EXPECT_NE(model.declined().find("also used elsewhere"), std::string::npos);
}

TEST(LogitsCutTest, BrokenFilesAreErrorsNotCrashes) {
  const fs::path dir = fs::path(OGAI_BINARY_DIR) / "logits_cut_test";
  fs::create_directories(dir);
  MappedFile file(kStories);
  const std::vector<std::pair<std::string, std::string>> broken = {
      {"truncated.onnx", std::string(file.view().substr(0, file.size() / 2))},
      {"garbage.onnx", std::string(4096, '\xff')},
      {"empty.onnx", std::string()},
  };
  for (const auto& [name, bytes] : broken) {
    SCOPED_TRACE(name);
    std::ofstream(dir / name, std::ios::binary) << bytes;
    EXPECT_THROW(onnx::cut_logits(dir / name, "logits"), Error);
  }
}

}  // namespace
}  // namespace ogai
