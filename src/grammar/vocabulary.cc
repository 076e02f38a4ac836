#include "grammar/vocabulary.h"

#include <algorithm>
#include <numeric>
#include <string_view>

#include "base/error.h"
#include "tokenizer/token_bytes.h"
#include "tokenizer/tokenizer.h"

namespace ogai::grammar {
namespace {

// Tokens longer than this are left out of the trie (never allowed): the depth counter is 16 bits.
constexpr std::size_t kMaxTokenBytes = 4096;

TokenTrie build_trie(const std::vector<std::string>& bytes) {
  std::vector<std::int32_t> order;
  for (std::size_t id = 0; id < bytes.size(); ++id)
    if (!bytes[id].empty() && bytes[id].size() <= kMaxTokenBytes) order.push_back(static_cast<std::int32_t>(id));
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return bytes[a] < bytes[b]; });
  TokenTrie t;
  std::vector<std::uint32_t> path;  // node index per depth - 1 along the current token
  std::string_view prev;
  std::vector<std::pair<std::uint32_t, std::int32_t>> ends;  // (node, token)
  for (std::int32_t id : order) {
    std::string_view s = bytes[static_cast<std::size_t>(id)];
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
  // Heights of all-plain subtrees, children before parents (reverse preorder).
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
  t.plain_height.assign(n, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    if (plain[i] && height[i] <= 255) t.plain_height[i] = static_cast<std::uint8_t>(height[i]);
  t.token_begin.assign(n + 1, 0);
  for (const auto& [node, _] : ends) ++t.token_begin[node + 1];
  std::partial_sum(t.token_begin.begin(), t.token_begin.end(), t.token_begin.begin());
  t.token_ids.resize(ends.size());
  std::vector<std::uint32_t> fill(t.token_begin.begin(), t.token_begin.end() - 1);
  for (const auto& [node, id] : ends) t.token_ids[fill[node]++] = id;
  return t;
}

}  // namespace

Vocabulary::Vocabulary(std::vector<std::string> bytes) : bytes_(std::move(bytes)), trie_(build_trie(bytes_)) {}

std::shared_ptr<const Vocabulary> Vocabulary::from_tokenizer(const tokenizer::Tokenizer& tokenizer,
                                                             const std::vector<std::int32_t>& markers) {
  std::vector<std::string> bytes(tokenizer.vocab_size());
  for (std::size_t id = 0; id < bytes.size(); ++id) {
    const auto i = static_cast<std::int32_t>(id);
    if (tokenizer.has_id(i) && !tokenizer.is_special(i)) bytes[id] = tokenizer::token_bytes(tokenizer, i);
  }
  for (std::int32_t id : markers)
    if (id >= 0 && static_cast<std::size_t>(id) < bytes.size()) bytes[static_cast<std::size_t>(id)] = tokenizer.id_to_token(id);
  return std::make_shared<const Vocabulary>(std::move(bytes));
}

}  // namespace ogai::grammar
