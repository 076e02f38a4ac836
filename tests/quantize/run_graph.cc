// Test tool: runs a one-input ONNX graph through ONNX Runtime (ogai's ort stage) and writes its
// first output's raw bytes, so a Python test can compare a kernel's result with NumPy.
//   quantize_run_graph MODEL INPUT_RAW DTYPE(float32|float16|int64) DIM... -- OUTPUT_RAW
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file.h"
#include "ort/session.h"

int main(int argc, char** argv) {
  using namespace ogai;
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s MODEL INPUT_RAW DTYPE DIM... -- OUTPUT_RAW\n", argv[0]);
    return 2;
  }
  try {
    const std::string dtype_text = argv[3];
    const DataType dtype = dtype_text == "float16" ? DataType::kFloat16
                           : dtype_text == "int64" ? DataType::kInt64
                                                   : DataType::kFloat32;
    ort::Shape shape;
    int i = 4;
    for (; i < argc && std::string(argv[i]) != "--"; ++i) shape.push_back(std::stoll(argv[i]));
    if (i + 1 >= argc) throw std::runtime_error("missing -- OUTPUT_RAW");
    std::string input = read_file(argv[2]);
    ort::SessionOptions options;
    options.intra_op_threads = 1;
    ort::Session session = ort::Session::open(argv[1], options);
    ort::Tensor tensor = ort::Tensor::view(dtype, shape, input.data());
    const std::vector<std::string> in_names{session.inputs().at(0).name};
    const std::vector<std::string> out_names{session.outputs().at(0).name};
    const ort::Tensor* inputs[] = {&tensor};
    std::vector<ort::Tensor> out = session.run(in_names, inputs, out_names);
    write_file(argv[i + 1],
               std::string_view(static_cast<const char*>(out[0].raw_data()), out[0].byte_size()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quantize_run_graph: %s\n", e.what());
    return 1;
  }
  return 0;
}
