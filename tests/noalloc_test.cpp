// pte-run: Method::execute() performs no heap allocation.
//
// This file replaces the global allocation functions of the test binary (operator
// new/delete and malloc/calloc/realloc/aligned_alloc/posix_memalign through glibc's
// __libc_* entry points) with counting versions. Counting is off except inside an
// AllocationCounter scope, so the rest of the test suite is unaffected.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>

#include "ops/kernel.h"
#include "program_builder.h"
#include "pte/pte.h"

// Sanitizers bring their own allocator; the counting replacement is left out there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PTE_COUNT_ALLOCATIONS 0
#else
#define PTE_COUNT_ALLOCATIONS 1
#endif

#if PTE_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
inline void count() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(size_t n) { count(); return __libc_malloc(n); }
void* calloc(size_t a, size_t b) { count(); return __libc_calloc(a, b); }
void* realloc(void* p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void* p) { __libc_free(p); }
void* aligned_alloc(size_t align, size_t n) { count(); return __libc_memalign(align, n); }
void* memalign(size_t align, size_t n) { count(); return __libc_memalign(align, n); }
int posix_memalign(void** out, size_t align, size_t n) {
  count();
  void* p = __libc_memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}

void* operator new(size_t n) {
  count();
  if (void* p = __libc_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { count(); return __libc_malloc(n ? n : 1); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { count(); return __libc_malloc(n ? n : 1); }
void* operator new(size_t n, std::align_val_t a) {
  count();
  if (void* p = __libc_memalign(static_cast<size_t>(a), n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { __libc_free(p); }
#else
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace
#endif

namespace pte {
namespace {

using test::HostTensor;
using test::ProgramBuilder;

struct AllocationCounter {
  AllocationCounter() { g_allocations = 0; g_counting = true; }
  ~AllocationCounter() { g_counting = false; }
  long count() const { return g_allocations.load(); }
};

TEST_CASE("noalloc: the counter sees allocations") {
  if (!PTE_COUNT_ALLOCATIONS) {
    MESSAGE("skipped: allocation counting is off under sanitizers");
    return;
  }
  AllocationCounter c;
  void* volatile p = std::malloc(16);
  std::free(p);
  int* volatile q = new int(3);
  delete q;
  CHECK(c.count() == 2);
}

TEST_CASE("noalloc: execute() of a program with prim ops, moves, loops and views allocates nothing") {
  ProgramBuilder b;
  ProgramBuilder::TensorSpec xs;
  xs.sizes = {16};
  xs.dynamism = Dynamism::DynamicBound;
  xs.mem_id = 1;
  int x = b.tensor(xs);
  int zero = b.i(0), one = b.i(1), n = b.i(0), i = b.i(0), done = b.b(false), m1 = b.i(-1), two = b.i(2), half = b.i(0);
  int size_list = b.int_list({two, m1});
  ProgramBuilder::TensorSpec vs;
  vs.sizes = {2, 8};
  vs.dynamism = Dynamism::DynamicBound;
  int v = b.tensor(vs);
  int copy = b.i(0);
  b.buffer_sizes = {0, 64};
  int sym = b.op("aten::sym_size", "int"), add = b.op("executorch_prim::add", "Scalar"), ge = b.op("executorch_prim::ge", "Scalar");
  int fdiv = b.op("executorch_prim::floordiv", "Scalar"), view = b.op("executorch_prim::et_view", "default");
  int numel = b.op("aten::sym_numel");
  b.kernel(sym, {x, zero, n});           // 0: n = len(x)
  b.move(zero, i);                       // 1: i = 0
  b.kernel(add, {i, one, i});            // 2: i += 1
  b.kernel(ge, {i, n, done});            // 3: done = i >= n
  b.jump_false(done, 2);                 // 4
  b.kernel(fdiv, {n, two, half});        // 5
  b.kernel(view, {x, size_list, v});     // 6
  b.kernel(numel, {v, copy});            // 7
  b.move(copy, half);                    // 8
  b.inputs = {x};
  b.outputs = {v, i, half};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  std::unique_ptr<Method> m;
  REQUIRE(p->load_method("forward", {}, &m).is_ok());
  HostTensor in(DType::Float, {12}, std::vector<float>(12, 1.5f));
  REQUIRE(m->set_input(0, in.t).is_ok());
  REQUIRE(m->execute().is_ok());  // warm up
  long allocations;
  Status s;
  {
    AllocationCounter c;
    for (int k = 0; k < 5; ++k) s = m->execute();
    allocations = c.count();
  }
  REQUIRE(s.is_ok());
  CHECK(allocations == 0);
  CHECK(m->output(1).i == 12);
  CHECK(m->output(2).i == 12);
  CHECK(m->output(0).t->sizes[1] == 6);
}

TEST_CASE("noalloc: execute() of exported programs allocates nothing") {
  // Several ops each (elementwise, reductions, permute/view, addmm, dynamic shapes).
  const char* files[] = {
      "fixtures/data/ops_mix/model.pte",
      "fixtures/data/mlp/model.pte",
      "fixtures/data/dynamic_shape/model.pte",
      "../shared/pte-corpus/executorch/module_model_2024-03.pte",
  };
  for (const char* file : files) {
    std::string path = file;
    CAPTURE(path);
    struct { const char* file; } c{file};
    if (!std::filesystem::exists(c.file)) {
      MESSAGE("skipped: " << c.file << " is absent");
      continue;
    }
    std::unique_ptr<Program> p;
    REQUIRE(Program::open_file(c.file, {}, &p).is_ok());
    std::unique_ptr<Method> m;
    Status ls = p->load_method("forward", {}, &m);
    if (!ls.is_ok()) {
      MESSAGE("skipped (kernels not all registered yet): " << ls.message());
      continue;
    }
    std::vector<HostTensor> inputs;
    for (size_t k = 0; k < m->info().inputs.size(); ++k) {
      const TensorInfo& ti = m->info().inputs[k].tensor;
      REQUIRE(ti.dtype == DType::Float);
      int64_t n = 1;
      for (int64_t s : ti.sizes) n *= s;
      std::vector<float> vals(static_cast<size_t>(n));
      for (int64_t e = 0; e < n; ++e) vals[static_cast<size_t>(e)] = 0.25f * static_cast<float>(e % 7) - 0.5f;
      inputs.emplace_back(DType::Float, ti.sizes, vals);
      REQUIRE(m->set_input(k, inputs.back().t).is_ok());
    }
    REQUIRE(m->execute().is_ok());
    long allocations;
    Status s;
    {
      AllocationCounter counter;
      s = m->execute();
      allocations = counter.count();
    }
    CHECK_MESSAGE(s.is_ok(), s.message());
    CHECK(allocations == 0);
  }
}

TEST_CASE("noalloc: execute() with fp32 linear layers and delegated convolutions on the XNNPACK library allocates nothing") {
  // operators created, weights packed and convolutions' indirection buffers sized at load
  // (the input's largest shape); a call only sets them up for this input's address and runs them
  struct Case {
    const char* file;
    std::vector<int64_t> sizes;
  };
  const Case cases[] = {{"fixtures/data/mlp/model.pte", {3, 16}},
                        {"fixtures/data/mlp_xnnpack/model.pte", {3, 16}},
                        {"fixtures/data/cnn_xnnpack/model.pte", {1, 3, 16, 16}}};  // conv, depthwise conv, pooling
  for (const Case& c : cases) {
    CAPTURE(c.file);
    REQUIRE_MESSAGE(std::filesystem::exists(c.file), c.file << " is missing (a committed fixture)");
    std::unique_ptr<Program> p;
    REQUIRE(Program::open_file(c.file, {}, &p).is_ok());
    Program::MethodOptions mo;
    mo.num_threads = 2;
    mo.xnnpack = XnnpackPolicy::On;
    std::unique_ptr<Method> m;
    REQUIRE(p->load_method("forward", mo, &m).is_ok());
    int64_t n = 1;
    for (int64_t d : c.sizes) n *= d;
    std::vector<float> values(static_cast<size_t>(n));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
    HostTensor a(DType::Float, c.sizes, values), b(DType::Float, c.sizes, values);
    REQUIRE(m->set_input(0, a.t).is_ok());
    REQUIRE(m->execute().is_ok());
    long allocations;
    Status s;
    {
      AllocationCounter counter;
      for (int k = 0; k < 3; ++k) {
        s = m->set_input(0, (k % 2 ? a : b).t);  // another input address each call
        if (s.is_ok()) s = m->execute();
      }
      allocations = counter.count();
    }
    CHECK_MESSAGE(s.is_ok(), s.message());
    CHECK(allocations == 0);
  }
}

TEST_CASE("noalloc: through the C API, after a load into caller memory nothing is allocated") {
  // set_input, execute, the output view and the copy allocate nothing (mlp: a 3x16 input)
  const char* file = "fixtures/data/mlp/model.pte";
  pte_program* p = nullptr;
  REQUIRE_MESSAGE(pte_program_open_file(file, nullptr, &p) == PTE_OK, pte_last_error());
  size_t need = 0;
  REQUIRE(pte_method_memory_needed(p, "forward", nullptr, &need) == PTE_OK);
  std::vector<uint8_t> block(need + 64);
  pte_method_options mo;
  pte_method_options_init(&mo);
  mo.memory = block.data() + (64 - reinterpret_cast<uintptr_t>(block.data()) % 64) % 64;
  mo.memory_bytes = need;
  pte_method* m = nullptr;
  REQUIRE_MESSAGE(pte_method_load(p, "forward", &mo, &m) == PTE_OK, pte_last_error());
  std::vector<float> in(48, 0.25f), out(64);
  const int64_t sizes[2] = {3, 16};
  pte_tensor_view v;
  long allocations;
  pte_error_t e[4];
  {
    AllocationCounter counter;
    e[0] = pte_method_set_input(m, 0, PTE_DTYPE_FLOAT32, sizes, 2, in.data(), in.size() * sizeof(float));
    e[1] = pte_method_execute(m);
    e[2] = pte_method_output(m, 0, &v);
    e[3] = pte_method_copy_output(m, 0, out.data(), out.size() * sizeof(float), nullptr);
    allocations = counter.count();
  }
  for (pte_error_t x : e) CHECK_MESSAGE(x == PTE_OK, pte_last_error());
  CHECK(allocations == 0);
  pte_method_destroy(m);
  pte_program_destroy(p);
}

}  // namespace
}  // namespace pte
