// Reading a graph's interface vs. creating an ONNX Runtime session, on a model with ~1 GB of
// embedded initializers generated into the build folder. The reader must not touch the weights:
// goal, reader time < 1% of session creation. Prints both times, the ratio and peak RSS.
//   graph_reader_bench [MODEL_PATH] [--mib N]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/bench_util.h"
#include "bench/big_model.h"
#include "onnx/graph_info.h"
#include "ort/session.h"

int main(int argc, char** argv) {
  using namespace ogai;
  std::filesystem::path model = "bench_data/big_1gb.onnx";
  std::size_t mib = 1024;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--mib" && i + 1 < argc) mib = std::strtoul(argv[++i], nullptr, 10);
    else model = arg;
  }
  bench::write_big_model(model, mib << 20);
  onnx::GraphInfo info;
  double read_s = bench::time_best(5, [&] { info = onnx::read_graph_info(model); });
  double rss_after_read = bench::peak_rss_mib();
  ort::SessionOptions options;
  options.intra_op_threads = 1;
  double ort_s = bench::time_once([&] { ort::Session s = ort::Session::open(model, options); });
  double rss_after_ort = bench::peak_rss_mib();
  std::printf("model: %s (%zu MiB of initializers, %zu inputs, %zu outputs)\n", model.c_str(), mib,
              info.inputs.size(), info.outputs.size());
  std::printf("graph reader:        %10.3f ms   peak RSS %8.1f MiB\n", read_s * 1e3, rss_after_read);
  std::printf("ORT session create:  %10.3f ms   peak RSS %8.1f MiB\n", ort_s * 1e3, rss_after_ort);
  std::printf("ratio reader/ORT:    %10.5f  (goal < 0.01)\n", read_s / ort_s);
  return read_s / ort_s < 0.01 ? 0 : 1;
}
