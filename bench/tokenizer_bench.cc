// tokenizer_bench: ogai's side of the tokenizer benchmark (bench/tokenizer.cjs runs it next to
// tiktoken and @huggingface/tokenizers and prints the ratios). One thread.
//   tokenizer_bench TOKENIZER_JSON CORPUS_JSON BIG_TOKENIZER_OUT
// CORPUS_JSON is an array of documents. Prints one JSON object: encode throughput (best of 5
// passes over the corpus), the ids' checksum (to compare with the other tokenizers), the load
// time of TOKENIZER_JSON, and the load time of a generated 250k-token, 30+ MB byte-level BPE
// tokenizer.json written to BIG_TOKENIZER_OUT (best of 3).
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>

#include "base/file.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/tokenizer.h"

using ogai::tokenizer::Tokenizer;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A byte-level BPE with `n` tokens: the 256 byte characters, then tokens made by merging two
// earlier ones (each merge is a rule), pretty-printed like Hugging Face's own files.
void write_big_tokenizer(const std::string& path, int n) {
  std::mt19937 rng(1);
  std::vector<std::string> tokens;
  std::set<std::string> seen;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(ogai::tokenizer::byte_char_utf8(static_cast<std::uint8_t>(b)));
  seen.insert(tokens.begin(), tokens.end());
  std::vector<std::pair<int, int>> merges;
  while (static_cast<int>(tokens.size()) < n) {
    int a = static_cast<int>(rng() % tokens.size());
    int b = static_cast<int>(rng() % tokens.size());
    std::string t = tokens[a] + tokens[b];
    if (t.size() > 48 || !seen.insert(t).second) continue;
    merges.emplace_back(a, b);
    tokens.push_back(std::move(t));
  }
  std::ofstream out(path);
  auto quoted = [](const std::string& s) { return nlohmann::json(s).dump(); };
  out << "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n  \"added_tokens\": [],\n"
      << "  \"normalizer\": null,\n  \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, "
      << "\"trim_offsets\": true, \"use_regex\": true},\n  \"post_processor\": null,\n"
      << "  \"decoder\": {\"type\": \"ByteLevel\"},\n  \"model\": {\n    \"type\": \"BPE\",\n    \"vocab\": {\n";
  for (std::size_t i = 0; i < tokens.size(); ++i)
    out << "      " << quoted(tokens[i]) << ": " << i << (i + 1 < tokens.size() ? ",\n" : "\n");
  out << "    },\n    \"merges\": [\n";
  for (std::size_t i = 0; i < merges.size(); ++i)
    out << "      [\n        " << quoted(tokens[merges[i].first]) << ",\n        " << quoted(tokens[merges[i].second])
        << "\n      ]" << (i + 1 < merges.size() ? ",\n" : "\n");
  out << "    ]\n  }\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tokenizer_bench TOKENIZER_JSON CORPUS_JSON BIG_TOKENIZER_OUT\n");
    return 2;
  }
  auto t0 = Clock::now();
  Tokenizer tok = Tokenizer::load(argv[1]);
  double load_s = seconds_since(t0);
  std::vector<std::string> docs = nlohmann::json::parse(ogai::read_file(argv[2])).get<std::vector<std::string>>();
  std::size_t bytes = 0, count = 0;
  std::uint64_t checksum = 0;
  for (const auto& d : docs) bytes += d.size();
  double best = 1e30;
  for (int pass = 0; pass < 5; ++pass) {
    auto t = Clock::now();
    count = 0, checksum = 0;
    for (const auto& d : docs) {
      std::vector<std::int32_t> ids = tok.encode(d, false);
      count += ids.size();
      for (std::int32_t id : ids) checksum = checksum * 31 + static_cast<std::uint64_t>(id);
    }
    best = std::min(best, seconds_since(t));
  }
  write_big_tokenizer(argv[3], 250000);
  double big_load = 1e30;
  for (int i = 0; i < 3; ++i) {
    auto t = Clock::now();
    Tokenizer big = Tokenizer::load(argv[3]);
    big_load = std::min(big_load, seconds_since(t));
    if (big.vocab_size() != 250000) return 1;
  }
  nlohmann::json result = {{"bytes", bytes},         {"tokens", count},
                           {"checksum", std::to_string(checksum)}, {"encode_s", best},
                           {"load_s", load_s},       {"big_load_s", big_load},
                           {"big_bytes", std::filesystem::file_size(argv[3])}};
  std::printf("%s\n", result.dump().c_str());
  return 0;
}
