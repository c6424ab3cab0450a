// pte-run: method loading and execution (interpreter/method*.cpp).
// Synthetic programs (tests/program_builder.h) exercise each instruction kind and each
// validation path with the prim ops as kernels; real exported files from
// ../shared/pte-corpus check the whole path and are skipped when absent.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "interpreter/method.h"
#include "interpreter/xnnpack/exec.h"
#include "ops/kernel.h"
#include "program_builder.h"
#include "util/compare.h"
#include "util/host_tensor.h"
#include "util/json.h"
#include "util/npy.h"

namespace pte {
namespace {

using test::HostTensor;
using test::ProgramBuilder;
using test::tensor_shape;
using test::tensor_values;

const std::string kCorpus = "../shared/pte-corpus/";

bool have_file(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  MESSAGE("skipped: " << path << " is absent");
  return false;
}

bool have_kernels(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (!find_kernel(n)) {
      MESSAGE("waiting for kernel " << n << " (not registered yet): part of this test skipped");
      return false;
    }
  return true;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::unique_ptr<Program> open(const std::string& path, std::vector<std::string> data = {}) {
  std::unique_ptr<Program> p;
  OpenOptions o;
  o.data_files = std::move(data);
  Status s = Program::open_file(path, o, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return p;
}

std::unique_ptr<Method> load(Program& p, const std::string& name, bool replan = false) {
  std::unique_ptr<Method> m;
  Program::MethodOptions o;
  o.replan_memory = replan;
  Status s = p.load_method(name, o, &m);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return m;
}

// The code of the last load_error (every load failure has a method-load stage code).
ErrorCode g_load_code = ErrorCode::Ok;

std::string load_error(Program& p, const std::string& name) {
  std::unique_ptr<Method> m;
  Status s = p.load_method(name, {}, &m);
  CHECK_FALSE(s.is_ok());
  g_load_code = s.code();
  CHECK_MESSAGE(error_stage(s.code()) != ErrorCode::Internal, error_code_name(s.code()) << ": " << s.message());
  CHECK(m == nullptr);
  return s.message();
}

std::string load_error(ProgramBuilder& b) {
  std::unique_ptr<Program> p;
  Status s = b.open(&p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return load_error(*p, "forward");
}

// ------------------------------------------------------------------ instructions

TEST_CASE("method: a JumpFalse loop counts with prim ops") {
  ProgramBuilder b;
  int i = b.i(0), one = b.i(1), n = b.i(5), done = b.b(false);
  int add = b.op("executorch_prim::add", "Scalar"), ge = b.op("executorch_prim::ge", "Scalar");
  b.kernel(add, {i, one, i});      // 0: i += 1
  b.kernel(ge, {i, n, done});      // 1: done = i >= n
  b.jump_false(done, 0);           // 2: loop while not done
  b.outputs = {i, done};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  for (bool replan : {false, true}) {
    auto m = load(*p, "forward", replan);
    REQUIRE(m->execute().is_ok());
    CHECK(m->output(0).tag == Tag::Int);
    CHECK(m->output(0).i == 5);
    CHECK(m->output(1).b == true);
    // State persists (the emitter resets loop counters itself): one more pass.
    REQUIRE(m->execute().is_ok());
    CHECK(m->output(0).i == 6);
  }
}

TEST_CASE("method: a loop that never ends stops at the instruction limit") {
  ProgramBuilder b;
  int f = b.b(false);
  b.jump_false(f, 0);
  b.outputs = {f};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  auto m = load(*p, "forward");
  Status s = m->execute();
  REQUIRE_FALSE(s.is_ok());
  CHECK(contains(s.message(), "synthetic.pte: method forward: stopped after 10000000 instructions"));
  CHECK(s.code() == ErrorCode::InstructionLimit);
}

TEST_CASE("method: MoveCall copies the value; JumpFalse on a bool tensor; FreeCall is harmless") {
  ProgramBuilder b;
  int a = b.i(7), c = b.i(0), skipped = b.i(0), one = b.i(1);
  int mask = b.constant<uint8_t>(DType::Bool, {3}, {1, 0, 1});
  int all_true = b.constant<uint8_t>(DType::Bool, {2}, {1, 1});
  int add = b.op("executorch_prim::add", "Scalar");
  b.move(a, c);                          // 0: c = 7
  b.jump_false(mask, 3);                 // 1: one element false -> jump to 3
  b.kernel(add, {skipped, one, skipped});  // 2: skipped
  b.jump_false(all_true, 5);             // 3: all true -> fall through
  b.kernel(add, {c, one, c});            // 4: c = 8
  b.free_value(c);                       // 5
  b.outputs = {c, skipped};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  auto m = load(*p, "forward");
  REQUIRE(m->execute().is_ok());
  CHECK(m->output(0).i == 8);
  CHECK(m->output(1).i == 0);
}

TEST_CASE("method: prim ops compute symbolic sizes and et_view binds data at run time") {
  for (bool planned_input : {true, false}) {
    CAPTURE(planned_input);
    ProgramBuilder b;
    ProgramBuilder::TensorSpec xs;
    xs.sizes = {8};
    xs.dynamism = Dynamism::DynamicBound;
    if (planned_input) { xs.mem_id = 1; xs.offset = 0; }
    int x = b.tensor(xs);
    int zero = b.i(0), s = b.i(0), two = b.i(2), half = b.i(0), minus1 = b.i(-1);
    int sizes = b.int_list({two, minus1});
    ProgramBuilder::TensorSpec vs;
    vs.sizes = {2, 4};
    vs.dynamism = Dynamism::DynamicBound;
    int v = b.tensor(vs);
    b.buffer_sizes = {0, 32};
    int sym_size = b.op("aten::sym_size", "int"), fdiv = b.op("executorch_prim::floordiv", "Scalar");
    int view = b.op("executorch_prim::et_view", "default");
    b.kernel(sym_size, {x, zero, s});     // s = x.size(0)
    b.kernel(fdiv, {s, two, half});       // half = s // 2
    b.kernel(view, {x, sizes, v});        // v = x.view(2, -1)
    b.inputs = {x};
    b.outputs = {v, s, half};
    std::unique_ptr<Program> p;
    REQUIRE(b.open(&p).is_ok());
    CHECK(signature_string(p->info().methods[0]) == "forward(f32[<=8]) -> (f32[<=2,<=4], int, int)");
    for (bool replan : {false, true}) {
      auto m = load(*p, "forward", replan);
      HostTensor in(DType::Float, {6}, std::vector<float>{1, 2, 3, 4, 5, 6});
      REQUIRE(m->set_input(0, in.t).is_ok());
      REQUIRE(m->execute().is_ok());
      CHECK(m->output(1).i == 6);
      CHECK(m->output(2).i == 3);
      CHECK(tensor_shape(m->output(0)) == std::vector<int64_t>{2, 3});
      CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{1, 2, 3, 4, 5, 6});
      if (!planned_input) CHECK(m->output(0).t->data == in.t.data);  // bound by pointer, viewed in place

      HostTensor small(DType::Float, {4}, std::vector<float>{9, 8, 7, 6});
      REQUIRE(m->set_input(0, small.t).is_ok());
      REQUIRE(m->execute().is_ok());
      CHECK(tensor_shape(m->output(0)) == std::vector<int64_t>{2, 2});
      CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{9, 8, 7, 6});
      CHECK(m->output(2).i == 2);

      // Over the bound, wrong rank, wrong dtype: refused with the signature.
      HostTensor big(DType::Float, {9}, std::vector<float>(9, 1.0f));
      Status st = m->set_input(0, big.t);
      REQUIRE_FALSE(st.is_ok());
      CHECK(contains(st.message(), "synthetic.pte: method forward: input 0: expected f32[<=8], got f32[9] (over the dynamic bound)"));
      CHECK(contains(st.message(), "forward(f32[<=8]) -> ("));
      HostTensor rank2(DType::Float, {2, 2}, std::vector<float>(4, 1.0f));
      CHECK(contains(m->set_input(0, rank2.t).message(), "(rank differs)"));
      HostTensor ints(DType::Int64, {4}, std::vector<int64_t>(4, 1));
      CHECK(contains(m->set_input(0, ints.t).message(), "expected f32[<=8], got i64[4] (dtype differs)"));
      // A 5-element input cannot be viewed as (2, -1).
      HostTensor odd(DType::Float, {5}, std::vector<float>(5, 1.0f));
      REQUIRE(m->set_input(0, odd.t).is_ok());
      Status ex = m->execute();
      REQUIRE_FALSE(ex.is_ok());
      CHECK(contains(ex.message(), "synthetic.pte: method forward: instruction 2 (executorch_prim::et_view.default): cannot view 5 elements"));
    }
  }
}

TEST_CASE("method: a kernel failure names file, method, instruction and operator") {
  ProgramBuilder b;
  ProgramBuilder::TensorSpec xs;
  xs.sizes = {3};
  xs.mem_id = 1;
  int x = b.tensor(xs);
  int five = b.i(5), s = b.i(0);
  b.buffer_sizes = {0, 12};
  int sym_size = b.op("aten::sym_size", "int");
  b.kernel(sym_size, {x, five, s});
  b.inputs = {x};
  b.outputs = {s};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  auto m = load(*p, "forward");
  Status not_set = m->execute();
  CHECK(contains(not_set.message(), "synthetic.pte: method forward: input 0 was never set (the method is forward(f32[3]) -> (int))"));
  CHECK(not_set.code() == ErrorCode::InputNotSet);
  HostTensor in(DType::Float, {3}, std::vector<float>{1, 2, 3});
  REQUIRE(m->set_input(0, in.t).is_ok());
  Status s1 = m->execute();
  CHECK(s1.message() == "synthetic.pte: method forward: instruction 0 (aten::sym_size.int): dim 5 is out of range for a tensor of rank 1");
  CHECK(s1.code() == ErrorCode::KernelFailed);
  HostTensor wrong(DType::Float, {4}, std::vector<float>{1, 2, 3, 4});
  CHECK(contains(m->set_input(0, wrong.t).message(), "expected f32[3], got f32[4] (static shape)"));
  CHECK(m->set_input(0, wrong.t).code() == ErrorCode::InputShape);
  HostTensor wrong_dtype(DType::Int32, {3}, std::vector<int32_t>{1, 2, 3});
  CHECK(m->set_input(0, wrong_dtype.t).code() == ErrorCode::InputDtype);
  CHECK(contains(m->set_input(1, in.t).message(), "input index 1 out of range"));
  CHECK(m->set_input(1, in.t).code() == ErrorCode::InputIndex);
}

TEST_CASE("method: non-tensor inputs must equal the value baked in at export") {
  ProgramBuilder b;
  int k = b.i(3), scale = b.d(0.5), flag = b.b(true), name = b.str("abc"), none = b.null();
  int sum = b.i(0);
  int add = b.op("executorch_prim::add", "Scalar");
  b.kernel(add, {k, scale, sum});
  b.inputs = {k, scale, flag, name, none};
  b.outputs = {sum};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  auto m = load(*p, "forward");
  CHECK(signature_string(m->info()) == "forward(int=3, float=0.5, bool=true, str=\"abc\", None) -> (int)");  // the result slot was serialized as an Int
  EValue v;
  v.tag = Tag::Int;
  v.i = 3;
  CHECK(m->set_input(0, v).is_ok());
  v.i = 4;
  Status s = m->set_input(0, v);
  CHECK(contains(s.message(), "input 0: expected int=3 (baked in at export), got int=4; the method is forward(int=3"));
  CHECK(s.code() == ErrorCode::InputKind);
  EValue d;
  d.tag = Tag::Double;
  d.d = 0.50004;  // within atol 1e-4
  CHECK(m->set_input(1, d).is_ok());
  d.d = 0.5002;
  CHECK_FALSE(m->set_input(1, d).is_ok());
  EValue bv;
  bv.tag = Tag::Bool;
  bv.b = false;
  CHECK_FALSE(m->set_input(2, bv).is_ok());
  bv.b = true;
  CHECK(m->set_input(2, bv).is_ok());
  CHECK_FALSE(m->set_input(3, v).is_ok());
  // Non-tensor inputs need no set_input: they are baked in.
  REQUIRE(m->execute().is_ok());
  CHECK(m->output(0).tag == Tag::Double);
  CHECK(m->output(0).d == doctest::Approx(3.5));
  HostTensor t(DType::Float, {1}, std::vector<float>{1});
  CHECK(contains(m->set_input(0, t.t).message(), "expected int=3, got a tensor"));
}

// ------------------------------------------------------------------ validation

TEST_CASE("method: malformed indices are refused at load with a clear message") {
  std::unique_ptr<Method> m_unused;
  SUBCASE("kernel argument") {
    ProgramBuilder b;
    int a = b.i(1);
    b.kernel(b.op("executorch_prim::add", "Scalar"), {a, 99, a});
    CHECK(contains(load_error(b), "synthetic.pte: method forward: instruction 0 argument 1 refers to value 99 of 1"));
    CHECK(g_load_code == ErrorCode::MalformedMethod);
  }
  SUBCASE("negative argument") {
    ProgramBuilder b;
    int a = b.i(1);
    b.kernel(b.op("executorch_prim::add", "Scalar"), {a, -1, a});
    CHECK(contains(load_error(b), "instruction 0 argument 1 refers to value -1 of 1"));
  }
  SUBCASE("operator index") {
    ProgramBuilder b;
    int a = b.i(1);
    b.op("executorch_prim::add", "Scalar");
    b.kernel(5, {a, a, a});
    CHECK(contains(load_error(b), "instruction 0 calls operator 5 of 1"));
  }
  SUBCASE("jump destination") {
    ProgramBuilder b;
    int c = b.b(true);
    b.jump_false(c, 7);
    CHECK(contains(load_error(b), "instruction 0 jumps to instruction 7 of 1"));
  }
  SUBCASE("jump condition kind") {
    ProgramBuilder b;
    int c = b.i(0);
    b.jump_false(c, 0);
    CHECK(contains(load_error(b), "instruction 0: jump condition is a Int, not a Bool or bool tensor"));
  }
  SUBCASE("jump condition index") {
    ProgramBuilder b;
    b.i(0);
    b.jump_false(4, 0);
    CHECK(contains(load_error(b), "instruction 0 (jump condition) refers to value 4 of 1"));
  }
  SUBCASE("move") {
    ProgramBuilder b;
    int a = b.i(0);
    b.move(a, 3);
    CHECK(contains(load_error(b), "instruction 0 (move to) refers to value 3 of 1"));
  }
  SUBCASE("free") {
    ProgramBuilder b;
    b.i(0);
    b.free_value(-2);
    CHECK(contains(load_error(b), "instruction 0 (free) refers to value -2 of 1"));
  }
  SUBCASE("delegate index") {
    ProgramBuilder b;
    int a = b.i(0);
    b.call_delegate(3, {a});
    CHECK(contains(load_error(b), "instruction 0 calls delegate 3 of 0"));
  }
  SUBCASE("int list item") {
    ProgramBuilder b;
    b.i(0);
    b.int_list({0, 12});
    CHECK(contains(load_error(b), "value 1 (int list item 1) refers to value 12 of 2"));
  }
  SUBCASE("int list item kind") {
    ProgramBuilder b;
    int s = b.str("x");
    b.int_list({s});
    CHECK(contains(load_error(b), "value 1 (int list item 0) refers to a String, not an Int"));
  }
  SUBCASE("tensor list item") {
    ProgramBuilder b;
    int a = b.i(0);
    b.tensor_list({a});
    CHECK(contains(load_error(b), "value 1 (tensor list item 0) refers to a Int, not a Tensor"));
    ProgramBuilder c;
    c.tensor_list({-1}, false);
    CHECK(contains(load_error(c), "value 0 (tensor list item 0) refers to value -1 of 1"));
  }
  SUBCASE("input and output indices") {
    ProgramBuilder b;
    b.i(0);
    b.inputs = {42};
    // describe() already checks this when the program is opened.
    std::unique_ptr<Program> p;
    Status s = b.open(&p);
    CHECK_FALSE(s.is_ok());
    CHECK(contains(s.message(), "input 0 refers to value 42 of 1"));
  }
  SUBCASE("planned tensor outside its arena") {
    ProgramBuilder b;
    b.f32({8}, 4);
    b.buffer_sizes = {0, 32};
    CHECK(contains(load_error(b), "value 0 (tensor f32[8], 32 bytes at offset 4) lies outside planned buffer 1 (32 bytes)"));
  }
  SUBCASE("memory id past the arenas") {
    ProgramBuilder b;
    ProgramBuilder::TensorSpec s;
    s.sizes = {2};
    s.mem_id = 2;
    b.tensor(s);
    b.buffer_sizes = {0, 64};
    CHECK(contains(load_error(b), "value 0 (tensor) is planned in arena 2 but the plan has 1"));
  }
  SUBCASE("offset past 4 GiB") {
    ProgramBuilder b;
    b.f32({2}, uint64_t{1} << 33);
    b.buffer_sizes = {0, 64};
    CHECK(contains(load_error(b), "lies outside planned buffer 1 (64 bytes)"));
  }
  SUBCASE("union types without their table") {
    for (auto type : {test::fbs::KernelTypes::Tensor, test::fbs::KernelTypes::Int, test::fbs::KernelTypes::IntList}) {
      ProgramBuilder b;
      b.i(0);
      b.typed_but_empty(type);
      std::unique_ptr<Program> p;
      Status s = b.open(&p);
      if (s.is_ok()) s = p->load_method("forward", {}, &m_unused);
      CHECK_FALSE(s.is_ok());
      CHECK(contains(s.message(), "value 1"));
    }
    ProgramBuilder d;
    d.i(0);
    d.empty_instruction(test::fbs::InstructionArguments::KernelCall);
    std::unique_ptr<Program> p;
    Status s = d.open(&p);
    if (s.is_ok()) s = p->load_method("forward", {}, &m_unused);
    CHECK_FALSE(s.is_ok());
    CHECK(contains(s.message(), "instruction 0"));
  }
  SUBCASE("prim op arity") {
    ProgramBuilder b;
    int a = b.i(0);
    b.kernel(b.op("executorch_prim::neg", "Scalar"), {a, a, a});
    CHECK(contains(load_error(b), "instruction 0 (executorch_prim::neg.Scalar) passes 3 arguments, the kernel takes 2"));
  }
}

TEST_CASE("method: a kernel's load-time step refuses dtypes it never runs, naming the instruction and operator") {
  if (!have_kernels({"aten::add.out", "aten::mul.out"})) return;
  for (bool bad : {false, true}) {
    CAPTURE(bad);
    ProgramBuilder b;
    int x = b.f32({2}, 0);
    int y = b.f32({2}, 64);
    ProgramBuilder::TensorSpec os;
    os.dtype = bad ? DType::Int64 : DType::Float;  // float + float cannot be written into int64
    os.sizes = {2};
    os.mem_id = 1;
    os.offset = 128;
    int out = b.tensor(os);
    int alpha = b.i(1);
    b.buffer_sizes = {0, 192};
    int mul = b.op("aten::mul", "out"), add = b.op("aten::add", "out");
    b.kernel(mul, {x, x, y, y});
    b.kernel(add, {x, y, alpha, out, out});
    b.inputs = {x};
    b.outputs = {out};
    std::unique_ptr<Program> p;
    REQUIRE(b.open(&p).is_ok());
    if (bad) {
      std::string e = load_error(*p, "forward");
      CHECK(e == "synthetic.pte: method forward: instruction 1 (aten::add.out): result type float32 can't be cast to the desired output type int64");
      CHECK(g_load_code == ErrorCode::KernelArguments);
      continue;
    }
    auto m = load(*p, "forward", false);
    HostTensor in(DType::Float, {2}, std::vector<float>{1.5f, -2.0f});
    REQUIRE(m->set_input(0, in.t).is_ok());
    REQUIRE(m->execute().is_ok());
    CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{1.5f + 2.25f, -2.0f + 4.0f});
  }
}

TEST_CASE("method: every missing operator and delegate is reported in one line") {
  ProgramBuilder b;
  int a = b.i(0);
  int bar = b.op("foo::bar", "out"), baz = b.op("foo::baz"), add = b.op("executorch_prim::add", "Scalar");
  int d = b.delegate("VulkanBackend");
  b.kernel(add, {a, a, a});
  b.kernel(bar, {a});
  b.kernel(baz, {a});
  b.call_delegate(d, {a});
  b.kernel(bar, {a});
  std::string e = load_error(b);
  CHECK(e == "synthetic.pte: method forward: unsupported delegate VulkanBackend (delegate 0, instruction 3), "
             "unsupported operator foo::bar.out (instruction 1), unsupported operator foo::baz (instruction 2)");
  CHECK(g_load_code == ErrorCode::UnsupportedOperator);
  CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("method: unknown method names list the available ones") {
  ProgramBuilder b;
  b.i(0);
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  CHECK(load_error(*p, "nope") == "synthetic.pte: no method named 'nope' (methods: forward)");
  CHECK(g_load_code == ErrorCode::UnknownMethod);
}

// ------------------------------------------------------------------ memory

// A method with one mutable buffer (planned, read before written) in a 192-byte arena:
// buf += [1, 10]; y = buf + x. Run k gives x + [k, 10k]. The program points into `b`'s bytes:
// keep the builder alive as long as the program.
static std::unique_ptr<Program> buffer_program(ProgramBuilder& b) {
  int buf = b.f32({2}, 0);
  int one = b.constant<float>(DType::Float, {2}, {1.0f, 10.0f});
  int alpha = b.i(1);
  int x = b.f32({2}, 64);
  int y = b.f32({2}, 128);
  b.buffer_sizes = {0, 192};
  int add = b.op("aten::add", "out");
  b.kernel(add, {buf, one, alpha, buf, buf});
  b.kernel(add, {buf, x, alpha, y, y});
  b.inputs = {x};
  b.outputs = {y};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  return p;
}

TEST_CASE("method: mutable buffers persist between runs (file plan and re-plan)") {
  if (!have_kernels({"aten::add.out"})) return;
  ProgramBuilder b;
  std::unique_ptr<Program> p = buffer_program(b);
  for (bool replan : {false, true}) {
    auto m = load(*p, "forward", replan);
    HostTensor in(DType::Float, {2}, std::vector<float>{0.5f, 0.25f});
    for (int run = 1; run <= 3; ++run) {
      REQUIRE(m->set_input(0, in.t).is_ok());
      REQUIRE(m->execute().is_ok());
      CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{run * 1.0f + 0.5f, run * 10.0f + 0.25f});
    }
    if (replan) CHECK(static_cast<MethodImpl*>(m.get())->replanned());
  }
}

TEST_CASE("method: planned buffers and scratch in caller memory (file plan and re-plan)") {
  if (!have_kernels({"aten::add.out"})) return;
  ProgramBuilder b;
  std::unique_ptr<Program> p = buffer_program(b);  // its buffer persists in the caller's block
  for (bool replan : {false, true}) {
    CAPTURE(replan);
    Program::MethodOptions mo;
    mo.replan_memory = replan;
    mo.scratch_bytes = 1000;
    size_t need = 0;
    REQUIRE(p->memory_needed("forward", mo, &need).is_ok());
    // the file plan: one 192-byte buffer and the scratch, each rounded to 64 bytes
    if (!replan) CHECK(need == 192 + 1024);
    CHECK(need >= 1024 + 64);
    CHECK(need <= 192 + 1024);
    alignas(64) static uint8_t block[4096];
    std::memset(block, 0xAB, sizeof(block));  // load zero-fills what it takes

    // too small by one byte: refused with the size it needs
    mo.memory = block;
    mo.memory_bytes = need - 1;
    std::unique_ptr<Method> m;
    Status st = p->load_method("forward", mo, &m);
    REQUIRE(!st.is_ok());
    CHECK(st.message().find("plan needs " + std::to_string(need)) != std::string::npos);
    CHECK(st.code() == ErrorCode::MemoryTooSmall);
    // misaligned by 8: the 56 bytes to realign count against the block
    mo.memory = block + 8;
    mo.memory_bytes = need;
    CHECK(!p->load_method("forward", mo, &m).is_ok());

    mo.memory = block;
    mo.memory_bytes = need;
    REQUIRE(p->load_method("forward", mo, &m).is_ok());
    HostTensor in(DType::Float, {2}, std::vector<float>{0.5f, 0.25f});
    for (int run = 1; run <= 2; ++run) {
      REQUIRE(m->set_input(0, in.t).is_ok());
      REQUIRE(m->execute().is_ok());
      CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{run * 1.0f + 0.5f, run * 10.0f + 0.25f});
    }
    const auto* out = static_cast<const uint8_t*>(m->output(0).t->data);
    CHECK(out >= block);
    CHECK(out < block + need);
    std::vector<StateTensor> st_tensors = m->state_tensors();
    REQUIRE(st_tensors.size() == 1);
    const auto* state = static_cast<const uint8_t*>(st_tensors[0].tensor->data);
    CHECK(state >= block);
    CHECK(state < block + need);
    CHECK(block[need] == 0xAB);  // nothing past the block is touched
    m.reset();
  }
  // an unknown method is named
  size_t need = 0;
  CHECK(!p->memory_needed("nope", {}, &need).is_ok());
}

TEST_CASE("method: inputs_by_pointer binds planned inputs in place, unless a folded view shares their slot") {
  if (!have_kernels({"aten::add.out"})) return;
  for (bool with_view : {false, true}) {
    CAPTURE(with_view);
    ProgramBuilder b;
    int x = b.f32({2}, 0);     // planned inputs
    int z = b.f32({2}, 64);
    int y = b.f32({2}, 128);   // output: y = x + z (+ v)
    int v = b.f32({2}, 0);     // a planned value no instruction writes, in x's slot: a folded view of x
    int alpha = b.i(1);
    b.buffer_sizes = {0, 192};
    int add = b.op("aten::add", "out");
    b.kernel(add, {x, z, alpha, y, y});
    if (with_view) b.kernel(add, {y, v, alpha, y, y});
    b.inputs = {x, z};
    b.outputs = {y};
    std::unique_ptr<Program> p;
    REQUIRE(b.open(&p).is_ok());
    Program::MethodOptions mo;
    mo.inputs_by_pointer = {0, 7};  // out-of-range indices are ignored
    std::unique_ptr<Method> m;
    REQUIRE(p->load_method("forward", mo, &m).is_ok());
    CHECK(m->input_bound_by_pointer(0) == !with_view);
    CHECK(!m->input_bound_by_pointer(1));
    CHECK(!m->input_bound_by_pointer(9));
    HostTensor a(DType::Float, {2}, std::vector<float>{1.0f, 2.0f});
    HostTensor c(DType::Float, {2}, std::vector<float>{10.0f, 20.0f});
    REQUIRE(m->set_input(0, a.t).is_ok());
    REQUIRE(m->set_input(1, c.t).is_ok());
    REQUIRE(m->execute().is_ok());
    // the view reads x's bytes: the input copied into the slot
    std::vector<float> want = with_view ? std::vector<float>{12.0f, 24.0f} : std::vector<float>{11.0f, 22.0f};
    CHECK(tensor_values<float>(m->output(0)) == want);
    // bound in place: the method reads the caller's memory as it is at execute
    static_cast<float*>(a.t.data)[0] = 100.0f;
    REQUIRE(m->execute().is_ok());
    CHECK(tensor_values<float>(m->output(0))[0] == (with_view ? 12.0f : 110.0f));
  }
}

TEST_CASE("method: a program without a memory plan is re-planned automatically") {
  if (!have_kernels({"aten::add.out", "aten::mul.out"})) return;
  ProgramBuilder b;
  ProgramBuilder::TensorSpec s;
  s.sizes = {3};
  int x = b.tensor(s), t1 = b.tensor(s), t2 = b.tensor(s), t3 = b.tensor(s);  // nothing planned
  int alpha = b.i(1);
  int add = b.op("aten::add", "out"), mul = b.op("aten::mul", "out");
  b.kernel(add, {x, x, alpha, t1, t1});   // t1 = 2x
  b.kernel(mul, {t1, x, t2, t2});         // t2 = 2x^2
  b.kernel(add, {t2, t1, alpha, t3, t3}); // t3 = 2x^2 + 2x
  b.inputs = {x};
  b.outputs = {t3};
  std::unique_ptr<Program> p;
  REQUIRE(b.open(&p).is_ok());
  auto m = load(*p, "forward");
  CHECK(static_cast<MethodImpl*>(m.get())->replanned());
  CHECK(m->arena_bytes() >= 3 * 64);  // t1, t2 and t3 (64-byte slots): t1 and t2 live together
  CHECK(m->arena_bytes() <= 3 * 64);
  HostTensor in(DType::Float, {3}, std::vector<float>{1, 2, -3});
  REQUIRE(m->set_input(0, in.t).is_ok());
  REQUIRE(m->execute().is_ok());
  CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{4, 12, 12});
}

// ------------------------------------------------------------------ real files

TEST_CASE("method: corpus add_apple.pte adds") {
  std::string f = kCorpus + "executorch/add_apple.pte";
  if (!have_file(f) || !have_kernels({"aten::add.out"})) return;
  auto p = open(f);
  for (bool replan : {false, true}) {
    auto m = load(*p, "forward", replan);
    struct Case { float a, b, sum; } cases[] = {{1, 1, 2}, {2, 3, 5}, {13.25f, 29.25f, 42.5f}};
    for (const Case& c : cases) {
      HostTensor a(DType::Float, {1}, std::vector<float>{c.a}), bb(DType::Float, {1}, std::vector<float>{c.b});
      REQUIRE(m->set_input(0, a.t).is_ok());
      REQUIRE(m->set_input(1, bb.t).is_ok());
      REQUIRE(m->execute().is_ok());
      CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{c.sum});
    }
  }
}

TEST_CASE("method: corpus programs with external weights (.ptd)") {
  std::string f = kCorpus + "executorch-rs/data_map_model.pte", d = kCorpus + "executorch-rs/_default_external_constant.ptd";
  if (!have_file(f) || !have_file(d)) return;
  {
    auto p = open(f);
    CHECK(contains(load_error(*p, "forward"), "external tensor 'a' is in no data file (pass its .ptd with --data)"));
    CHECK(g_load_code == ErrorCode::ExternalDataMissing);
  }
  if (!have_kernels({"aten::add.out", "aten::mul.out"})) return;
  auto p = open(f, {d});
  auto m = load(*p, "forward");
  HostTensor x(DType::Float, {2, 2}, std::vector<float>{1, 2, 3, 4});
  REQUIRE(m->set_input(0, x.t).is_ok());
  REQUIRE(m->execute().is_ok());
  CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{5, 8, 11, 14});  // 3x + 2
}

TEST_CASE("method: corpus constant methods") {
  std::string f = kCorpus + "executorch-numpy-runtime/const_methods.pte";
  if (!have_file(f)) return;
  auto p = open(f);
  auto run = [&](const char* name) -> EValue {
    auto m = load(*p, name);
    CHECK(m->info().is_constant);
    CHECK(m->num_outputs() == 1);
    REQUIRE(m->execute().is_ok());
    return m->output(0);
  };
  EValue s = run("get_scalar");
  CHECK(s.tag == Tag::Int);
  CHECK(s.i == 128);
  EValue d = run("get_double");
  CHECK(d.tag == Tag::Double);
  CHECK(d.d == 2.5);
  EValue b = run("get_bool");
  CHECK(b.tag == Tag::Bool);
  CHECK(b.b == true);
  auto m = load(*p, "get_tensor");
  REQUIRE(m->execute().is_ok());
  CHECK(m->output(0).t->dtype == DType::Int64);
  CHECK(tensor_values<int64_t>(m->output(0)) == std::vector<int64_t>{1, 2, 3});
  CHECK(m->arena_bytes() == 0);
}

TEST_CASE("method: corpus QNN llama: constant methods run, the delegated ones are refused") {
  std::string f = kCorpus + "executorch/stories260k_hybrid_llama_qnn.pte";
  if (!have_file(f)) return;
  auto p = open(f);
  for (auto [name, want] : {std::pair<const char*, int64_t>{"get_vocab_size", 512}, {"get_max_seq_len", 128}}) {
    auto m = load(*p, name);
    REQUIRE(m->execute().is_ok());
    CHECK(m->output(0).tag == Tag::Int);
    CHECK(m->output(0).i == want);
  }
  std::string e = load_error(*p, "kv_forward");
  CHECK(contains(e, "stories260k_hybrid_llama_qnn.pte: method kv_forward: unsupported delegate QnnBackend (delegate 0, instruction 0)"));
}

TEST_CASE("method: corpus programs with unsupported operators or delegates are refused naming them") {
  struct Case { const char* file; const char* expect; } cases[] = {
      {"executorch/arduino_KeywordSpotting_cortex_m.pte", "unsupported operator cortex_m::quantize_per_tensor.out (instruction 0)"},
      {"executorch/pr17248_cadence_conv2d_quantized.pte", "unsupported operator cadence::quantize_per_tensor.out (instruction 0)"},
      {"executorch-numpy-runtime/lstm/lstm_etnp_custom_op.pte", "unsupported operator etnp::lstm.out (instruction 0)"},
      {"cmsis-executorch/ethos_u_minimal_example.pte", "unsupported delegate EthosUBackend (delegate 0, instruction 2)"},
  };
  for (const Case& c : cases) {
    std::string f = kCorpus + c.file;
    CAPTURE(f);
    if (!have_file(f)) continue;
    auto p = open(f);
    std::string e = load_error(*p, "forward");
    CHECK(contains(e, std::string(c.file) + ": method forward: "));
    CHECK(contains(e, c.expect));
    CHECK(e.find('\n') == std::string::npos);
  }
}

TEST_CASE("method: corpus programs with several methods") {
  std::string f = kCorpus + "executorch-numpy-runtime/multi.pte";
  if (!have_file(f) || !have_kernels({"aten::add.out", "dim_order_ops::_to_dim_order_copy.out"})) return;
  auto p = open(f);
  auto fwd = load(*p, "forward");
  auto dbl = load(*p, "double");
  HostTensor x(DType::Float, {2}, std::vector<float>{1.5f, -2});
  REQUIRE(fwd->set_input(0, x.t).is_ok());
  REQUIRE(dbl->set_input(0, x.t).is_ok());
  REQUIRE(fwd->execute().is_ok());
  REQUIRE(dbl->execute().is_ok());
  // Both methods exist side by side with their own memory.
  CHECK(fwd->output(0).t->data != dbl->output(0).t->data);
  CHECK(tensor_values<float>(dbl->output(0)).size() == 2);
}

TEST_CASE("method: thread pool and scratch options") {
  std::string f = kCorpus + "node-executorch/mul.pte";
  if (!have_file(f) || !have_kernels({"aten::mul.out"})) return;
  auto p = open(f);
  for (int threads : {1, 2, 0}) {
    std::unique_ptr<Method> m;
    Program::MethodOptions o;
    o.num_threads = threads;
    o.scratch_bytes = 1 << 16;
    REQUIRE(p->load_method("forward", o, &m).is_ok());
    HostTensor a(DType::Float, {3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
    REQUIRE(m->set_input(0, a.t).is_ok());
    REQUIRE(m->set_input(1, a.t).is_ok());
    REQUIRE(m->execute().is_ok());
    CHECK(tensor_values<float>(m->output(0)) == std::vector<float>{1, 4, 9, 16, 25, 36});
  }
}

// Runs every step of a fixture case (fixtures/data/manifest.json) in ONE loaded method,
// so state carried between calls (mutable buffers, KV caches) is exercised; compares
// with the ExecuTorch outputs. Returns false when the case cannot run here.
bool run_fixture_case(const json::Value& c, bool replan, size_t* arena, std::string* why) {
  const std::string dir = "fixtures/data/";
  auto p = std::unique_ptr<Program>();
  OpenOptions oo;
  if (const json::Value* df = c.find("data_files"))
    for (const json::Value& f : df->items()) oo.data_files.push_back(dir + f.as_string());
  Status s = Program::open_file(dir + c.find("file")->as_string(), oo, &p);
  if (!s) { *why = s.message(); return false; }
  std::unique_ptr<Method> m;
  Program::MethodOptions mo;
  mo.replan_memory = replan;
  s = p->load_method(c.find("method")->as_string(), mo, &m);
  if (!s) { *why = s.message(); return false; }
  *arena = m->arena_bytes();
  double atol = c.find("atol")->as_double(), rtol = c.find("rtol")->as_double();
  const auto& steps = c.find("steps")->items();
  for (size_t st = 0; st < steps.size(); ++st) {
    CAPTURE(st);
    std::vector<util::HostValue> in;
    for (const json::Value& v : steps[st].find("inputs")->items()) {
      util::HostValue hv;
      const std::string& kind = v.find("kind")->as_string();
      if (kind == "tensor") {
        hv.tag = Tag::Tensor;
        REQUIRE(util::npy_read(dir + v.find("file")->as_string(), &hv.tensor).is_ok());
      } else if (kind == "int") {
        hv.tag = Tag::Int;
        hv.i = v.find("value")->as_int();
      } else if (kind == "float") {
        hv.tag = Tag::Double;
        hv.d = v.find("value")->as_double();
      } else if (kind == "bool") {
        hv.tag = Tag::Bool;
        hv.b = v.find("value")->as_bool();
      }
      in.push_back(std::move(hv));
    }
    std::vector<util::BoundInput> bound;
    Status si = util::set_inputs(*m, in, &bound);
    REQUIRE_MESSAGE(si.is_ok(), si.message());
    Status ex = m->execute();
    REQUIRE_MESSAGE(ex.is_ok(), ex.message());
    const auto& expected = steps[st].find("expected_et")->items();
    REQUIRE(m->num_outputs() == expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      CAPTURE(k);
      const json::Value& e = expected[k];
      util::HostValue got;
      REQUIRE(util::host_from_evalue(m->output(k), &got).is_ok());
      if (e.find("kind")->as_string() != "tensor") {
        CHECK(got.tag != Tag::Tensor);
        continue;
      }
      util::HostTensor want;
      REQUIRE(util::npy_read(dir + e.find("file")->as_string(), &want).is_ok());
      REQUIRE(got.tag == Tag::Tensor);
      CHECK(got.tensor.shape == want.shape);
      if (got.tensor.shape != want.shape) continue;
      // util::compare_tensors: |a-b| <= atol + rtol*|b|, and equal infinities / NaNs match
      // (masked_fill(-inf) outputs), integers exactly.
      util::CompareOptions co;
      co.atol = atol;
      co.rtol = rtol;
      co.bf16_bytewise = false;
      util::CompareResult cr = util::compare_tensors(got.tensor, want, co);
      CHECK_MESSAGE(cr.ok, cr.message << " (max abs err " << cr.max_abs_err << ")");
    }
  }
  return true;
}

TEST_CASE("method: fixture programs, step by step in one method, file plan and re-plan") {
  json::Value manifest;
  if (!have_file("fixtures/data/manifest.json")) return;
  REQUIRE(json::parse_file("fixtures/data/manifest.json", &manifest).is_ok());
  for (const json::Value& c : manifest.find("cases")->items()) {
    std::string name = c.find("name")->as_string();
    CAPTURE(name);
    if (!std::filesystem::exists("fixtures/data/" + c.find("file")->as_string())) continue;
    size_t file_arena = 0, re_arena = 0;
    std::string why;
    if (!run_fixture_case(c, false, &file_arena, &why)) {
      MESSAGE(name << ": skipped: " << why);
      continue;
    }
    REQUIRE(run_fixture_case(c, true, &re_arena, &why));
    MESSAGE(name << ": ok; arena bytes: file plan " << file_arena << ", re-plan " << re_arena);
  }
}

TEST_CASE("method: file plan vs re-plan arena bytes on the corpus") {
  const char* files[] = {"executorch/add_apple.pte", "executorch/ModuleLinear-no-constant-segment.pte", "executorch/module_model_2024-03.pte",
                         "node-executorch/mul.pte", "executorch-numpy-runtime/dtypes.pte"};
  for (const char* rel : files) {
    std::string f = kCorpus + rel;
    if (!std::filesystem::exists(f)) continue;
    auto p = open(f);
    std::unique_ptr<Method> a, b;
    Program::MethodOptions o;
    if (!p->load_method("forward", o, &a).is_ok()) continue;
    o.replan_memory = true;
    REQUIRE(p->load_method("forward", o, &b).is_ok());
    CHECK(a->arena_bytes() == file_plan_bytes(a->info()));
    CHECK(b->arena_bytes() > 0);
    MESSAGE(std::string(rel) << ": file plan " << a->arena_bytes() << " bytes, re-plan " << b->arena_bytes() << " bytes");
  }
}

// A dynamically quantized product whose prepared activations (M x K bytes and the block
// sums) do not fit the method's scratch runs in slices of rows that do (a 2000-token prompt
// of Qwen3-0.6B 8da4w took the scalar reference for its down projections: 200 s instead of
// 10 s): the same bits as the official runtime, sliced or not.
TEST_CASE("method: an 8da4w product larger than the scratch runs in slices of rows, the official bits") {
  const std::string dir = "fixtures/data/qlinear_8da4w_xnnpack/";
  std::unique_ptr<Program> p;
  REQUIRE(Program::open_file(dir + "model.pte", {}, &p).is_ok());
  util::HostTensor x, want;
  REQUIRE(util::npy_read(dir + "input_0_0.npy", &x).is_ok());
  REQUIRE(util::npy_read(dir + "expected_et_0_0.npy", &want).is_ok());
  REQUIRE(x.shape == std::vector<int64_t>{3, 64});  // 3 rows of 64: 192 bytes prepared, 216 with the block sums
  for (size_t scratch : {size_t(0), size_t(150), size_t(100)}) {  // default; 2 rows a slice; 1 row a slice
    CAPTURE(scratch);
    Program::MethodOptions mo;
    mo.scratch_bytes = scratch;
    std::unique_ptr<Method> m;
    REQUIRE(p->load_method("forward", mo, &m).is_ok());
    const uint64_t before = xnn::qd8_sliced_runs();
    util::HostValue in;
    in.tag = Tag::Tensor;
    in.tensor = x;
    std::vector<util::BoundInput> bound;
    REQUIRE(util::set_inputs(*m, {in}, &bound).is_ok());
    REQUIRE(m->execute().is_ok());
    CHECK(xnn::qd8_sliced_runs() - before == (scratch ? 2u : 0u));  // its two products
    util::HostValue got;
    REQUIRE(util::host_from_evalue(m->output(0), &got).is_ok());
    REQUIRE(got.tensor.shape == want.shape);
    REQUIRE(got.tensor.bytes.size() == want.bytes.size());
    CHECK(std::memcmp(got.tensor.bytes.data(), want.bytes.data(), want.bytes.size()) == 0);
  }
}

}  // namespace
}  // namespace pte

TEST_CASE("value: a resize whose byte count wraps 64 (or 32) bits is refused") {
  float storage[8] = {};
  using namespace pte;
  Tensor t;
  t.dtype = DType::Double;
  t.dim = 1;
  t.sizes[0] = 8;
  t.data = storage;
  t.capacity = sizeof(storage);
  t.dynamism = Dynamism::DynamicBound;
  compute_strides(t);
  int64_t four[] = {4};
  CHECK(resize_tensor(t, four, 1));
  CHECK(t.sizes[0] == 4);
  // 2^61 doubles are 2^64 bytes: the product wraps to 0, which must not pass as "fits".
  int64_t wrap[] = {int64_t{1} << 61};
  CHECK_FALSE(resize_tensor(t, wrap, 1));
  // 2^29 doubles are 2^32 bytes: what a 32-bit size_t wraps to 0.
  int64_t wrap32[] = {int64_t{1} << 29};
  CHECK_FALSE(resize_tensor(t, wrap32, 1));
  CHECK(t.sizes[0] == 4);
}
