// pte-run: bad input through the C API never crashes (the suite also runs under ASan +
// UBSan): null handles and pointers to every function, wrong dtypes, ranks, sizes and byte
// counts, indices out of range, outputs read too early or into a small buffer, a block too
// small for the plan, missing files, garbage, every truncation of a program and every byte
// flipped, unsupported operators and delegates: each returns its code and a message.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi_helpers.h"
#include "program_builder.h"
#include "pte/pte.h"

extern "C" int pte_capi_c_nulls(void);

using pte_test::contains;
using pte_test::read_bytes;

namespace {
const std::string kData = "fixtures/data/";
}  // namespace

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
