// continue_final_message: the rendered chat cut after the last message's content.
#include <gtest/gtest.h>

#include "chat/continue_final.h"
#include "ogai/error.h"

namespace ogai::chat {
namespace {

TEST(ContinueFinalMessage, CutsWhatFollowsTheLastOccurrence) {
  EXPECT_EQ(continue_final_message("<u>hi</u><a>The answer is</a>\n", "The answer is"), "<u>hi</u><a>The answer is");
  EXPECT_EQ(continue_final_message("<u>x</u><a>x</a>", "x"), "<u>x</u><a>x");
}

TEST(ContinueFinalMessage, TrimmedContentAndKeptTrailingSpace) {
  // A template that trims the content: the cut is after the trimmed text.
  EXPECT_EQ(continue_final_message("<a>Once upon</a>", "  Once upon  "), "<a>Once upon");
  // One that keeps it: the trailing space stays, so the model continues after it.
  EXPECT_EQ(continue_final_message("<a>Once upon </a>", "Once upon "), "<a>Once upon ");
}

TEST(ContinueFinalMessage, RefusesContentTheTemplateRewrote) {
  EXPECT_THROW(continue_final_message("<a>ONCE</a>", "once"), Error);
  EXPECT_EQ(continue_final_message("<a></a>", ""), "<a></a>");
}

}  // namespace
}  // namespace ogai::chat
