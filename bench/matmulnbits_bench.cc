// ONNX Runtime's 4-bit kernel on its own: the MatMuls of bench/quantize_bench.py's ~100M model
// (hidden 768, KV width 256, FFN 2048, vocabulary 512, 16 layers) as bare graphs of independent
// MatMul nodes, fp32 `MatMul` vs com.microsoft `MatMulNBits` (weights from ogai's quantizer),
// timed per Session::Run in one process, no ogai runtime in the loop:
//
//   matmulnbits_bench [--m 1,32] [--configs 32:4,64:4,128:4,32:0] [--layers 16] [--runs N]
//                     [--calls N] [--threads N] [--shapes] [--fused] [--zero-points]
//                     [--config KEY=VALUE]... [--max-error E]
//
// Rows: the layers' MatMul set per run (112 nodes; --fused: Q|K|V and gate|up as one wide node
// each, 64 nodes), and with --shapes each distinct [K x N] alone, `layers` copies per run.
// Times are thread CPU time (intra-op threads 1 runs on the calling thread, so a loaded machine's
// waits are not counted; with more threads the wall clock is printed instead): --runs rounds,
// each running every configuration in turn (one untimed run to bring its weights back into the
// caches, as a decode loop finds them, then the mean of --calls runs); the median over rounds.
// The ratio is fp32 time / 4-bit time: the speed-up the kernel itself allows, the ceiling of a
// whole-model decode (M = 1) or prefill (M = prompt length) ratio. `--config` passes session
// config entries (e.g. session.disable_prepacking=1) to the 4-bit sessions; --zero-points adds,
// per configuration, a row whose nodes also take the default zero point 8 as an explicit
// zero_points input. Each row also prints the 4-bit outputs' relative error against fp32's on the
// same weights (both sides must compute the same product); above --max-error (default 0.25) the
// program exits 1. Cost: seconds per row at the defaults; ~1 GB of memory for 16 layers.
#include <onnx/onnx_pb.h>
#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "quantize/block_quant.h"

namespace {

using ogai::quantize::BlockQuantOptions;

struct Shape {
  const char* name;
  std::int64_t k, n;
  int input;  // 0: the hidden-width input X [M, 768]; 1: the FFN-width input H [M, 2048]
};

constexpr std::int64_t kHidden = 768, kKv = 256, kFfn = 2048, kVocab = 512;

std::vector<Shape> layer_shapes(bool fused) {
  if (fused)
    return {{"qkv", kHidden, kHidden + 2 * kKv, 0},
            {"o", kHidden, kHidden, 0},
            {"gate_up", kHidden, 2 * kFfn, 0},
            {"down", kFfn, kHidden, 1}};
  return {{"q", kHidden, kHidden, 0}, {"k", kHidden, kKv, 0},   {"v", kHidden, kKv, 0},    {"o", kHidden, kHidden, 0},
          {"gate", kHidden, kFfn, 0}, {"up", kHidden, kFfn, 0}, {"down", kFfn, kHidden, 1}};
}

struct Config {
  int block = 0, level = 0;  // block 0: fp32 MatMul
  bool zero_points = false;  // write the default zero point 8 as an explicit input
};

void add_value(::onnx::ValueInfoProto* v, const std::string& name, std::int64_t d0, std::int64_t d1) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(d0);
  t->mutable_shape()->add_dim()->set_dim_value(d1);
}

void add_init(::onnx::GraphProto* g, const std::string& name, int dtype, std::vector<std::int64_t> dims,
              const void* data, std::size_t bytes) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(dtype);
  for (auto d : dims) t->add_dims(d);
  t->set_raw_data(data, bytes);
}

void add_attr(::onnx::NodeProto* node, const char* name, std::int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
}

// One graph: inputs X [M, 768] and H [M, 2048], one node per (copy, shape), every output a graph
// output. Weights are random normal / sqrt(K) from a fixed seed.
std::string build_model(const std::vector<Shape>& shapes, int copies, std::int64_t m, const Config& c) {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("ogai-bench");
  model.add_opset_import()->set_version(17);
  auto* ms = model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  auto* g = model.mutable_graph();
  g->set_name("matmuls");
  add_value(g->add_input(), "X", m, kHidden);
  add_value(g->add_input(), "H", m, kFfn);
  std::mt19937 rng(20261202);
  std::normal_distribution<float> normal;
  for (int copy = 0; copy < copies; ++copy) {
    for (const Shape& s : shapes) {
      const std::string name = std::string(s.name) + "_" + std::to_string(copy);
      std::vector<float> w(static_cast<std::size_t>(s.k * s.n));
      const float scale = 1.0f / std::sqrt(static_cast<float>(s.k));
      for (auto& x : w) x = normal(rng) * scale;
      auto* node = g->add_node();
      node->set_name(name);
      node->add_input(s.input == 0 ? "X" : "H");
      node->add_output(name + "_out");
      add_value(g->add_output(), name + "_out", m, s.n);
      if (c.block == 0) {
        node->set_op_type("MatMul");
        node->add_input(name + "_w");
        add_init(g, name + "_w", ::onnx::TensorProto::FLOAT, {s.k, s.n}, w.data(), w.size() * 4);
        continue;
      }
      BlockQuantOptions o;
      o.block_size = c.block;
      auto q = ogai::quantize::quantize_columns(w.data(), ogai::DataType::kFloat32, s.k, s.n, o);
      node->set_op_type("MatMulNBits");
      node->set_domain("com.microsoft");
      node->add_input(name + "_q4");
      node->add_input(name + "_scales");
      add_init(g, name + "_q4", ::onnx::TensorProto::UINT8, {q.rows, q.blocks, c.block / 2}, q.codes.data(),
               q.codes.size());
      add_init(g, name + "_scales", ::onnx::TensorProto::FLOAT, {q.rows * q.blocks}, q.scales.data(),
               q.scales.size() * 4);
      if (c.zero_points) {
        std::vector<std::uint8_t> zp(static_cast<std::size_t>(q.rows * q.zero_point_bytes_per_row()), 0x88);
        node->add_input(name + "_zp");
        add_init(g, name + "_zp", ::onnx::TensorProto::UINT8, {static_cast<std::int64_t>(zp.size())}, zp.data(),
                 zp.size());
      }
      add_attr(node, "K", s.k);
      add_attr(node, "N", s.n);
      add_attr(node, "bits", 4);
      add_attr(node, "block_size", c.block);
      add_attr(node, "accuracy_level", c.level);
    }
  }
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

struct Runner {
  Ort::Session session{nullptr};
  std::vector<std::string> out_names;
  std::vector<const char*> out_c;
  std::vector<float> x, h;
  std::int64_t m = 1;

  Runner(Ort::Env& env, const std::string& bytes, std::int64_t rows, int threads,
         const std::vector<std::pair<std::string, std::string>>& config)
      : m(rows) {
    Ort::SessionOptions so;
    so.SetIntraOpNumThreads(threads);
    so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
    for (const auto& [k, v] : config) so.AddConfigEntry(k.c_str(), v.c_str());
    session = Ort::Session(env, bytes.data(), bytes.size(), so);
    Ort::AllocatorWithDefaultOptions alloc;
    for (std::size_t i = 0; i < session.GetOutputCount(); ++i)
      out_names.push_back(session.GetOutputNameAllocated(i, alloc).get());
    for (auto& n : out_names) out_c.push_back(n.c_str());
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    x.resize(static_cast<std::size_t>(m * kHidden));
    h.resize(static_cast<std::size_t>(m * kFfn));
    for (auto& v : x) v = normal(rng);
    for (auto& v : h) v = normal(rng);
  }

  std::vector<Ort::Value> run() {
    auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
    std::int64_t xs[] = {m, kHidden}, hs[] = {m, kFfn};
    Ort::Value in[] = {Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), xs, 2),
                       Ort::Value::CreateTensor<float>(mem, h.data(), h.size(), hs, 2)};
    const char* in_names[] = {"X", "H"};
    return session.Run(Ort::RunOptions{nullptr}, in_names, in, 2, out_c.data(), out_c.size());
  }

  // Every output of one run, concatenated.
  std::vector<float> outputs() {
    std::vector<float> all;
    for (auto& v : run()) {
      const float* data = v.GetTensorData<float>();
      all.insert(all.end(), data, data + v.GetTensorTypeAndShapeInfo().GetElementCount());
    }
    return all;
  }
};

// ||q - ref|| / ||ref|| over all outputs: the 4-bit nodes' error against the fp32 ones on the
// same weights (RTN 4-bit on normal weights: ~0.1; a wrong layout: ~1).
double relative_error(const std::vector<float>& q, const std::vector<float>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(q[i]) - ref[i];
    diff += d * d;
    norm += static_cast<double>(ref[i]) * ref[i];
  }
  return std::sqrt(diff / norm);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

struct Args {
  std::vector<std::int64_t> ms = {1, 32};
  std::vector<Config> configs = {{32, 4}, {64, 4}, {128, 4}, {32, 0}};
  int layers = 16, runs = 15, threads = 1, calls = 3;
  double max_error = 0.25;
  bool shapes = false, fused = false, zero_points = false;
  std::vector<std::pair<std::string, std::string>> config;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string f = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", f.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (f == "--m") {
      a.ms.clear();
      for (auto& s : split(next(), ',')) a.ms.push_back(std::stoll(s));
    } else if (f == "--configs") {
      a.configs.clear();
      for (auto& s : split(next(), ',')) {
        auto parts = split(s, ':');
        if (parts.size() != 2) {
          std::fprintf(stderr, "--configs: '%s' is not BLOCK:LEVEL\n", s.c_str());
          std::exit(2);
        }
        a.configs.push_back({std::stoi(parts[0]), std::stoi(parts[1])});
      }
    } else if (f == "--layers") {
      a.layers = std::stoi(next());
    } else if (f == "--runs") {
      a.runs = std::stoi(next());
    } else if (f == "--max-error") {
      a.max_error = std::stod(next());
    } else if (f == "--calls") {
      a.calls = std::stoi(next());
    } else if (f == "--threads") {
      a.threads = std::stoi(next());
    } else if (f == "--shapes") {
      a.shapes = true;
    } else if (f == "--zero-points") {
      a.zero_points = true;
    } else if (f == "--fused") {
      a.fused = true;
    } else if (f == "--config") {
      auto kv = next();
      auto eq = kv.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "--config: '%s' is not KEY=VALUE\n", kv.c_str());
        std::exit(2);
      }
      a.config.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else {
      std::fprintf(stderr, "unknown flag %s (see the comment at the top of bench/matmulnbits_bench.cc)\n", f.c_str());
      std::exit(2);
    }
  }
  return a;
}

// Times fp32 and each 4-bit configuration on the same node set, interleaved; prints one row each.
// Returns the largest relative error of a 4-bit configuration's outputs against fp32's.
double measure(Ort::Env& env, const Args& a, const char* label, const std::vector<Shape>& shapes, int copies,
               std::int64_t m) {
  std::vector<Config> all = {{0, 0}};
  for (Config c : a.configs) {
    all.push_back(c);
    if (a.zero_points) all.push_back({c.block, c.level, true});
  }
  std::vector<Runner> runners;
  for (const Config& c : all)
    runners.emplace_back(env, build_model(shapes, copies, m, c), m, a.threads,
                         c.block == 0 ? std::vector<std::pair<std::string, std::string>>{} : a.config);
  const std::vector<float> reference = runners[0].outputs();
  std::vector<double> errors(all.size(), 0.0);
  for (std::size_t c = 1; c < all.size(); ++c) errors[c] = relative_error(runners[c].outputs(), reference);
  std::vector<std::vector<double>> times(all.size());
  // Each round runs every configuration in turn: one untimed run that brings its weights back
  // into the caches (the previous configuration evicted them, while a decode loop keeps reading
  // the same weights), then `calls` timed runs, whose mean is the round's figure.
  for (int i = 0; i < a.runs; ++i)
    for (std::size_t c = 0; c < runners.size(); ++c) {
      (void)runners[c].run();
      auto body = [&] {
        for (int k = 0; k < a.calls; ++k) (void)runners[c].run();
      };
      const double t = a.threads == 1 ? ogai::bench::thread_cpu_once(body) : ogai::bench::time_once(body);
      times[c].push_back(t / a.calls);
    }
  const double base = median(times[0]);
  for (std::size_t c = 1; c < all.size(); ++c) {
    const double t = median(times[c]);
    std::printf("| %s | %lld | %d%s | %d | %.3f | %.3f | %.2fx | %.3f |\n", label, static_cast<long long>(m),
                all[c].block, all[c].zero_points ? " (zp)" : "", all[c].level, base * 1e3, t * 1e3, base / t,
                errors[c]);
  }
  std::fflush(stdout);
  return *std::max_element(errors.begin(), errors.end());
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "matmulnbits_bench");
  std::printf("threads %d, median of %d rounds of %d runs (%s), %d layers%s\n", a.threads, a.runs, a.calls,
              a.threads == 1 ? "thread CPU time" : "wall clock", a.layers, a.fused ? ", Q|K|V and gate|up fused" : "");
  std::printf(
      "| nodes | M | block | level | fp32 ms/run | 4-bit ms/run | fp32/4-bit | rel. error |\n"
      "|---|---|---|---|---|---|---|---|\n");
  double worst = 0;
  auto shapes = layer_shapes(a.fused);
  for (std::int64_t m : a.ms) {
    const std::string label = "layers (" + std::to_string(shapes.size() * a.layers) + " nodes)";
    worst = std::max(worst, measure(env, a, label.c_str(), shapes, a.layers, m));
    if (!a.shapes) continue;
    for (const Shape& s : shapes) {
      std::string l =
          std::string(s.name) + " " + std::to_string(s.k) + "x" + std::to_string(s.n) + " x" + std::to_string(a.layers);
      worst = std::max(worst, measure(env, a, l.c_str(), {s}, a.layers, m));
    }
    Shape head{"lm_head", kHidden, kVocab, 0};
    worst =
        std::max(worst, measure(env, a, ("lm_head 768x512 x" + std::to_string(a.layers)).c_str(), {head}, a.layers, m));
  }
  if (worst > a.max_error) {
    std::fprintf(stderr, "4-bit outputs differ from fp32 by %.3f (relative), more than --max-error %.3f\n", worst,
                 a.max_error);
    return 1;
  }
  return 0;
}
