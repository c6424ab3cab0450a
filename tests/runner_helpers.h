// Helpers of the runner tests (ring, static kv, chat, server): open a TextRunner on a model
// and generate greedy token ids with it.
#pragma once
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "llm/runner.h"

namespace pte_test {

inline std::unique_ptr<pte::TextRunner> open_runner(const std::string& model_path) {
  std::unique_ptr<pte::TextRunner> r;
  pte::RunnerOptions ro;
  ro.model_path = model_path;
  pte::Status s = pte::TextRunner::create(ro, &r);
  REQUIRE_MESSAGE(s, s.message());
  return r;
}

inline pte::GenerationConfig greedy(int n) {
  pte::GenerationConfig gc;
  gc.max_new_tokens = n;
  gc.ignore_eos = true;
  return gc;
}

// n greedy tokens after `ids` (EOS ignored)
inline std::vector<int32_t> generate_ids(pte::TextRunner& r, const std::vector<int32_t>& ids, int n) {
  pte::GenerationStats st;
  pte::Status s = r.generate_ids(ids, greedy(n), [](const std::string&) {}, &st);
  REQUIRE_MESSAGE(s, s.message());
  return st.tokens;
}

inline std::vector<int32_t> slice(const std::vector<int32_t>& v, size_t from, size_t to) {
  return std::vector<int32_t>(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(to));
}

}  // namespace pte_test
