#include "bench/wide_run.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ogai::bench {

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

WideGraph open_wide_graph(const std::string& path) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "wide_run");
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(1);
  so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  WideGraph g;
  g.session = Ort::Session(env, path.c_str(), so);
  Ort::AllocatorWithDefaultOptions alloc;
  for (std::size_t i = 0; i < g.session.GetInputCount(); ++i) {
    g.in_names.push_back(g.session.GetInputNameAllocated(i, alloc).get());
    if (g.in_names.back().rfind("past_key_values.", 0) != 0) continue;
    ++g.pairs;
    auto shape = g.session.GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetShape();
    g.kv_heads = shape[1];
    g.head_dim = shape[3];
  }
  for (std::size_t i = 0; i < g.session.GetOutputCount(); ++i)
    g.out_names.push_back(g.session.GetOutputNameAllocated(i, alloc).get());
  for (auto& n : g.in_names) g.in_c.push_back(n.c_str());
  for (auto& n : g.out_names) g.out_c.push_back(n.c_str());
  if (g.pairs == 0 || g.in_names.size() != static_cast<std::size_t>(g.pairs) + 3) {
    std::fprintf(stderr, "%s: not a stories260k-style graph (input_ids, attention_mask, position_ids, pasts)\n",
                 path.c_str());
    std::exit(1);
  }
  return g;
}

double wide_run(WideGraph& g, std::int64_t rows, std::int64_t past, std::int64_t seq, std::vector<float>& kv,
                std::vector<ort::Tensor>& presents) {
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(rows * seq), 5), pos(ids.size());
  std::vector<std::int64_t> mask(static_cast<std::size_t>(rows * (past + seq)), 1);
  for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = past + static_cast<std::int64_t>(i) % seq;
  const std::int64_t ids_shape[] = {rows, seq}, mask_shape[] = {rows, past + seq};
  const std::int64_t kv_shape[] = {rows, g.kv_heads, past, g.head_dim};
  std::vector<Ort::Value> in;
  in.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, ids.data(), ids.size(), ids_shape, 2));
  in.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, mask.data(), mask.size(), mask_shape, 2));
  in.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, pos.data(), pos.size(), ids_shape, 2));
  const auto kv_size = static_cast<std::size_t>(rows * g.kv_heads * past * g.head_dim);
  for (std::int64_t p = 0; p < g.pairs; ++p)
    in.push_back(Ort::Value::CreateTensor<float>(mem, kv.data(), kv_size, kv_shape, 4));
  const double start = thread_seconds();
  auto out =
      g.session.Run(Ort::RunOptions{nullptr}, g.in_c.data(), in.data(), in.size(), g.out_c.data(), g.out_c.size());
  const double took = thread_seconds() - start;
  presents.clear();
  for (std::size_t i = 1; i < out.size(); ++i) presents.push_back(ort::Tensor::adopt(out[i].release()));
  return took;
}

}  // namespace ogai::bench
