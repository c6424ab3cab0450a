// Helpers of the runner tests (ring, static kv, static attention, chat, server): read a
// fixture's reference JSON, open a TextRunner on a model and generate greedy token ids with it.
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "llm/runner.h"
#include "util/json.h"

namespace pte_test {

// A committed fixture's JSON (reference.json ...): present and parsed, or the test stops
// naming the script that makes it.
inline pte::json::Value read_fixture_json(const std::filesystem::path& path, const char* made_by) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f, path.string() << " is missing (a committed fixture: " << made_by << ")");
  std::stringstream ss;
  ss << f.rdbuf();
  pte::json::Value doc;
  REQUIRE(pte::json::parse(ss.str(), &doc));
  return doc;
}

// The integers of a JSON array (which must be there).
inline std::vector<int32_t> json_ints(const pte::json::Value* v) {
  std::vector<int32_t> r;
  REQUIRE(v);
  for (const auto& x : v->items()) r.push_back(static_cast<int32_t>(x.as_int()));
  return r;
}

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
