#include "bench/big_model.h"

#include <onnx/onnx_pb.h>

#include <fstream>

#include "base/error.h"

namespace ogai::bench {

void write_big_model(const std::filesystem::path& path, std::size_t bytes) {
  constexpr std::int64_t kCols = 4096;
  const std::int64_t rows = static_cast<std::int64_t>(bytes / (kCols * sizeof(float)));
  std::error_code ec;
  auto expected_min = static_cast<std::uintmax_t>(rows * kCols * sizeof(float));
  if (std::filesystem::exists(path, ec) && std::filesystem::file_size(path, ec) > expected_min) return;

  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("ogai-bench");
  model.add_opset_import()->set_version(17);
  auto* graph = model.mutable_graph();
  graph->set_name("big");
  auto add_value = [](::onnx::ValueInfoProto* v, const char* name, std::int64_t d0, std::int64_t d1) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(d0);
    t->mutable_shape()->add_dim()->set_dim_value(d1);
  };
  add_value(graph->add_input(), "X", 1, rows);
  add_value(graph->add_output(), "Y", 1, kCols);
  auto* w = graph->add_initializer();
  w->set_name("W");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(rows);
  w->add_dims(kCols);
  std::string* raw = w->mutable_raw_data();
  raw->resize(static_cast<std::size_t>(rows * kCols) * sizeof(float));
  for (std::size_t i = 0; i < raw->size(); i += 4096) (*raw)[i] = static_cast<char>(i >> 12);
  auto* node = graph->add_node();
  node->set_op_type("MatMul");
  node->add_input("X");
  node->add_input("W");
  node->add_output("Y");
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!model.SerializeToOstream(&out)) fail(ErrorCode::kRuntime, path.string(), "cannot write benchmark model");
}

}  // namespace ogai::bench
