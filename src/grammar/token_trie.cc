#include "grammar/token_trie.h"

#include <algorithm>
#include <numeric>

namespace ogai::grammar {
namespace {

// Heights of all-plain subtrees, children before parents (reverse preorder).
std::vector<std::uint8_t> plain_heights(const TokenTrie& t) {
  const auto n = static_cast<std::uint32_t>(t.size());
  std::vector<std::uint32_t> parent(n, UINT32_MAX);
  std::vector<std::uint32_t> chain;
  for (std::uint32_t i = 0; i < n; ++i) {
    chain.resize(t.depth[i] - 1u);
    if (!chain.empty()) parent[i] = chain.back();
    chain.push_back(i);
  }
  std::vector<int> height(n, 1);
  std::vector<bool> plain(n);
  for (std::uint32_t i = 0; i < n; ++i) plain[i] = is_plain_byte(t.byte[i]);
  for (std::uint32_t i = n; i-- > 0;) {
    if (parent[i] == UINT32_MAX) continue;
    height[parent[i]] = std::max(height[parent[i]], height[i] + 1);
    if (!plain[i]) plain[parent[i]] = false;
  }
  std::vector<std::uint8_t> out(n, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    if (plain[i] && height[i] <= 255) out[i] = static_cast<std::uint8_t>(height[i]);
  return out;
}

}  // namespace

TokenTrie build_token_trie(std::vector<std::pair<std::int32_t, std::string_view>> entries) {
  std::erase_if(entries, [](const auto& e) { return e.second.empty() || e.second.size() > kMaxTrieBytes; });
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  TokenTrie t;
  std::vector<std::uint32_t> path;  // node index per depth - 1 along the current string
  std::string_view prev;
  std::vector<std::pair<std::uint32_t, std::int32_t>> ends;  // (node, token)
  for (const auto& [id, s] : entries) {
    std::size_t common = 0;
    while (common < s.size() && common < prev.size() && s[common] == prev[common]) ++common;
    path.resize(common);
    for (std::size_t d = common; d < s.size(); ++d) {
      path.push_back(static_cast<std::uint32_t>(t.byte.size()));
      t.byte.push_back(static_cast<std::uint8_t>(s[d]));
      t.depth.push_back(static_cast<std::uint16_t>(d + 1));
    }
    ends.emplace_back(path.back(), id);
    t.max_depth = std::max(t.max_depth, s.size());
    prev = s;
  }
  const std::size_t n = t.byte.size();
  t.skip.assign(n, static_cast<std::uint32_t>(n));
  std::vector<std::uint32_t> open;  // nodes whose subtree has not ended
  for (std::uint32_t i = 0; i < n; ++i) {
    while (!open.empty() && t.depth[open.back()] >= t.depth[i]) {
      t.skip[open.back()] = i;
      open.pop_back();
    }
    open.push_back(i);
  }
  t.plain_height = plain_heights(t);
  t.token_begin.assign(n + 1, 0);
  for (const auto& [node, _] : ends) ++t.token_begin[node + 1];
  std::partial_sum(t.token_begin.begin(), t.token_begin.end(), t.token_begin.begin());
  t.token_ids.resize(ends.size());
  std::vector<std::uint32_t> fill(t.token_begin.begin(), t.token_begin.end() - 1);
  for (const auto& [node, id] : ends) t.token_ids[fill[node]++] = id;
  return t;
}

}  // namespace ogai::grammar
