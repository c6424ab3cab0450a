// pte-run: the C API (include/pte/pte.h, capi/): committed fixtures run through it, from a
// file and from memory, in caller memory, equal to the references; inspection; a generation
// session's callback tokens equal the C++ runner's; tests/capi_c_test.c drives it from C.
// Bad input: capi_bad_input_test.cpp.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "capi_helpers.h"
#include "llm/runner.h"
#include "pte/pte.h"
#include "util/compare.h"
#include "util/json.h"
#include "util/npy.h"

extern "C" int pte_capi_c_add(const char* path, char* why, size_t why_size);

using pte_test::contains;
using pte_test::read_bytes;

namespace {

const std::string kData = "fixtures/data/";

pte::util::HostTensor npy(const std::string& path) {
  pte::util::HostTensor t;
  pte::Status s = pte::util::npy_read(path, &t);
  REQUIRE_MESSAGE(s, s.message());
  return t;
}

const pte::json::Value& manifest_case(const pte::json::Value& doc, const std::string& name) {
  for (const auto& c : doc.find("cases", pte::json::Type::Array)->items())
    if (c.find("name")->as_string() == name) return c;
  FAIL("no case " << name << " in the manifest");
  return doc;
}

// A loaded method in caller memory (sized by pte_method_memory_needed).
struct Loaded {
  pte_program* program = nullptr;
  pte_method* method = nullptr;
  void* memory = nullptr;
  ~Loaded() {
    pte_method_destroy(method);
    pte_program_destroy(program);
    std::free(memory);
  }
};

void load_into_caller_memory(Loaded& l) {
  size_t need = 0;
  REQUIRE_MESSAGE(pte_method_memory_needed(l.program, "forward", nullptr, &need) == PTE_OK, pte_last_error());
  l.memory = std::aligned_alloc(64, (need + 63) / 64 * 64 + 64);
  pte_method_options mo;
  pte_method_options_init(&mo);
  mo.memory = l.memory;
  mo.memory_bytes = need;
  REQUIRE_MESSAGE(pte_method_load(l.program, "forward", &mo, &l.method) == PTE_OK, pte_last_error());
}

// Runs every step of a fixture case through the C API; returns the outputs' bytes.
std::vector<std::vector<uint8_t>> run_case(const pte::json::Value& c, pte_program* program) {
  Loaded l;
  l.program = program;
  load_into_caller_memory(l);
  pte::util::CompareOptions co;
  co.atol = c.find("atol")->as_double();
  co.rtol = c.find("rtol")->as_double();
  std::vector<std::vector<uint8_t>> all;
  for (const auto& step : c.find("steps")->items()) {
    size_t k = 0;
    std::vector<pte::util::HostTensor> inputs;
    for (const auto& in : step.find("inputs")->items()) inputs.push_back(npy(kData + in.find("file")->as_string()));
    for (const auto& t : inputs) {
      REQUIRE_MESSAGE(pte_method_set_input(l.method, k++, static_cast<pte_dtype>(t.dtype), t.shape.data(), t.shape.size(),
                                           t.bytes.data(), t.bytes.size()) == PTE_OK,
                      pte_last_error());
    }
    REQUIRE_MESSAGE(pte_method_execute(l.method) == PTE_OK, pte_last_error());
    size_t nout = 0;
    REQUIRE(pte_method_num_outputs(l.method, &nout) == PTE_OK);
    const auto& expected = step.find("expected_et")->items();
    REQUIRE(nout == expected.size());
    for (size_t o = 0; o < nout; ++o) {
      pte_tensor_view v;
      REQUIRE_MESSAGE(pte_method_output(l.method, o, &v) == PTE_OK, pte_last_error());
      pte::util::HostTensor got;
      got.dtype = static_cast<pte::DType>(v.dtype);
      got.shape.assign(v.sizes, v.sizes + v.rank);
      got.bytes.resize(v.nbytes);
      size_t written = 0;
      REQUIRE(pte_method_copy_output(l.method, o, got.bytes.data(), got.bytes.size(), &written) == PTE_OK);
      CHECK(written == v.nbytes);
      CHECK(std::memcmp(got.bytes.data(), v.data, v.nbytes) == 0);
      auto r = pte::util::compare_tensors(got, npy(kData + expected[o].find("file")->as_string()), co);
      CHECK_MESSAGE(r.ok, r.message);
      all.push_back(got.bytes);
    }
  }
  l.program = nullptr;  // the caller destroys it (after the method: any order is allowed)
  return all;
}


}  // namespace

TEST_CASE("capi: fixtures run from a file and from memory, in caller memory, equal to the references") {
  pte::json::Value doc;
  pte::Status s = pte::json::parse_file(kData + "manifest.json", &doc);
  REQUIRE_MESSAGE(s, s.message());
  for (const char* name : {"add", "mlp", "mlp_xnnpack", "ops_mix"}) {
    CAPTURE(name);
    const pte::json::Value& c = manifest_case(doc, name);
    const std::string path = kData + c.find("file")->as_string();
    pte_program* from_file = nullptr;
    REQUIRE_MESSAGE(pte_program_open_file(path.c_str(), nullptr, &from_file) == PTE_OK, pte_last_error());
    auto a = run_case(c, from_file);
    pte_program_destroy(from_file);

    // the same bytes in a malloc'ed buffer (no file system), which must outlive the program
    std::vector<uint8_t> bytes = read_bytes(path);
    void* buf = std::malloc(bytes.size());
    std::memcpy(buf, bytes.data(), bytes.size());
    pte_open_options oo;
    pte_open_options_init(&oo);
    pte_program* from_memory = nullptr;
    REQUIRE_MESSAGE(pte_program_open_memory(buf, bytes.size(), &oo, &from_memory) == PTE_OK, pte_last_error());
    auto b = run_case(c, from_memory);
    pte_program_destroy(from_memory);
    std::free(buf);
    CHECK(a == b);
  }
}

TEST_CASE("capi: program inspection") {
  pte_program* p = nullptr;
  REQUIRE(pte_program_open_file("fixtures/data/add/model.pte", nullptr, &p) == PTE_OK);
  size_t n = 0;
  REQUIRE(pte_program_num_methods(p, &n) == PTE_OK);
  CHECK(n == 1);
  const char* name = nullptr;
  REQUIRE(pte_program_method_name(p, 0, &name) == PTE_OK);
  CHECK(std::string(name) == "forward");
  size_t ni = 0, no = 0;
  REQUIRE(pte_program_method_io(p, "forward", &ni, &no) == PTE_OK);
  CHECK(ni == 2);
  CHECK(no == 1);
  pte_value_info vi;
  REQUIRE(pte_program_input_info(p, "forward", 1, &vi) == PTE_OK);
  CHECK(vi.kind == PTE_VALUE_TENSOR);
  CHECK(vi.dtype == PTE_DTYPE_FLOAT32);
  REQUIRE(vi.rank == 2);
  CHECK(vi.sizes[0] == 2);
  CHECK(vi.sizes[1] == 3);
  CHECK(vi.dynamic == 0);
  REQUIRE(pte_program_output_info(p, "forward", 0, &vi) == PTE_OK);
  CHECK(vi.kind == PTE_VALUE_TENSOR);
  CHECK(vi.rank == 2);
  CHECK_FAILS(pte_program_method_name(p, 1, &name), PTE_ERR_INVALID_ARGUMENT);
  CHECK_FAILS(pte_program_input_info(p, "forward", 2, &vi), PTE_ERR_INPUT_INDEX);
  CHECK_FAILS(pte_program_output_info(p, "forward", 1, &vi), PTE_ERR_OUTPUT_INDEX);
  CHECK_FAILS(pte_program_method_io(p, "nope", &ni, &no), PTE_ERR_UNKNOWN_METHOD);
  CHECK(contains(pte_last_error(), "no method named 'nope' (methods: forward)"));
  pte_program_destroy(p);
}

namespace {

struct Collected {
  std::vector<int32_t> ids;
  std::string text;
  int stop_after = -1;
};

int collect(const char* text, int32_t id, void* user) {
  auto* c = static_cast<Collected*>(user);
  c->ids.push_back(id);
  c->text += text;
  return c->stop_after >= 0 && static_cast<int>(c->ids.size()) >= c->stop_after;
}

}  // namespace

TEST_CASE("capi: a generation session streams the C++ runner's greedy tokens through the callback") {
  pte::json::Value doc;
  pte::Status s = pte::json::parse_file(kData + "manifest.json", &doc);
  REQUIRE_MESSAGE(s, s.message());
  const pte::json::Value& c = manifest_case(doc, "decoder_llama");
  const pte::json::Value* g = c.find("generation", pte::json::Type::Object);
  REQUIRE(g);
  const std::string path = kData + c.find("file")->as_string();
  const std::string prompt = g->find("prompt")->as_string();
  std::vector<int32_t> want;
  for (const auto& v : g->find("greedy_ids")->items()) want.push_back(static_cast<int32_t>(v.as_int()));
  const int max_new = static_cast<int>(g->find("max_new_tokens")->as_int());

  // the C++ runner's tokens and text
  std::unique_ptr<pte::TextRunner> runner;
  pte::RunnerOptions ro;
  ro.model_path = path;
  s = pte::TextRunner::create(ro, &runner);
  REQUIRE_MESSAGE(s, s.message());
  pte::GenerationConfig gc;
  gc.max_new_tokens = max_new;
  pte::GenerationStats cst;
  std::string ctext;
  s = runner->generate(prompt, gc, [&](const std::string& t) { ctext += t; }, &cst);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(cst.tokens == want);

  pte_session* sess = nullptr;
  REQUIRE_MESSAGE(pte_session_create(path.c_str(), nullptr, &sess) == PTE_OK, pte_last_error());
  pte_generation_params gp;
  pte_generation_params_init(&gp);
  gp.max_new_tokens = max_new;
  Collected got;
  pte_generation_stats st;
  REQUIRE_MESSAGE(pte_session_generate(sess, prompt.c_str(), &gp, collect, &got, &st) == PTE_OK, pte_last_error());
  CHECK(got.ids == want);
  CHECK(got.text == ctext);
  CHECK(st.prompt_tokens == cst.prompt_tokens);
  CHECK(st.generated_tokens == static_cast<int>(want.size()));
  CHECK(st.stop_reason == (cst.stop_reason == "eos" ? PTE_STOP_EOS : PTE_STOP_MAX_TOKENS));
  CHECK(st.prefill_ms >= 0);

  // the callback stops it; reset starts over
  REQUIRE(pte_session_reset(sess) == PTE_OK);
  Collected two;
  two.stop_after = 2;
  REQUIRE(pte_session_generate(sess, prompt.c_str(), &gp, collect, &two, &st) == PTE_OK);
  CHECK(st.stop_reason == PTE_STOP_CALLBACK);
  REQUIRE(two.ids.size() == 2);
  CHECK(two.ids[0] == want[0]);
  CHECK(two.ids[1] == want[1]);

  // bad parameters, a prompt that does not fit the context
  gp.top_p = 0;
  CHECK_FAILS(pte_session_generate(sess, prompt.c_str(), &gp, nullptr, nullptr, nullptr), PTE_ERR_INVALID_ARGUMENT);
  pte_generation_params_init(&gp);
  gp.max_new_tokens = 1;
  CHECK_FAILS(pte_session_generate(sess, nullptr, &gp, nullptr, nullptr, nullptr), PTE_ERR_NULL_POINTER);
  std::string long_prompt;
  for (int i = 0; i < 3000; ++i) long_prompt += " hello";
  CHECK_FAILS(pte_session_generate(sess, long_prompt.c_str(), &gp, nullptr, nullptr, nullptr), PTE_ERR_CONTEXT_FULL);
  pte_session_destroy(sess);

  // programs that are no decoder, a missing tokenizer, a missing file
  CHECK_FAILS(pte_session_create("fixtures/data/mlp/model.pte", nullptr, &sess), PTE_ERR_NOT_A_DECODER);
  pte_session_options so;
  pte_session_options_init(&so);
  so.tokenizer_path = "fixtures/data/no_such_tokenizer.json";
  CHECK_FAILS(pte_session_create(path.c_str(), &so, &sess), PTE_ERR_TOKENIZER_UNAVAILABLE);
  CHECK_FAILS(pte_session_create("fixtures/data/no_such.pte", nullptr, &sess), PTE_ERR_FILE_NOT_FOUND);
  CHECK(sess == nullptr);
}

TEST_CASE("capi: the C translation unit runs the add fixture") {
  char why[512] = {0};
  CHECK_MESSAGE(pte_capi_c_add("fixtures/data/add/model.pte", why, sizeof(why)) == 0, why);
}
