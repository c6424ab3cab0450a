// pte-run: the hooks the benchmarks rely on: per-operator profiling and the load-time
// folding of permute_copy(constant weight) into a strided view (zero-copy weights).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ops/util.h"
#include "pte/program.h"
#include "util/host_tensor.h"
#include "util/npy.h"

namespace {

const char* kTiny = "fixtures/data/tiny_llama/model.pte";

struct Loaded {
  std::unique_ptr<pte::Program> prog;
  std::unique_ptr<pte::Method> m;
  std::vector<pte::util::BoundInput> bound;
  // Inputs are set before every run: the file's plan may reuse a planned input's
  // arena bytes once the input has been read.
  pte::Status run() {
    for (size_t k = 0; k < bound.size(); ++k) {
      pte::Status s = m->set_input(k, bound[k].tensor);
      if (!s) return s;
    }
    return m->execute();
  }
};

void load_tiny(Loaded* l) {
  REQUIRE(pte::Program::open_file(kTiny, {}, &l->prog).is_ok());
  pte::Program::MethodOptions mo;
  mo.num_threads = 1;
  REQUIRE(l->prog->load_method("forward", mo, &l->m).is_ok());
  std::vector<pte::util::HostValue> in(2);
  for (int k = 0; k < 2; ++k) {
    in[k].tag = pte::Tag::Tensor;
    std::string p = "fixtures/data/tiny_llama/input_0_" + std::to_string(k) + ".npy";
    REQUIRE(pte::util::npy_read(p, &in[k].tensor).is_ok());
  }
  REQUIRE(pte::util::set_inputs(*l->m, in, &l->bound).is_ok());
}

}  // namespace

TEST_CASE("profiling: per-operator calls and time over execute(); off by default") {
  Loaded l;
  load_tiny(&l);
  CHECK(l.m->profile().empty());  // nothing collected while off
  REQUIRE(l.run().is_ok());
  CHECK(l.m->profile().empty());
  l.m->set_profiling(true);
  REQUIRE(l.run().is_ok());
  REQUIRE(l.run().is_ok());
  auto prof = l.m->profile();
  REQUIRE(!prof.empty());
  uint64_t mm_calls = 0, total_calls = 0;
  double total_ms = 0;
  for (const auto& o : prof) {
    CHECK(o.calls % 2 == 0);  // two identical executions
    CHECK(o.total_ms >= 0.0);
    total_calls += o.calls;
    total_ms += o.total_ms;
    if (o.name == "aten::mm.out") mm_calls = o.calls;
  }
  CHECK(mm_calls > 0);
  CHECK(total_ms > 0.0);
  // Turning it on again clears what was collected.
  l.m->set_profiling(true);
  CHECK(l.m->profile().empty());
  l.m->set_profiling(false);
  REQUIRE(l.run().is_ok());
  CHECK(l.m->profile().empty());
}

TEST_CASE("constant weights: permute_copy feeding mm is folded, results unchanged") {
  Loaded l;
  load_tiny(&l);
  l.m->set_profiling(true);
  REQUIRE(l.run().is_ok());
  uint64_t permutes = 0, mms = 0;
  for (const auto& o : l.m->profile()) {
    if (o.name == "aten::permute_copy.out") permutes = o.calls;
    if (o.name == "aten::mm.out") mms = o.calls;
  }
  // tiny_llama's 15 linear layers are permute_copy(W) + mm; only the activation
  // permutes (attention heads) are left to run.
  CHECK(mms == 15);
  CHECK(permutes == 15);
  pte::util::HostTensor expect, got;
  REQUIRE(pte::util::npy_read("fixtures/data/tiny_llama/expected_et_0_0.npy", &expect).is_ok());
  REQUIRE(pte::util::host_from_tensor(*l.m->output(0).t, &got).is_ok());
  REQUIRE(got.bytes.size() == expect.bytes.size());
  const float* g = reinterpret_cast<const float*>(got.bytes.data());
  const float* e = reinterpret_cast<const float*>(expect.bytes.data());
  double worst = 0;
  for (int64_t i = 0; i < got.numel(); ++i) worst = std::max(worst, std::fabs(double(g[i]) - e[i]));
  CHECK(worst < 1e-4);
}

// The prefill step (input_0_*) of fixture `dir` with last_row_of_output_only, its logits and
// the official runtime's for that step. Missing fixture files fail the calling test.
static void prefill_last_row_only(const std::string& dir, pte::util::HostTensor* got, pte::util::HostTensor* expect) {
  for (const char* f : {"model.pte", "input_0_0.npy", "input_0_1.npy", "expected_et_0_0.npy"})
    REQUIRE_MESSAGE(std::filesystem::exists(dir + f), std::string(dir + f) << " is missing (run from the repository root)");
  std::unique_ptr<pte::Program> prog;
  REQUIRE(pte::Program::open_file(dir + "model.pte", {}, &prog).is_ok());
  pte::Program::MethodOptions mo;
  mo.num_threads = 1;
  mo.last_row_of_output_only = true;
  std::unique_ptr<pte::Method> m;
  REQUIRE(prog->load_method("forward", mo, &m).is_ok());
  std::vector<pte::util::HostValue> in(2);
  for (int k = 0; k < 2; ++k) {
    in[k].tag = pte::Tag::Tensor;
    REQUIRE(pte::util::npy_read(dir + "input_0_" + std::to_string(k) + ".npy", &in[k].tensor).is_ok());
  }
  std::vector<pte::util::BoundInput> bound;
  REQUIRE(pte::util::set_inputs(*m, in, &bound).is_ok());
  REQUIRE(m->execute().is_ok());
  REQUIRE(pte::util::npy_read(dir + "expected_et_0_0.npy", expect).is_ok());
  REQUIRE(pte::util::host_from_tensor(*m->output(0).t, got).is_ok());
}

TEST_CASE("last_row_of_output_only: the last position's logits match, earlier rows are skipped") {
  pte::util::HostTensor expect, got;
  prefill_last_row_only("fixtures/data/tiny_llama/", &got, &expect);
  REQUIRE(got.shape == expect.shape);
  REQUIRE(got.shape.size() == 3);
  const int64_t S = got.shape[1], V = got.shape[2];
  REQUIRE(S > 1);
  const float* g = reinterpret_cast<const float*>(got.bytes.data());
  const float* e = reinterpret_cast<const float*>(expect.bytes.data());
  double last = 0, first = 0;
  for (int64_t j = 0; j < V; ++j) {
    last = std::max(last, std::fabs(double(g[(S - 1) * V + j]) - e[(S - 1) * V + j]));
    first = std::max(first, std::fabs(double(g[j]) - e[j]));
  }
  CHECK(last < 1e-4);
  CHECK(first > 1e-3);  // row 0 was not computed: the substitution took effect
}

TEST_CASE("last_row_of_output_only: an fp16 graph's logits (FC, then a Convert to fp16) are skipped but the last row") {
  pte::util::HostTensor expect, got;
  prefill_last_row_only("fixtures/data/tiny_llama_f16_custom_xnnpack/", &got, &expect);
  REQUIRE(got.dtype == pte::DType::Half);
  REQUIRE(got.shape == expect.shape);
  REQUIRE(got.shape.size() == 3);
  const int64_t S = got.shape[1], V = got.shape[2];
  REQUIRE(S > 1);
  auto at = [](const pte::util::HostTensor& t, int64_t i) {
    uint16_t h;
    std::memcpy(&h, t.bytes.data() + 2 * i, 2);
    return static_cast<double>(pte::half_bits_to_float(h));
  };
  double last = 0, first = 0;
  for (int64_t j = 0; j < V; ++j) {
    last = std::max(last, std::fabs(at(got, (S - 1) * V + j) - at(expect, (S - 1) * V + j)));
    first = std::max(first, std::fabs(at(got, j) - at(expect, j)));
  }
  CHECK(last < 2e-2);   // the fixture's tolerance (fp16 logits)
  CHECK(first > 5e-2);  // row 0 was neither computed nor narrowed: the substitution took effect
}

TEST_CASE("profiling: a delegate's time split by its kinds of node (XnnpackBackend > ...)") {
  const std::string dir = "fixtures/data/qlinear_8da4w_xnnpack/";
  for (const char* f : {"model.pte", "input_0_0.npy"})
    REQUIRE_MESSAGE(std::filesystem::exists(dir + f), std::string(dir + f) << " is missing (run from the repository root)");
  std::unique_ptr<pte::Program> prog;
  REQUIRE(pte::Program::open_file(dir + "model.pte", {}, &prog).is_ok());
  pte::Program::MethodOptions mo;
  mo.num_threads = 1;
  std::unique_ptr<pte::Method> m;
  REQUIRE(prog->load_method("forward", mo, &m).is_ok());
  std::vector<pte::util::HostValue> in(1);
  in[0].tag = pte::Tag::Tensor;
  REQUIRE(pte::util::npy_read(dir + "input_0_0.npy", &in[0].tensor).is_ok());
  std::vector<pte::util::BoundInput> bound;
  REQUIRE(pte::util::set_inputs(*m, in, &bound).is_ok());
  REQUIRE(m->execute().is_ok());
  CHECK(m->profile().empty());  // off: nothing, inside the delegate either
  m->set_profiling(true);
  for (int r = 0; r < 3; ++r) REQUIRE(m->execute().is_ok());
  double delegate_ms = -1, inner_ms = 0;
  uint64_t delegate_calls = 0, fc_calls = 0, convert_calls = 0;
  for (const auto& o : m->profile()) {
    if (o.name == "delegate XnnpackBackend") delegate_ms = o.total_ms, delegate_calls = o.calls;
    if (o.name.rfind("XnnpackBackend > ", 0) != 0) continue;
    inner_ms += o.total_ms;
    // two 4-bit linear layers (filters [64, 64] and [16, 64]), each with its own Convert
    if (o.name.rfind("XnnpackBackend > XNNFullyConnected qdint8 ", 0) == 0) fc_calls += o.calls;
    if (o.name == "XnnpackBackend > XNNConvert fp32") convert_calls = o.calls;
  }
  CHECK(delegate_calls == 3);
  CHECK(fc_calls == 6);
  CHECK(convert_calls == 6);
  CHECK(inner_ms > 0.0);
  CHECK(inner_ms <= delegate_ms);  // part of the delegate's entry, not added to it
}
