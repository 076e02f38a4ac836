#include "grammar/run_split.h"

#include <algorithm>
#include <string_view>

namespace ogai::grammar {

RunSplit RunSplit::build(const std::vector<std::string>& bytes, Kind kind) {
  RunSplit r;
  r.kind = kind;
  const std::size_t words = (bytes.size() + 63) / 64;
  r.all_upto.assign(kMaxRun + 1, std::vector<std::uint64_t>(words, 0));
  std::vector<std::vector<std::pair<std::int32_t, std::string_view>>> after(kMaxRun + 1);
  std::vector<std::pair<std::int32_t, std::string_view>> longer;
  for (std::size_t id = 0; id < bytes.size(); ++id) {
    const std::string& s = bytes[id];
    if (s.empty() || s.size() > kMaxTrieBytes) continue;  // as in the vocabulary's trie: never allowed
    std::size_t run = 0;
    while (run < s.size() && in_class(kind, static_cast<std::uint8_t>(s[run]))) ++run;
    const auto tid = static_cast<std::int32_t>(id);
    if (run == s.size() && run <= kMaxRun) {
      r.all_upto[run][id >> 6] |= std::uint64_t{1} << (id & 63);
    } else if (run < s.size() && run <= kMaxRun) {
      after[run].emplace_back(tid, std::string_view(s).substr(run));
    } else {
      longer.emplace_back(tid, s);
    }
  }
  for (std::size_t len = 1; len <= kMaxRun; ++len)  // of length exactly len so far: make it 1..len
    for (std::size_t w = 0; w < words; ++w) r.all_upto[len][w] |= r.all_upto[len - 1][w];
  for (auto& entries : after) {
    r.after_run.push_back(build_token_trie(std::move(entries)));
    r.max_depth = std::max(r.max_depth, r.after_run.back().max_depth);
  }
  r.long_runs = build_token_trie(std::move(longer));
  r.max_depth = std::max(r.max_depth, r.long_runs.max_depth);
  return r;
}

}  // namespace ogai::grammar
