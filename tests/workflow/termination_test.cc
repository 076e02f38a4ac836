// The EOS half of termination-predicate@2 (src/workflow/termination.h): which rows ended on a
// token of their EOS table, found through the contract's roles.
#include "workflow/termination.h"

#include <gtest/gtest.h>

#include "support.h"

namespace ogai::workflow::testing {
namespace {

metadata::Component predicate(const std::string& contract_id) {
  metadata::Component c;
  metadata::ComponentContract contract;
  contract.id = contract_id;
  contract.version = "2";
  contract.bindings = {{"tokens", "tok"}, {"eos_ids", "table"}, {"eos_lengths", "lengths"}, {"active", "on"}};
  c.contract = contract;
  return c;
}

TEST(Termination, PortsAreFoundByTheContractsRoles) {
  const std::vector<std::string> ports = {"on", "iteration", "table", "tok", "lengths"};
  const auto t = termination_ports(predicate(kTerminationContract), ports);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->tokens, 3u);
  EXPECT_EQ(t->eos_ids, 2u);
  EXPECT_EQ(t->eos_lengths, 4u);
  EXPECT_EQ(t->active, 0u);
  EXPECT_FALSE(termination_ports(predicate("onnx-genai.state-update"), ports)) << "another contract";
  EXPECT_FALSE(termination_ports(metadata::Component{}, ports)) << "no contract";
  EXPECT_FALSE(termination_ports(predicate(kTerminationContract), {"tok", "lengths"})) << "eos_ids not bound";
}

TEST(Termination, ARowEndsOnEosOnlyWithinItsTableLength) {
  const auto tokens = i64({5, 7, 9});
  const auto table = i64({5, 0, 1, 7, 8, 9}, {3, 2});
  const auto lengths = i64({1, 1, 2});
  std::vector<bool> eos;
  note_termination({&tokens, &table, &lengths, nullptr}, eos);
  EXPECT_EQ(eos, (std::vector<bool>{true, false, true})) << "7 sits past row 1's length";
  note_termination({&tokens, &table, nullptr, nullptr}, eos);
  EXPECT_EQ(eos, (std::vector<bool>{true, true, true})) << "no lengths: the whole row";
}

TEST(Termination, InactiveRowsKeepTheirVerdict) {
  const auto table = i64({3, 4}, {2});  // one table for every row
  std::vector<bool> eos;
  const auto first = i64({3, 1});
  note_termination({&first, &table, nullptr, nullptr}, eos);
  ASSERT_EQ(eos, (std::vector<bool>{true, false}));
  const auto later = i64({-1, 2});  // row 0 finished: the sampler gives it -1
  const auto active = boolean({false, true});
  note_termination({&later, &table, nullptr, &active}, eos);
  EXPECT_EQ(eos, (std::vector<bool>{true, false})) << "row 0 ended on EOS and still says so";
  const auto last = i64({-1, 4});
  note_termination({&last, &table, nullptr, &active}, eos);
  EXPECT_EQ(eos, (std::vector<bool>{true, true}));
}

TEST(Termination, ShapesOffTheContractChangeNothing) {
  const auto tokens = i64({5, 7});
  const auto three_rows = i64({5, 7, 9}, {3, 1});
  std::vector<bool> eos;
  note_termination({&tokens, &three_rows, nullptr, nullptr}, eos);
  EXPECT_TRUE(eos.empty());
  const auto table = i64({5, 7}, {2, 1});
  const auto one_length = i64({1});
  note_termination({&tokens, &table, &one_length, nullptr}, eos);
  EXPECT_TRUE(eos.empty());
  const auto floats = f32({5.f, 7.f}, {2});
  note_termination({&floats, &table, nullptr, nullptr}, eos);
  EXPECT_TRUE(eos.empty());
  const auto float_active = f32({1.f, 1.f}, {2});
  note_termination({&tokens, &table, nullptr, &float_active}, eos);
  EXPECT_TRUE(eos.empty()) << "an active flag that is neither bool nor integer";
  note_termination({&tokens, &table, nullptr, nullptr}, eos);
  EXPECT_EQ(eos, (std::vector<bool>{true, true})) << "the same inputs on the contract";
}

}  // namespace
}  // namespace ogai::workflow::testing
