// Cold start: process start to the first token, page cache warm. `ogai generate PKG --prompt-ids
// ... --max-new-tokens 1` against bare ONNX Runtime processes on the same graph (create a session
// from the file, run the prompt once, argmax), each side a fresh exec'd process, rounds alternating
// the order, medians and the median of per-round ratios.
//
//   cold_start_bench [--package DIR] [--ogai PATH] [--rounds N] [--prompt-len N] [--threads N]
//                    [--layers N --kv-heads N --head-dim N]
//
// "ogai generate, OGAI_SESSION_CACHE" runs with ogai's session cache (ort/session_cache.h) in
// <package>/../session_cache, filled by the warm-up run. The bare variants show where the time
// goes and what ONNX Runtime itself offers:
//   bare            the session as ogai creates it (all graph optimizations, weights pre-packed)
//   bare cached     the optimized model ONNX Runtime saved once (session.optimized_model_filepath,
//                   with its pre-packed weights in the external data file:
//                   session.save_external_prepacked_constant_initializers), loaded without graph
//                   optimizations: what an optimized-model cache beside the package would give
//   bare no-prepack the session with session.disable_prepacking=1 (not a remedy: decode then
//                   re-packs the weights in every run); its gap to "bare" is the pre-packing cost
// Default package: bench_data/logits_cut/llama-100m-v32k (bench/logits_cut_bench writes it; 149M
// parameters, fp32, 16 layers, 4 KV heads of 64). Benchmarks may include ONNX Runtime directly for
// their baselines only.
#include <onnxruntime_cxx_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Args {
  fs::path package = "bench_data/logits_cut/llama-100m-v32k";
  fs::path ogai = "src/cli/ogai";
  int rounds = 5, prompt_len = 16, threads = 1, layers = 16, kv_heads = 4, head_dim = 64;
};

std::vector<std::int64_t> prompt_ids(int n) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = 3 + (i * 7919) % 500;
  return ids;
}

// The child: a session on `model` with the variant's options, one run of the prompt, exit.
int bare_child(const std::string& variant, const fs::path& model, const Args& a) {
  Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "cold");
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(a.threads);
  so.SetGraphOptimizationLevel(variant == "cached" ? ORT_DISABLE_ALL : ORT_ENABLE_ALL);
  if (variant == "no-prepack") so.AddConfigEntry("session.disable_prepacking", "1");
  if (variant == "save") {
    const fs::path dir = model.parent_path() / "ort_optimized";
    fs::create_directories(dir);
    so.SetOptimizedModelFilePath((dir / "model.onnx").c_str());
    so.AddConfigEntry("session.optimized_model_external_initializers_file_name", "model.onnx.data");
    so.AddConfigEntry("session.optimized_model_external_initializers_min_size_in_bytes", "1024");
    so.AddConfigEntry("session.save_external_prepacked_constant_initializers", "1");
  }
  const fs::path path = variant == "cached" ? model.parent_path() / "ort_optimized/model.onnx" : model;
  Ort::Session session(env, path.c_str(), so);
  if (variant == "save") return 0;
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  std::vector<std::string> names = {"input_ids", "attention_mask", "position_ids"};
  std::vector<std::int64_t> ids = prompt_ids(a.prompt_len), mask(ids.size(), 1), pos(ids.size());
  for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<std::int64_t>(i);
  const std::int64_t shape[] = {1, static_cast<std::int64_t>(ids.size())};
  std::vector<Ort::Value> inputs;
  inputs.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, ids.data(), ids.size(), shape, 2));
  inputs.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, mask.data(), mask.size(), shape, 2));
  inputs.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, pos.data(), pos.size(), shape, 2));
  float empty = 0;
  const std::int64_t past_shape[] = {1, a.kv_heads, 0, a.head_dim};
  for (int l = 0; l < a.layers; ++l)
    for (const char* kind : {"key", "value"}) {
      names.push_back("past_key_values." + std::to_string(l) + "." + kind);
      inputs.push_back(Ort::Value::CreateTensor<float>(mem, &empty, 0, past_shape, 4));
    }
  std::vector<const char*> in_c;
  for (auto& n : names) in_c.push_back(n.c_str());
  const char* out_c[] = {"logits"};
  auto out = session.Run(Ort::RunOptions{nullptr}, in_c.data(), inputs.data(), inputs.size(), out_c, 1);
  const auto shape_out = out[0].GetTensorTypeAndShapeInfo().GetShape();
  const float* row = out[0].GetTensorData<float>() + (shape_out[1] - 1) * shape_out[2];
  std::printf("%ld\n", static_cast<long>(std::max_element(row, row + shape_out[2]) - row));
  return 0;
}

// Seconds from fork to the exit of `argv`; exits on failure.
double timed_exec(const std::vector<std::string>& argv) {
  std::fflush(nullptr);  // nothing buffered is written twice by the child
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::vector<char*> c;
    for (const auto& s : argv) c.push_back(const_cast<char*>(s.c_str()));
    c.push_back(nullptr);
    execv(c[0], c.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "cold_start_bench: %s failed (status %d)\n", argv[0].c_str(), status);
    std::exit(1);
  }
  return seconds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string ids_json(int n) {
  std::string out = "[";
  for (auto id : prompt_ids(n)) out += (out.size() > 1 ? "," : "") + std::to_string(id);
  return out + "]";
}

int run(const Args& a, const std::string& self) {
  setenv("OGAI_LOG", "error", 0);  // the import notes of a genai_config folder, in every ogai process
  const fs::path model = a.package / "model.onnx";
  if (!fs::exists(model)) {
    std::fprintf(stderr, "cold_start_bench: %s not found (bench/logits_cut_bench generates it)\n", model.c_str());
    return 2;
  }
  auto bare = [&](const std::string& variant) {
    return std::vector<std::string>{self,  "--child",       variant, model.string(), std::to_string(a.rounds),
                                    std::to_string(a.prompt_len), std::to_string(a.threads),
                                    std::to_string(a.layers), std::to_string(a.kv_heads), std::to_string(a.head_dim)};
  };
  std::printf("building ONNX Runtime's optimized model (once, not timed): %.1f s\n", timed_exec(bare("save")));
  const std::vector<std::string> ogai = {a.ogai.string(), "generate", a.package.string(), "--prompt-ids",
                                         ids_json(a.prompt_len), "--max-new-tokens", "1", "--threads",
                                         std::to_string(a.threads)};
  std::vector<std::string> ogai_cached = {"/usr/bin/env",
                                          "OGAI_SESSION_CACHE=" + (a.package.parent_path() / "session_cache").string()};
  ogai_cached.insert(ogai_cached.end(), ogai.begin(), ogai.end());
  const std::vector<std::pair<std::string, std::vector<std::string>>> sides = {
      {"ogai generate", ogai}, {"bare", bare("plain")}, {"ogai generate, OGAI_SESSION_CACHE", ogai_cached},
      {"bare cached", bare("cached")}, {"bare no-prepack", bare("no-prepack")}};
  for (const auto& [_, argv] : sides) timed_exec(argv);  // warm the page cache (and fill ogai's session cache)
  std::vector<std::vector<double>> seconds(sides.size());
  std::vector<std::vector<double>> ratios(sides.size());
  for (int round = 0; round < a.rounds; ++round) {
    std::vector<double> t(sides.size());
    for (std::size_t k = 0; k < sides.size(); ++k) {
      const std::size_t i = round % 2 == 0 ? k : sides.size() - 1 - k;
      t[i] = timed_exec(sides[i].second);
    }
    for (std::size_t i = 0; i < sides.size(); ++i) {
      seconds[i].push_back(t[i]);
      ratios[i].push_back(t[i] / t[1]);
    }
  }
  std::printf("%s: %d-token prompt, %d intra-op thread(s), %d rounds (order alternating)\n", a.package.c_str(),
              a.prompt_len, a.threads, a.rounds);
  std::printf("| process | start to first token, median s | / bare (median of rounds) |\n|---|---|---|\n");
  for (std::size_t i = 0; i < sides.size(); ++i)
    std::printf("| %s | %.3f | %.3f |\n", sides[i].first.c_str(), median(seconds[i]), median(ratios[i]));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  const std::string self = fs::canonical("/proc/self/exe").string();
  if (argc == 10 && std::string(argv[1]) == "--child") {
    a.rounds = std::atoi(argv[4]);
    a.prompt_len = std::atoi(argv[5]);
    a.threads = std::atoi(argv[6]);
    a.layers = std::atoi(argv[7]);
    a.kv_heads = std::atoi(argv[8]);
    a.head_dim = std::atoi(argv[9]);
    try {
      return bare_child(argv[2], argv[3], a);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      return 1;
    }
  }
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "cold_start_bench: %s needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--package") a.package = value;
    else if (flag == "--ogai") a.ogai = value;
    else if (flag == "--rounds") a.rounds = std::stoi(value);
    else if (flag == "--prompt-len") a.prompt_len = std::stoi(value);
    else if (flag == "--threads") a.threads = std::stoi(value);
    else if (flag == "--layers") a.layers = std::stoi(value);
    else if (flag == "--kv-heads") a.kv_heads = std::stoi(value);
    else if (flag == "--head-dim") a.head_dim = std::stoi(value);
    else {
      std::fprintf(stderr, "cold_start_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  return run(a, self);
}
