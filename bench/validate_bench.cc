// Benchmark: validating a package whose graph embeds ~1 GiB of initializers, against ONNX Runtime
// session creation for the same graph (the baseline, measured in the same run).
//
// The graph is written as protobuf bytes directly into the build folder (no Python, streamed so
// the generator never holds the weights). Before validation the file is dropped from the page
// cache; afterwards mincore() shows how much of it validation actually read.
//   validate_bench [--gib N] [--dir DIR] [--keep]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/file.h"
#include "metadata/package.h"
#include "ort/session.h"

namespace {

namespace fs = std::filesystem;

// ---- protobuf wire writing --------------------------------------------------------------------
std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) out += static_cast<char>((v & 0x7F) | 0x80), v >>= 7;
  return out + static_cast<char>(v);
}
std::string tag(int field, int wire) { return varint((static_cast<std::uint64_t>(field) << 3) | wire); }
std::string len_field(int field, const std::string& bytes) { return tag(field, 2) + varint(bytes.size()) + bytes; }
std::string int_field(int field, std::uint64_t v) { return tag(field, 0) + varint(v); }

std::string dim(const std::string& d) {
  bool number = std::isdigit(static_cast<unsigned char>(d[0]));
  return len_field(1, number ? int_field(1, std::stoull(d)) : len_field(2, d));  // TensorShapeProto.dim
}
std::string value_info(const std::string& name, int elem_type, std::initializer_list<std::string> dims) {
  std::string shape;
  for (const auto& d : dims) shape += dim(d);
  std::string tensor = int_field(1, elem_type) + len_field(2, shape);  // TypeProto.Tensor
  return len_field(1, name) + len_field(2, len_field(1, tensor));      // ValueInfoProto
}
std::string node(const std::string& op, std::initializer_list<std::string> in, const std::string& out) {
  std::string n;
  for (const auto& i : in) n += len_field(1, i);
  return n + len_field(2, out) + len_field(4, op);
}

constexpr std::uint64_t kHidden = 1024;

// A decoder-shaped graph: logits = Gather(embed[V, 1024], input_ids); present = Identity(past).
void write_model(const fs::path& file, std::uint64_t vocab) {
  std::uint64_t raw_bytes = vocab * kHidden * 4;
  std::string graph = len_field(1, node("Gather", {"embed", "input_ids"}, "logits")) +
                      len_field(1, node("Identity", {"past_key_values.0.key"}, "present.0.key")) + len_field(2, "bench");
  std::string init_head = int_field(1, vocab) + int_field(1, kHidden) + int_field(2, 1) + len_field(8, "embed") +
                          tag(9, 2) + varint(raw_bytes);  // raw_data follows
  std::string io = len_field(11, value_info("input_ids", 7, {"batch", "sequence"})) +
                   len_field(11, value_info("past_key_values.0.key", 1, {"batch", "4", "past_sequence", "64"})) +
                   len_field(12, value_info("logits", 1, {"batch", "sequence", std::to_string(kHidden)})) +
                   len_field(12, value_info("present.0.key", 1, {"batch", "4", "past_sequence", "64"}));
  std::uint64_t init_size = init_head.size() + raw_bytes;
  std::uint64_t graph_size = graph.size() + tag(5, 2).size() + varint(init_size).size() + init_size + io.size();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << int_field(1, 8) << len_field(8, int_field(2, 17)) << tag(7, 2) << varint(graph_size) << graph << tag(5, 2)
      << varint(init_size) << init_head;
  std::string zeros(1 << 20, '\0');
  for (std::uint64_t left = raw_bytes; left > 0;) {
    std::uint64_t n = std::min<std::uint64_t>(left, zeros.size());
    out.write(zeros.data(), static_cast<std::streamsize>(n));
    left -= n;
  }
  out << io;
}

const char* kMetadata = R"(schema_version: v1
pipeline:
  workflow:
    manifest: {capabilities: [workflow_ssa, typed_emit, serving_service_contract]}
    inputs:
      request.input_ids:
        contract: {dtype: int64, rank: 2, shape: [batch, sequence], batch_layout: {kind: request_aligned, axis: 0}}
        role: {kind: runtime, version: '1.0', role: prompt_tokens}
        source: {kind: request}
      request.cache:
        contract: {dtype: float32, rank: 4, shape: [batch, 4, past, 64], batch_layout: {kind: request_aligned, axis: 0}}
        role: {kind: opaque}
        source: {kind: application, name: cache}
      request.active:
        contract: {dtype: bool, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
        role: {kind: opaque}
        source: {kind: application, name: active}
      request.done:
        contract: {dtype: bool, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
        role: {kind: opaque}
        source: {kind: application, name: done}
      request.accepted_len:
        contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
        role: {kind: opaque}
        source: {kind: application, name: accepted_len}
    outputs:
      logits:
        contract: {dtype: float32, rank: 3, shape: [batch, sequence, 1024], batch_layout: {kind: request_aligned, axis: 0}}
        role: tensor
        stage: pre_adapter
    components:
      decoder:
        implementation: {kind: onnx, artifact: model.onnx}
        ports:
          inputs:
            input_ids: {dtype: int64, rank: 2, shape: [batch, sequence], batch_layout: {kind: request_aligned, axis: 0}}
            past_key_values.0.key: {dtype: float32, rank: 4, shape: [batch, 4, past, 64], batch_layout: {kind: request_aligned, axis: 0}}
          outputs:
            logits: {dtype: float32, rank: 3, shape: [batch, sequence, 1024], batch_layout: {kind: request_aligned, axis: 0}}
            present.0.key: {dtype: float32, rank: 4, shape: [batch, 4, past, 64], batch_layout: {kind: request_aligned, axis: 0}}
          roles: {input_ids: token_ids, logits: logits}
    state:
      cache:
        contract: {dtype: float32, rank: 4, shape: [batch, 4, past, 64], batch_layout: {kind: request_aligned, axis: 0}}
        scope: invocation
        initializer: request.cache
        recurrence: {kind: invariant}
        management: runtime
        release_boundary: invocation
        service_group: kv
    steps:
    - kind: invoke
      component: decoder
      inputs: {input_ids: request.input_ids, past_key_values.0.key: request.cache}
      outputs: {logits: decoder.logits, present.0.key: decoder.cache}
    - {kind: emit, value: decoder.logits, output: logits, mode: replace}
    serving:
      active: request.active
      done: request.done
      accepted_len: request.accepted_len
      state_service:
        groups:
          kv:
            kind: full_attention
            sequence_axis: 2
            layout: bnsh
            ports:
              decoder:
                cache: {input: past_key_values.0.key, output: present.0.key, role: combined, layer: 0}
)";

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

void drop_page_cache(const fs::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

// Fraction of the file's pages in the page cache.
double resident_fraction(const fs::path& file) {
  ogai::MappedFile map(file);
  std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::size_t pages = (map.size() + page - 1) / page;
  std::vector<unsigned char> vec(pages);
  if (mincore(const_cast<std::uint8_t*>(map.data()), map.size(), vec.data()) != 0) return -1;
  std::size_t resident = 0;
  for (unsigned char v : vec) resident += v & 1;
  return static_cast<double>(resident) / static_cast<double>(pages);
}

template <class Fn>
double millis(Fn&& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  double gib = 1.0;
  fs::path dir = fs::current_path() / "bench_validate_package";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--gib") && i + 1 < argc) gib = std::stod(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
  }
  fs::create_directories(dir);
  fs::path model = dir / "model.onnx";
  std::uint64_t vocab = static_cast<std::uint64_t>(gib * (1ull << 30) / (kHidden * 4));
  std::printf("writing %s (%.2f GiB of initializers)...\n", model.c_str(), gib);
  write_model(model, vocab);
  ogai::write_file(dir / "inference_metadata.yaml", kMetadata);
  drop_page_cache(model);
  double cached_before = resident_fraction(model);

  long rss0 = peak_rss_kib();
  ogai::metadata::ValidationReport report;
  double validate_ms = millis([&] { report = ogai::metadata::validate_package(dir); });
  long rss1 = peak_rss_kib();
  double cached_after = resident_fraction(model);
  if (!report.valid()) {
    std::fprintf(stderr, "the generated package is invalid:\n%s", report.diagnostics.text().c_str());
    return 1;
  }
  double ort_ms = millis([&] { ogai::ort::Session::open(model); });
  long rss2 = peak_rss_kib();

  std::printf("model file: %.2f GiB, %llu-row embedding\n", static_cast<double>(fs::file_size(model)) / (1 << 30),
              static_cast<unsigned long long>(vocab));
  std::printf("validate_package (parse, rules, admission, ABI): %9.2f ms   peak RSS +%ld MiB   file pages read: %.2f%% "
              "(%.2f%% cached before)\n", validate_ms, (rss1 - rss0) / 1024, 100 * cached_after, 100 * cached_before);
  std::printf("ORT session creation (baseline):                 %9.2f ms   peak RSS +%ld MiB\n", ort_ms, (rss2 - rss1) / 1024);
  std::printf("ratio: validation takes %.5f of the session time (%.0fx faster)\n", validate_ms / ort_ms, ort_ms / validate_ms);
  if (!keep) fs::remove_all(dir);
  return 0;
}
