// Differential check against the reference validator (issue 34 item 1): every document the
// reference's own test suite (justinchuby/onnx-genai, crate onnx-genai-metadata) handed to its
// validator, with the verdict the reference gave it, must get the same verdict from ogai:
// accepted ones validate as documents with no diagnostic, rejected ones get at least one.
// tests/data/metadata/reference_cases/README.md says how the cases were recorded. A case is a
// whole document (`.yaml`) or a unified diff (`.diff`) against a base: a catalogue or fixture
// document of the shared conformance set, or another case.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file.h"
#include "support.h"

namespace ogai::metadata {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = fs::path(OGAI_SOURCE_DIR) / "tests/data/metadata/reference_cases";

struct Case {
  std::string name, verdict, reference_test, base, body;
  bool is_diff = false;
};

Case read_case(const fs::path& path) {
  Case c;
  c.name = path.filename().string();
  c.is_diff = path.extension() == ".diff";
  std::istringstream in(read_file(path));
  std::string line;
  std::string body;
  while (std::getline(in, line)) {
    if (line.rfind("#! ", 0) == 0) {
      auto colon = line.find(": ");
      std::string key = line.substr(3, colon - 3), value = line.substr(colon + 2);
      if (key == "verdict") c.verdict = value;
      if (key == "reference-test") c.reference_test = value;
      if (key == "base") c.base = value;
      continue;
    }
    body += line + "\n";
  }
  c.body = body;
  return c;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Applies a unified diff (hunks with context) to `base`; a context or removed line that does not
// match fails the test, so a drifted base can never turn a case into another document.
std::string apply_diff(const std::string& base, const std::string& diff, const std::string& label) {
  const std::vector<std::string> from = lines_of(base);
  std::vector<std::string> out;
  std::size_t at = 0;  // next unread line of `from`
  for (const std::string& line : lines_of(diff)) {
    if (line.rfind("--- ", 0) == 0 || line.rfind("+++ ", 0) == 0) continue;
    if (line.rfind("@@ -", 0) == 0) {
      std::size_t start = std::stoul(line.substr(4));
      std::size_t comma = line.find(','), space = line.find(' ', 4);
      std::size_t count = comma != std::string::npos && comma < space ? std::stoul(line.substr(comma + 1)) : 1;
      std::size_t first = count == 0 ? start : start - 1;  // zero-length hunks name the line before
      while (at < first && at < from.size()) out.push_back(from[at++]);
      continue;
    }
    const char op = line.empty() ? ' ' : line[0];
    const std::string text = line.empty() ? "" : line.substr(1);
    if (op == '+') {
      out.push_back(text);
      continue;
    }
    if (at >= from.size() || from[at] != text) {
      ADD_FAILURE() << label << ": the diff does not apply to its base at line " << at + 1;
      return base;
    }
    if (op == ' ') out.push_back(from[at]);
    ++at;
  }
  while (at < from.size()) out.push_back(from[at++]);
  std::string text;
  for (const std::string& l : out) text += l + "\n";
  return text;
}

std::string document_of(const Case& c) {
  if (!c.is_diff) return c.body;
  const std::string prefix = "reference_cases/";
  fs::path base = c.base.rfind(prefix, 0) == 0 ? kCases / c.base.substr(prefix.size())
                                                 : testing::shared_path("conformance/metadata/" + c.base);
  std::string base_text = read_file(base);
  if (base.parent_path() == kCases) base_text = read_case(base).body;
  return apply_diff(base_text, c.body, c.name);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(kCases))
    if (entry.path().extension() == ".yaml" || entry.path().extension() == ".diff") cases.push_back(read_case(entry.path()));
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

TEST(ReferenceCasesTest, TheCorpusIsComplete) {
  std::vector<Case> cases = all_cases();
  int accepted = 0, rejected = 0;
  for (const Case& c : cases) {
    EXPECT_TRUE(c.verdict == "accept" || c.verdict == "reject") << c.name;
    EXPECT_FALSE(c.reference_test.empty()) << c.name;
    (c.verdict == "accept" ? accepted : rejected)++;
  }
  EXPECT_EQ(accepted, 38);
  EXPECT_EQ(rejected, 112);
}

TEST(ReferenceCasesTest, AcceptedDocumentsAreValid) {
  for (const Case& c : all_cases()) {
    if (c.verdict != "accept") continue;
    Diagnostics d = testing::check(document_of(c), c.name);
    EXPECT_TRUE(d.empty()) << c.name << " (reference test " << c.reference_test << ") is accepted by the reference:\n"
                           << d.text();
  }
}

TEST(ReferenceCasesTest, RejectedDocumentsAreInvalid) {
  for (const Case& c : all_cases()) {
    if (c.verdict != "reject") continue;
    try {
      Diagnostics d = testing::check(document_of(c), c.name);
      EXPECT_FALSE(d.empty()) << c.name << " (reference test " << c.reference_test << ") is rejected by the reference";
    } catch (const Error& e) {  // malformed YAML is refused with an error naming the file and line
      EXPECT_NE(std::string(e.what()).find(c.name), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ogai::metadata
