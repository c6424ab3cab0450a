// Image+text programs (llm/multimodal.h): optimum's image-text-to-text export of a tiny
// Gemma3 (fixtures/make_multimodal_gemma3.py). The prompt through the chat template with the
// image expanded as Gemma3's processor does, the pixel values as its image processor makes
// them, the vision encoder's rows, and greedy tokens equal to transformers' and the official
// runtime's; text-only prompts through the same program; bad input refused with one line.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "llm/multimodal.h"
#include "llm/runner.h"
#include "runner_helpers.h"

namespace fs = std::filesystem;

TEST_CASE("multimodal placeholders: Gemma3's image sequence and the bare media token") {
  std::string out;
  // Gemma3: the template writes the begin-of-image token; it becomes "\n\n" boi image*N eoi "\n\n"
  REQUIRE(pte::EmbeddingFront::expand_placeholders("<u>A<boi>B", {3}, "<img>", "<boi>", "<eoi>", &out));
  CHECK(out == "<u>A\n\n<boi><img><img><img><eoi>\n\nB");
  REQUIRE(pte::EmbeddingFront::expand_placeholders("<boi>x<boi>", {1, 2}, "<img>", "<boi>", "<eoi>", &out));
  CHECK(out == "\n\n<boi><img><eoi>\n\nx\n\n<boi><img><img><eoi>\n\n");
  // no begin-of-image token: the media token the template wrote is repeated
  REQUIRE(pte::EmbeddingFront::expand_placeholders("a<img>b", {4}, "<img>", "", "", &out));
  CHECK(out == "a<img><img><img><img>b");
  // counts that do not match are refused
  pte::Status s = pte::EmbeddingFront::expand_placeholders("a<img>b", {4, 4}, "<img>", "", "", &out);
  CHECK_FALSE(s);
  CHECK(s.message().find("places for media") != std::string::npos);
  CHECK_FALSE(pte::EmbeddingFront::expand_placeholders("no marks", {2}, "<img>", "<boi>", "<eoi>", &out));
}
