// pte-run: the typed error codes of pte::Status (include/pte/status.h): the table (unique
// names, stages by range, the C API's names) and the code each failure reports at its
// source, from committed fixtures and synthetic programs.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "program_builder.h"
#include "pte/program.h"
#include "pte/pte.h"

namespace pte {
namespace {

// Every code, in table order (kept by hand: the test fails when a code is added to the
// enum without a name, or names repeat).
const ErrorCode kAll[] = {
    ErrorCode::Ok, ErrorCode::Internal, ErrorCode::Load, ErrorCode::FileNotFound, ErrorCode::FileUnreadable,
    ErrorCode::NotAProgram, ErrorCode::UnsupportedVersion, ErrorCode::Truncated, ErrorCode::Malformed,
    ErrorCode::DataFileInvalid, ErrorCode::MethodLoad, ErrorCode::UnknownMethod, ErrorCode::UnsupportedOperator,
    ErrorCode::UnsupportedDelegate, ErrorCode::MalformedMethod, ErrorCode::AllocationFailed, ErrorCode::MemoryTooSmall,
    ErrorCode::ExternalDataMissing, ErrorCode::KernelArguments, ErrorCode::Input, ErrorCode::InputIndex, ErrorCode::InputDtype, ErrorCode::InputShape,
    ErrorCode::InputKind, ErrorCode::InputData, ErrorCode::InputNotSet, ErrorCode::Execute, ErrorCode::KernelFailed,
    ErrorCode::InstructionLimit, ErrorCode::Stopped, ErrorCode::Delegate, ErrorCode::DelegateBlobMalformed,
    ErrorCode::DelegateNodeUnsupported, ErrorCode::DelegateExecuteFailed, ErrorCode::InvalidArgument,
    ErrorCode::NullHandle, ErrorCode::NullPointer, ErrorCode::NotExecuted, ErrorCode::OutputIndex,
    ErrorCode::BufferTooSmall, ErrorCode::NotATensor, ErrorCode::OutOfMemory, ErrorCode::Generation,
    ErrorCode::TokenizerUnavailable, ErrorCode::NotADecoder, ErrorCode::ContextFull,
};

std::unique_ptr<Program> open_fixture(const std::string& path) {
  std::unique_ptr<Program> p;
  Status s = Program::open_file(path, {}, &p);
  REQUIRE_MESSAGE(s, s.message());
  return p;
}

}  // namespace

TEST_CASE("status codes: names are unique, stages follow the ranges, the C API names each") {
  std::set<std::string> names, c_names;
  std::set<int32_t> values;
  for (ErrorCode c : kAll) {
    const int32_t v = static_cast<int32_t>(c);
    CAPTURE(v);
    CHECK(values.insert(v).second);
    std::string n = error_code_name(c);
    CHECK(n != "Unknown");
    CHECK(names.insert(n).second);
    std::string cn = pte_error_name(static_cast<pte_error_t>(v));
    CHECK(cn != "PTE_ERR_UNKNOWN");
    CHECK(c_names.insert(cn).second);
    ErrorCode stage = error_stage(c);
    if (v < 0x100) {
      CHECK(stage == c);
    } else {
      CHECK(static_cast<int32_t>(stage) == (v & 0xff00));
      CHECK(values.count(v & 0xff00) == 1);  // the stage's generic code exists (listed first)
    }
    CHECK(static_cast<int32_t>(pte_error_stage(static_cast<pte_error_t>(v))) == static_cast<int32_t>(stage));
  }
  CHECK(std::string(error_code_name(static_cast<ErrorCode>(0x0999))) == "Unknown");
  CHECK(std::string(pte_error_name(static_cast<pte_error_t>(0x0999))) == "PTE_ERR_UNKNOWN");
}

TEST_CASE("status codes: Status keeps its code through context and takes a default at a boundary") {
  Status ok;
  CHECK(ok.code() == ErrorCode::Ok);
  CHECK(ok.with_default_code(ErrorCode::Load).is_ok());
  Status plain = Status::error("inner");
  CHECK(plain.code() == ErrorCode::Internal);
  plain.context("outer").with_default_code(ErrorCode::MethodLoad);
  CHECK(plain.code() == ErrorCode::MethodLoad);
  CHECK(plain.message() == "outer: inner");
  Status coded = Status::error(ErrorCode::InputDtype, "x");
  coded.with_default_code(ErrorCode::Input);
  CHECK(coded.code() == ErrorCode::InputDtype);  // a specific code stays
  CHECK(Status::error(ErrorCode::Ok, "not ok").code() == ErrorCode::Internal);  // a failure is never Ok
}

TEST_CASE("status codes: opening programs") {
  std::unique_ptr<Program> p;
  Status s = Program::open_file("fixtures/data/no_such.pte", {}, &p);
  CHECK(s.code() == ErrorCode::FileNotFound);
  s = Program::open_file("fixtures/data", {}, &p);
  CHECK(s.code() == ErrorCode::FileUnreadable);
  s = Program::open_file("fixtures/data/manifest.json", {}, &p);
  CHECK(s.code() == ErrorCode::NotAProgram);
  CHECK(s.message().find("not an ExecuTorch program") != std::string::npos);

  std::ifstream f("fixtures/data/add/model.pte", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 64);
  s = Program::open_buffer(bytes.data(), 6, "short", {}, &p);
  CHECK(s.code() == ErrorCode::Truncated);
  s = Program::open_buffer(bytes.data(), bytes.size() - 16, "cut", {}, &p);
  CHECK((s.code() == ErrorCode::Truncated || s.code() == ErrorCode::Malformed));
  std::vector<uint8_t> v = bytes;
  std::memcpy(v.data() + 4, "ET10", 4);
  s = Program::open_buffer(v.data(), v.size(), "old", {}, &p);
  CHECK(s.code() == ErrorCode::UnsupportedVersion);
  v = bytes;
  for (size_t i = 40; i < v.size(); i += 3) v[i] ^= 0x5a;  // tables scrambled
  s = Program::open_buffer(v.data(), v.size(), "scrambled", {}, &p);
  CHECK(!s.is_ok());
  CHECK(error_stage(s.code()) == ErrorCode::Load);
  s = Program::open_buffer(nullptr, 10, "null", {}, &p);
  CHECK(s.code() == ErrorCode::InvalidArgument);
  OpenOptions o;
  o.data_files = {"fixtures/data/no_such.ptd"};
  s = Program::open_file("fixtures/data/add/model.pte", o, &p);
  CHECK(s.code() == ErrorCode::FileNotFound);
}

TEST_CASE("status codes: loading methods") {
  auto p = open_fixture("fixtures/data/mlp/model.pte");
  std::unique_ptr<Method> m;
  CHECK(p->load_method("nope", {}, &m).code() == ErrorCode::UnknownMethod);
  size_t need = 0;
  CHECK(p->memory_needed("nope", {}, &need).code() == ErrorCode::UnknownMethod);
  REQUIRE(p->memory_needed("forward", {}, &need).is_ok());
  std::vector<uint8_t> block(need + 64);
  Program::MethodOptions mo;
  mo.memory = block.data() + (64 - reinterpret_cast<uintptr_t>(block.data()) % 64) % 64;
  mo.memory_bytes = need - 1;
  Status s = p->load_method("forward", mo, &m);
  CHECK(s.code() == ErrorCode::MemoryTooSmall);

  test::ProgramBuilder b;
  int a = b.i(0);
  b.kernel(b.op("foo::bar", "out"), {a});
  std::unique_ptr<Program> q;
  REQUIRE(b.open(&q).is_ok());
  CHECK(q->load_method("forward", {}, &m).code() == ErrorCode::UnsupportedOperator);
  test::ProgramBuilder d;
  int x = d.i(0);
  d.call_delegate(d.delegate("VulkanBackend"), {x});
  REQUIRE(d.open(&q).is_ok());
  CHECK(q->load_method("forward", {}, &m).code() == ErrorCode::UnsupportedDelegate);
}

TEST_CASE("status codes: inputs and execution") {
  auto p = open_fixture("fixtures/data/add/model.pte");
  std::unique_ptr<Method> m;
  REQUIRE(p->load_method("forward", {}, &m).is_ok());
  CHECK(m->execute().code() == ErrorCode::InputNotSet);
  float data[6] = {};
  Tensor t;
  t.dtype = DType::Float;
  t.dim = 2;
  t.sizes[0] = 2;
  t.sizes[1] = 3;
  t.dim_order[1] = 1;
  t.data = data;
  t.capacity = sizeof(data);
  compute_strides(t);
  CHECK(m->set_input(2, t).code() == ErrorCode::InputIndex);
  Tensor wrong = t;
  wrong.dtype = DType::Int32;
  CHECK(m->set_input(0, wrong).code() == ErrorCode::InputDtype);
  wrong = t;
  wrong.sizes[1] = 2;
  compute_strides(wrong);
  CHECK(m->set_input(0, wrong).code() == ErrorCode::InputShape);
  wrong = t;
  wrong.data = nullptr;
  CHECK(m->set_input(0, wrong).code() == ErrorCode::InputData);
  EValue three;
  three.tag = Tag::Int;
  three.i = 3;
  CHECK(m->set_input(0, three).code() == ErrorCode::InputKind);
  REQUIRE(m->set_input(0, t).is_ok());
  REQUIRE(m->set_input(1, t).is_ok());
  CHECK(m->execute().is_ok());
}

}  // namespace pte
