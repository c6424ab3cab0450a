// pte-run: the C API (include/pte/pte.h, capi/): committed fixtures run through it, from a
// file and from memory, equal to the references; bad input (null handles and pointers,
// wrong dtypes and sizes, a block too small for the plan, truncated and garbage programs)
// returns the right code and a message. tests/capi_c_test.c drives it from C.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "llm/runner.h"
#include "program_builder.h"
#include "pte/pte.h"
#include "util/compare.h"
#include "util/json.h"
#include "util/npy.h"

extern "C" int pte_capi_c_add(const char* path, char* why, size_t why_size);
extern "C" int pte_capi_c_nulls(void);

namespace {

const std::string kData = "fixtures/data/";

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), path << " is missing");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

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

bool contains(const char* s, const char* part) { return std::strstr(s, part) != nullptr; }

// A failure: `code`, with a message.
#define CHECK_FAILS(expr, code)                                       \
  do {                                                                \
    pte_error_t e_ = (expr);                                          \
    CHECK_MESSAGE(e_ == (code), pte_error_name(e_) << ": " << pte_last_error()); \
    CHECK(std::strlen(pte_last_error()) > 0);                         \
  } while (0)

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

TEST_CASE("capi: null handles and null pointers give codes and messages, never a crash") {
  pte_program* p = nullptr;
  pte_method* m = nullptr;
  pte_session* sess = nullptr;
  size_t n = 0;
  const char* name = nullptr;
  pte_value_info vi;
  pte_tensor_view view;
  int64_t sizes[2] = {2, 3};
  float data[6] = {};
  CHECK_FAILS(pte_program_open_file(nullptr, nullptr, &p), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_open_file("x.pte", nullptr, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_open_memory(nullptr, 10, nullptr, &p), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_open_memory(data, sizeof(data), nullptr, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_num_methods(nullptr, &n), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_program_method_name(nullptr, 0, &name), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_program_method_io(nullptr, "forward", &n, &n), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_program_input_info(nullptr, "forward", 0, &vi), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_program_output_info(nullptr, "forward", 0, &vi), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_memory_needed(nullptr, "forward", nullptr, &n), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_load(nullptr, "forward", nullptr, &m), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_num_inputs(nullptr, &n), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_num_outputs(nullptr, &n), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_set_input(nullptr, 0, PTE_DTYPE_FLOAT32, sizes, 2, data, sizeof(data)), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_execute(nullptr), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_output(nullptr, 0, &view), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_method_copy_output(nullptr, 0, data, sizeof(data), &n), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_session_create(nullptr, nullptr, &sess), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_session_create("fixtures/data/decoder_llama/model.pte", nullptr, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_session_generate(nullptr, "hi", nullptr, nullptr, nullptr, nullptr), PTE_ERR_NULL_HANDLE);
  CHECK_FAILS(pte_session_reset(nullptr), PTE_ERR_NULL_HANDLE);
  pte_program_destroy(nullptr);
  pte_method_destroy(nullptr);
  pte_session_destroy(nullptr);
  pte_open_options_init(nullptr);
  pte_method_options_init(nullptr);
  pte_session_options_init(nullptr);
  pte_generation_params_init(nullptr);

  // null pointers with a valid handle
  REQUIRE(pte_program_open_file("fixtures/data/add/model.pte", nullptr, &p) == PTE_OK);
  CHECK_FAILS(pte_program_num_methods(p, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_method_name(p, 0, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_method_io(p, nullptr, &n, &n), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_input_info(p, nullptr, 0, &vi), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_program_input_info(p, "forward", 0, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_method_memory_needed(p, nullptr, nullptr, &n), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_method_memory_needed(p, "forward", nullptr, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_method_load(p, nullptr, nullptr, &m), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_method_load(p, "forward", nullptr, nullptr), PTE_ERR_NULL_POINTER);
  pte_method_options mo;
  pte_method_options_init(&mo);
  mo.memory_bytes = 1024;  // without memory
  CHECK_FAILS(pte_method_load(p, "forward", &mo, &m), PTE_ERR_NULL_POINTER);
  mo.memory_bytes = 0;
  mo.num_threads = -1;
  CHECK_FAILS(pte_method_load(p, "forward", &mo, &m), PTE_ERR_INVALID_ARGUMENT);
  CHECK(m == nullptr);
  REQUIRE(pte_method_load(p, "forward", nullptr, &m) == PTE_OK);
  CHECK_FAILS(pte_method_num_inputs(m, nullptr), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, nullptr, 2, data, sizeof(data)), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 2, nullptr, sizeof(data)), PTE_ERR_NULL_POINTER);
  CHECK_FAILS(pte_method_output(m, 0, nullptr), PTE_ERR_NULL_POINTER);
  pte_method_destroy(m);
  pte_program_destroy(p);

  CHECK(pte_capi_c_nulls() == 0);  // the same from C
}

TEST_CASE("capi: wrong inputs, outputs read too early or into a small buffer") {
  pte_program* p = nullptr;
  REQUIRE(pte_program_open_file("fixtures/data/add/model.pte", nullptr, &p) == PTE_OK);
  pte_method* m = nullptr;
  REQUIRE(pte_method_load(p, "forward", nullptr, &m) == PTE_OK);
  pte_program_destroy(p);  // the method keeps the program alive
  float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60};
  int64_t i64[6] = {};
  int64_t sizes[2] = {2, 3}, wrong[2] = {3, 2}, neg[2] = {-2, 3}, huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
  pte_tensor_view view;
  float out[6] = {};
  CHECK_FAILS(pte_method_execute(m), PTE_ERR_INPUT_NOT_SET);
  CHECK(contains(pte_last_error(), "input 0 was never set"));
  CHECK_FAILS(pte_method_output(m, 0, &view), PTE_ERR_NOT_EXECUTED);
  CHECK_FAILS(pte_method_set_input(m, 2, PTE_DTYPE_FLOAT32, sizes, 2, x, sizeof(x)), PTE_ERR_INPUT_INDEX);
  CHECK(contains(pte_last_error(), "add/model.pte: method forward: input index 2 out of range"));
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_INT64, sizes, 2, i64, sizeof(i64)), PTE_ERR_INPUT_DTYPE);
  CHECK(contains(pte_last_error(), "dtype differs"));
  CHECK_FAILS(pte_method_set_input(m, 0, static_cast<pte_dtype>(99), sizes, 2, x, sizeof(x)), PTE_ERR_INPUT_DTYPE);
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 1, x, sizeof(x)), PTE_ERR_INPUT_SHAPE);
  CHECK(contains(pte_last_error(), "rank differs"));
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, wrong, 2, x, sizeof(x)), PTE_ERR_INPUT_SHAPE);
  CHECK(contains(pte_last_error(), "static shape"));
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, neg, 2, x, sizeof(x)), PTE_ERR_INPUT_SHAPE);
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, huge, 2, x, sizeof(x)), PTE_ERR_INPUT_SHAPE);
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 17, x, sizeof(x)), PTE_ERR_INPUT_SHAPE);
  CHECK_FAILS(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 2, x, sizeof(x) - 1), PTE_ERR_INPUT_DATA);
  CHECK(contains(pte_last_error(), "23 bytes given, the tensor needs 24"));

  REQUIRE(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 2, x, sizeof(x)) == PTE_OK);
  REQUIRE(pte_method_set_input(m, 1, PTE_DTYPE_FLOAT32, sizes, 2, y, sizeof(y)) == PTE_OK);
  REQUIRE(pte_method_execute(m) == PTE_OK);
  CHECK_FAILS(pte_method_output(m, 1, &view), PTE_ERR_OUTPUT_INDEX);
  CHECK_FAILS(pte_method_copy_output(m, 0, out, sizeof(out) - 1, nullptr), PTE_ERR_BUFFER_TOO_SMALL);
  CHECK(contains(pte_last_error(), "output 0 has 24 bytes, the buffer 23"));
  CHECK_FAILS(pte_method_copy_output(m, 0, nullptr, sizeof(out), nullptr), PTE_ERR_NULL_POINTER);
  REQUIRE(pte_method_copy_output(m, 0, out, sizeof(out), nullptr) == PTE_OK);
  for (int i = 0; i < 6; ++i) CHECK(out[i] == x[i] + y[i]);
  REQUIRE(pte_method_output(m, 0, &view) == PTE_OK);
  CHECK(view.dtype == PTE_DTYPE_FLOAT32);
  CHECK(view.nbytes == sizeof(out));
  pte_method_destroy(m);
}

TEST_CASE("capi: caller memory too small for the plan, exactly enough, and misaligned") {
  pte_program* p = nullptr;
  REQUIRE(pte_program_open_file("fixtures/data/mlp/model.pte", nullptr, &p) == PTE_OK);
  size_t need = 0;
  REQUIRE(pte_method_memory_needed(p, "forward", nullptr, &need) == PTE_OK);
  REQUIRE(need > 0);
  std::vector<uint8_t> storage(need + 128);
  uint8_t* aligned = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  pte_method_options mo;
  pte_method_options_init(&mo);
  mo.memory = aligned;
  mo.memory_bytes = need - 1;
  pte_method* m = nullptr;
  CHECK_FAILS(pte_method_load(p, "forward", &mo, &m), PTE_ERR_MEMORY_TOO_SMALL);
  CHECK(contains(pte_last_error(), "bytes but the plan needs"));
  CHECK(m == nullptr);
  mo.memory = aligned + 1;  // the block's alignment costs 63 bytes
  mo.memory_bytes = need;
  CHECK_FAILS(pte_method_load(p, "forward", &mo, &m), PTE_ERR_MEMORY_TOO_SMALL);
  mo.memory = aligned;
  REQUIRE_MESSAGE(pte_method_load(p, "forward", &mo, &m) == PTE_OK, pte_last_error());
  pte_method_destroy(m);
  pte_program_destroy(p);

  // a small scratch arena: add's whole plan fits in a few hundred bytes
  REQUIRE(pte_program_open_file("fixtures/data/add/model.pte", nullptr, &p) == PTE_OK);
  pte_method_options_init(&mo);
  mo.scratch_bytes = 64;
  REQUIRE(pte_method_memory_needed(p, "forward", &mo, &need) == PTE_OK);
  CHECK(need <= 512);
  alignas(64) static uint8_t small[512];
  mo.memory = small;
  mo.memory_bytes = sizeof(small);
  REQUIRE_MESSAGE(pte_method_load(p, "forward", &mo, &m) == PTE_OK, pte_last_error());
  float x[6] = {1, 2, 3, 4, 5, 6}, out[6] = {};
  const int64_t sizes[2] = {2, 3};
  REQUIRE(pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 2, x, sizeof(x)) == PTE_OK);
  REQUIRE(pte_method_set_input(m, 1, PTE_DTYPE_FLOAT32, sizes, 2, x, sizeof(x)) == PTE_OK);
  REQUIRE_MESSAGE(pte_method_execute(m) == PTE_OK, pte_last_error());
  REQUIRE(pte_method_copy_output(m, 0, out, sizeof(out), nullptr) == PTE_OK);
  for (int i = 0; i < 6; ++i) CHECK(out[i] == 2 * x[i]);
  pte_method_destroy(m);
  pte_program_destroy(p);
}

TEST_CASE("capi: missing files, garbage and every truncation of a program return load codes") {
  pte_program* p = nullptr;
  CHECK_FAILS(pte_program_open_file("fixtures/data/no_such.pte", nullptr, &p), PTE_ERR_FILE_NOT_FOUND);
  CHECK(contains(pte_last_error(), "no_such.pte: cannot open"));
  CHECK_FAILS(pte_program_open_file("fixtures/data", nullptr, &p), PTE_ERR_FILE_UNREADABLE);
  std::vector<uint8_t> garbage(4096);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  CHECK_FAILS(pte_program_open_memory(garbage.data(), garbage.size(), nullptr, &p), PTE_ERR_NOT_A_PROGRAM);
  CHECK(p == nullptr);
  std::memcpy(garbage.data() + 4, "ET11", 4);
  CHECK_FAILS(pte_program_open_memory(garbage.data(), garbage.size(), nullptr, &p), PTE_ERR_UNSUPPORTED_VERSION);
  std::memcpy(garbage.data() + 4, "ET12", 4);
  pte_error_t e = pte_program_open_memory(garbage.data(), garbage.size(), nullptr, &p);
  CHECK(pte_error_stage(e) == PTE_ERR_LOAD);
  CHECK(e != PTE_ERR_LOAD);  // a specific code
  CHECK(p == nullptr);

  for (const char* f : {"add", "mlp_xnnpack"}) {
    CAPTURE(f);
    std::vector<uint8_t> bytes = read_bytes(kData + f + "/model.pte");
    const size_t stride = bytes.size() < 2000 ? 1 : 7;
    size_t failures = 0, tried = 0;
    for (size_t n = 0; n < bytes.size(); n += stride) {
      // a heap copy of exactly n bytes: ASan sees any read past the prefix
      std::unique_ptr<uint8_t[]> prefix(new uint8_t[n ? n : 1]);
      if (n) std::memcpy(prefix.get(), bytes.data(), n);
      ++tried;
      e = pte_program_open_memory(prefix.get(), n, nullptr, &p);
      if (e == PTE_OK) {  // accepted: loading and running must still be safe
        pte_method* m = nullptr;
        if (pte_method_load(p, "forward", nullptr, &m) == PTE_OK) pte_method_execute(m);
        pte_method_destroy(m);
        pte_program_destroy(p);
        continue;
      }
      ++failures;
      CHECK_MESSAGE(pte_error_stage(e) == PTE_ERR_LOAD, n << " bytes: " << pte_error_name(e) << ": " << pte_last_error());
      CHECK(std::strlen(pte_last_error()) > 0);
    }
    CHECK(failures == tried);  // no proper prefix is a whole program
  }
  // every byte of add flipped in turn: open, load and run return codes (any), never crash
  std::vector<uint8_t> bytes = read_bytes(kData + "add/model.pte");
  size_t opened = 0, ran = 0;
  float x[6] = {1, 2, 3, 4, 5, 6};
  const int64_t sizes[2] = {2, 3};
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> v = bytes;
    v[i] ^= 0xff;
    e = pte_program_open_memory(v.data(), v.size(), nullptr, &p);
    if (e != PTE_OK) {
      CHECK(std::string(pte_error_name(e)) != "PTE_ERR_UNKNOWN");
      continue;
    }
    ++opened;
    pte_method* m = nullptr;
    if (pte_method_load(p, "forward", nullptr, &m) == PTE_OK) {
      pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 2, x, sizeof(x));
      pte_method_set_input(m, 1, PTE_DTYPE_FLOAT32, sizes, 2, x, sizeof(x));
      if (pte_method_execute(m) == PTE_OK) ++ran;
    } else {
      CHECK(std::strlen(pte_last_error()) > 0);
    }
    pte_method_destroy(m);
    pte_program_destroy(p);
  }
  MESSAGE(bytes.size() << " flipped bytes: " << opened << " programs opened, " << ran << " ran");
}

TEST_CASE("capi: unknown methods and unsupported operators at method load") {
  pte_program* p = nullptr;
  REQUIRE(pte_program_open_file("fixtures/data/add/model.pte", nullptr, &p) == PTE_OK);
  pte_method* m = nullptr;
  size_t n = 0;
  CHECK_FAILS(pte_method_load(p, "nope", nullptr, &m), PTE_ERR_UNKNOWN_METHOD);
  CHECK_FAILS(pte_method_memory_needed(p, "nope", nullptr, &n), PTE_ERR_UNKNOWN_METHOD);
  pte_program_destroy(p);

  // synthetic programs in memory: an operator no build has, a backend we lack, a broken XNNPACK blob
  struct Case {
    const char* op;
    const char* backend;
    pte_error_t code;
    const char* says;
  };
  for (const Case& c : {Case{"foo::bar", nullptr, PTE_ERR_UNSUPPORTED_OPERATOR, "unsupported operator foo::bar"},
                        Case{nullptr, "VulkanBackend", PTE_ERR_UNSUPPORTED_DELEGATE, "unsupported delegate VulkanBackend"},
                        Case{nullptr, "XnnpackBackend", PTE_ERR_DELEGATE_BLOB_MALFORMED, "delegate 0 (XnnpackBackend)"}}) {
    CAPTURE(c.says);
    pte::test::ProgramBuilder b;
    int a = b.i(0);
    if (c.op) b.kernel(b.op(c.op), {a});
    if (c.backend) b.call_delegate(b.delegate(c.backend), {a});
    std::unique_ptr<pte::Program> unused;
    REQUIRE(b.open(&unused).is_ok());
    std::vector<uint8_t> bytes = b.bytes();
    REQUIRE(pte_program_open_memory(bytes.data(), bytes.size(), nullptr, &p) == PTE_OK);
    CHECK_FAILS(pte_method_load(p, "forward", nullptr, &m), c.code);
    CHECK(contains(pte_last_error(), c.says));
    CHECK(m == nullptr);
    pte_program_destroy(p);
  }
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
