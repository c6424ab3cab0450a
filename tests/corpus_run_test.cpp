// Corpus: runs the real .pte files of ../shared/pte-corpus (written by the official
// exporter, see its README.md) with the inputs and expected outputs their source
// repositories state, or with references computed here independently (from the
// file's own constants/weights where the model has them). Negative cases must be
// refused with one line naming the unsupported operator or delegate.
//
// Skips cleanly when ../shared/pte-corpus is absent. A case whose operator has no
// kernel yet is reported with MESSAGE and fails (it is not counted as passing).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "interpreter/loader.h"
#include "ops/kernel.h"
#include "pte/program.h"
#include "util/bundle.h"
#include "util/host_tensor.h"
#include "util/json.h"

namespace {

namespace fs = std::filesystem;
using pte::DType;
using pte::Tag;
using pte::util::HostTensor;
using pte::util::HostValue;

const std::string kCorpus = "../shared/pte-corpus/";

bool corpus_present() { return fs::exists(kCorpus + "README.md"); }

#define SKIP_WITHOUT_CORPUS()                                               \
  do {                                                                      \
    if (!corpus_present()) {                                                \
      MESSAGE("skipped: " << kCorpus << " not found (run from the repo root)"); \
      return;                                                               \
    }                                                                       \
  } while (0)

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<int32_t>() { return DType::Int32; }

template <class T>
HostValue tensor(std::vector<int64_t> shape, const std::vector<T>& values) {
  HostValue v;
  v.tag = Tag::Tensor;
  v.tensor.dtype = dtype_of<T>();
  v.tensor.shape = std::move(shape);
  v.tensor.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(v.tensor.bytes.data(), values.data(), v.tensor.bytes.size());
  return v;
}

template <class T>
std::vector<T> values_of(const HostValue& v) {
  std::vector<T> out;
  if (v.tag != Tag::Tensor || v.tensor.dtype != dtype_of<T>()) return out;
  out.resize(v.tensor.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.tensor.bytes.data(), out.size() * sizeof(T));
  return out;
}

// One program and one loaded method. ready() is false (with the reason reported
// through MESSAGE and a failed check) when the method cannot be loaded.
struct Runner {
  std::unique_ptr<pte::Program> program;
  std::unique_ptr<pte::Method> method;
  bool ok = false;

  Runner(const std::string& file, const std::string& method_name = "forward", std::vector<std::string> data = {}) {
    pte::OpenOptions o;
    for (auto& d : data) o.data_files.push_back(kCorpus + d);
    pte::Status s = pte::Program::open_file(kCorpus + file, o, &program);
    if (!s) {
      FAIL_CHECK(file << ": open failed: " << s.message());
      return;
    }
    std::string missing;
    for (const auto& m : program->info().methods)
      if (m.name == method_name)
        for (const auto& op : m.operators)
          if (!op.supported) missing += (missing.empty() ? "" : ", ") + op.name;
    s = program->load_method(method_name, {}, &method);
    if (!s) {
      if (!missing.empty()) MESSAGE(file << " " << method_name << ": waiting on kernels: " << missing << " (NOT passing)");
      FAIL_CHECK(file << " " << method_name << ": load_method failed: " << s.message());
      return;
    }
    ok = true;
  }

  // Sets the inputs, executes, returns the outputs (empty and a failed check on error).
  std::vector<HostValue> run(const std::vector<HostValue>& inputs) {
    std::vector<HostValue> out;
    if (!ok) return out;
    std::vector<pte::util::BoundInput> bound;
    pte::Status s = pte::util::set_inputs(*method, inputs, &bound);
    if (s) s = method->execute();
    if (!s) {
      FAIL_CHECK("run failed: " << s.message());
      return out;
    }
    out.resize(method->num_outputs());
    for (size_t k = 0; k < out.size(); ++k) {
      s = pte::util::host_from_evalue(method->output(k), &out[k]);
      if (!s) {
        FAIL_CHECK("output " << k << ": " << s.message());
        out.clear();
        return out;
      }
    }
    return out;
  }
};

void check_floats(const HostValue& got, const std::vector<int64_t>& shape, const std::vector<double>& want, double tol) {
  REQUIRE(got.tag == Tag::Tensor);
  CHECK(got.tensor.dtype == DType::Float);
  CHECK(got.tensor.shape == shape);
  std::vector<float> g = values_of<float>(got);
  REQUIRE(g.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(g[i] - want[i]) <= tol + 1e-6 * std::fabs(want[i]));
  }
}

// The constant tensors of a plan, by value index (read straight from the file).
struct Constants {
  std::unique_ptr<pte::Program> program;
  const pte::LoadedProgram* lp = nullptr;
  const pte::fb::ExecutionPlan* plan = nullptr;

  Constants(const std::string& file, const std::string& method) {
    REQUIRE(pte::Program::open_file(kCorpus + file, {}, &program));
    lp = dynamic_cast<const pte::LoadedProgram*>(program.get());
    REQUIRE(lp);
    int idx = lp->find_plan(method);
    REQUIRE(idx >= 0);
    plan = lp->root()->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(idx));
  }
  bool is_constant(int v) const {
    const auto* t = plan->values()->Get(v)->val_as_Tensor();
    return t && t->data_buffer_idx() > 0 && !t->allocation_info();
  }
  // Elements of constant tensor value `v` as doubles (float32 or int64 data).
  std::vector<double> values(int v) const {
    const auto* t = plan->values()->Get(v)->val_as_Tensor();
    REQUIRE(t);
    size_t n = 1;
    if (t->sizes())
      for (int32_t s : *t->sizes()) n *= static_cast<size_t>(s);
    size_t es = t->scalar_type() == pte::fb::ScalarType::LONG ? 8 : 4;
    const uint8_t* data = nullptr;
    REQUIRE(lp->constant_data(t->data_buffer_idx(), n * es, &data));
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
      if (t->scalar_type() == pte::fb::ScalarType::LONG) {
        int64_t x;
        std::memcpy(&x, data + i * 8, 8);
        out[i] = static_cast<double>(x);
      } else {
        REQUIRE(t->scalar_type() == pte::fb::ScalarType::FLOAT);
        float x;
        std::memcpy(&x, data + i * 4, 4);
        out[i] = x;
      }
    }
    return out;
  }
  // The args of the first KernelCall to operator `name`.
  std::vector<int> args_of(const std::string& name) const {
    for (const auto* in : *plan->chains()->Get(0)->instructions()) {
      const auto* kc = in->instr_args_as_KernelCall();
      if (!kc) continue;
      const auto* op = plan->operators()->Get(static_cast<flatbuffers::uoffset_t>(kc->op_index()));
      if (op->name()->str() == name) return std::vector<int>(kc->args()->begin(), kc->args()->end());
    }
    return {};
  }
};

// A named float tensor from a .ptd file.
std::vector<float> ptd_tensor(const std::string& file, const std::string& key) {
  pte::DataFile df;
  pte::Status s = df.open(kCorpus + file);
  REQUIRE_MESSAGE(s, s.message());
  pte::Bytes b;
  REQUIRE_MESSAGE(df.find(key, &b, nullptr), key << " not in " << file);
  std::vector<float> out(b.size / 4);
  std::memcpy(out.data(), b.data, out.size() * 4);
  return out;
}

// load_method must fail with one line naming `what`.
void check_refused(const std::string& file, const std::string& what) {
  INFO(file);
  std::unique_ptr<pte::Program> program;
  pte::Status s = pte::Program::open_file(kCorpus + file, {}, &program);
  if (!s) {
    // Refused at open: still one clear line.
    CHECK(s.message().find('\n') == std::string::npos);
    CHECK_MESSAGE(s.message().find(what) != std::string::npos, s.message());
    return;
  }
  int refused = 0;
  for (const auto& m : program->info().methods) {
    if (m.is_constant) continue;
    std::unique_ptr<pte::Method> method;
    s = program->load_method(m.name, {}, &method);
    CHECK_FALSE_MESSAGE(s, m.name << " loaded but must be refused (" << what << ")");
    if (s) continue;
    ++refused;
    CHECK(s.message().find('\n') == std::string::npos);
    CHECK_MESSAGE(s.message().find(what) != std::string::npos, s.message());
  }
  CHECK(refused > 0);
}

// XNNPACK-delegated: must load (the delegate is part of every build).
bool xnnpack_unsupported(const std::string& file) {
  std::unique_ptr<pte::Program> program;
  pte::Status s = pte::Program::open_file(kCorpus + file, {}, &program);
  REQUIRE_MESSAGE(s, s.message());
  std::unique_ptr<pte::Method> method;
  s = program->load_method("forward", {}, &method);
  CHECK_MESSAGE(s, file << ": " << s.message());
  return !s;
}

}  // namespace

TEST_CASE("corpus: add_apple [1]+[1]=[2], [2]+[3]=[5], [13.25]+[29.25]=[42.5] on one method") {
  SKIP_WITHOUT_CORPUS();
  Runner r("executorch/add_apple.pte");
  if (!r.ok) return;
  const double cases[3][3] = {{1, 1, 2}, {2, 3, 5}, {13.25, 29.25, 42.5}};
  for (const auto& c : cases) {
    auto out = r.run({tensor<float>({1}, {static_cast<float>(c[0])}), tensor<float>({1}, {static_cast<float>(c[1])})});
    REQUIRE(out.size() == 1);
    check_floats(out[0], {1}, {c[2]}, 0);
  }
}

TEST_CASE("corpus: arduino AddModel x+1 [1,2,3] -> [2,3,4]") {
  SKIP_WITHOUT_CORPUS();
  Runner r("executorch/arduino_AddModel.pte");
  auto out = r.run({tensor<float>({3}, {1, 2, 3})});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {3}, {2, 3, 4}, 0);
}

TEST_CASE("corpus: executorch-rs add and no_std_add") {
  SKIP_WITHOUT_CORPUS();
  {
    Runner r("executorch-rs/add.pte");
    auto out = r.run({tensor<float>({1}, {1}), tensor<float>({1}, {1})});
    if (r.ok) {
      REQUIRE(out.size() == 1);
      check_floats(out[0], {1}, {2}, 0);
    }
  }
  {
    Runner r("executorch-rs/no_std_add.pte");
    auto out = r.run({tensor<float>({1}, {3.5f}), tensor<float>({1}, {-1.25f})});
    if (r.ok) {
      REQUIRE(out.size() == 1);
      check_floats(out[0], {1}, {2.25}, 0);
    }
  }
}

TEST_CASE("corpus: node-executorch mul [1..6]*[1..6]") {
  SKIP_WITHOUT_CORPUS();
  Runner r("node-executorch/mul.pte");
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  auto out = r.run({tensor<float>({3, 2}, x), tensor<float>({3, 2}, x)});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {3, 2}, {1, 4, 9, 16, 25, 36}, 0);
}

TEST_CASE("corpus: numpy dtypes (i64 [3], f32 [2.5]) -> ([6], [5])") {
  SKIP_WITHOUT_CORPUS();
  Runner r("executorch-numpy-runtime/dtypes.pte");
  auto out = r.run({tensor<int64_t>({1}, {3}), tensor<float>({1}, {2.5f})});
  if (!r.ok) return;
  REQUIRE(out.size() == 2);
  CHECK(out[0].tensor.dtype == DType::Int64);
  CHECK(values_of<int64_t>(out[0]) == std::vector<int64_t>{6});
  check_floats(out[1], {1}, {5}, 0);
}

TEST_CASE("corpus: executorch-rs data_map_model + .ptd: 3x+2") {
  SKIP_WITHOUT_CORPUS();
  Runner r("executorch-rs/data_map_model.pte", "forward", {"executorch-rs/_default_external_constant.ptd"});
  auto out = r.run({tensor<float>({2, 2}, {1, 2, 3, 4})});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {2, 2}, {5, 8, 11, 14}, 0);
}

TEST_CASE("corpus: module_model_2024-03 mean([1,2]) ~= 1.5") {
  SKIP_WITHOUT_CORPUS();
  Runner r("executorch/module_model_2024-03.pte");
  auto out = r.run({tensor<float>({1, 2}, {1, 2})});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {1}, {1.5}, 1e-6);
}

TEST_CASE("corpus: ModuleLinear-no-constant-segment a*x+b from its legacy constant_buffer") {
  SKIP_WITHOUT_CORPUS();
  const std::string file = "executorch/ModuleLinear-no-constant-segment.pte";
  // The reference: mul(p, q) then add(mul, r) with the constants read from the file.
  Constants c(file, "forward");
  CHECK(c.lp->info().legacy_constant_buffer);
  std::vector<int> mul = c.args_of("aten::mul"), add = c.args_of("aten::add");
  REQUIRE(mul.size() == 4);
  REQUIRE(add.size() == 5);
  int a_idx = c.is_constant(mul[0]) ? mul[0] : mul[1];
  int b_idx = c.is_constant(add[0]) ? add[0] : add[1];
  REQUIRE(c.is_constant(a_idx));
  REQUIRE(c.is_constant(b_idx));
  REQUIRE(c.plan->values()->Get(add[2])->val_as_Int());
  double alpha = static_cast<double>(c.plan->values()->Get(add[2])->val_as_Int()->int_val());
  std::vector<double> a = c.values(a_idx), b = c.values(b_idx);
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == 4);
  std::vector<float> x = {1.0f, -2.0f, 0.5f, 3.0f};
  std::vector<double> want(4);
  for (int i = 0; i < 4; ++i) want[i] = static_cast<float>(a[i] * x[i]) + alpha * b[i];

  Runner r(file);
  auto out = r.run({tensor<float>({2, 2}, x)});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {2, 2}, want, 1e-6);
}

TEST_CASE("corpus: numpy multi.pte: forward and double, x + constant") {
  SKIP_WITHOUT_CORPUS();
  for (const char* name : {"forward", "double"}) {
    INFO(name);
    const std::string file = "executorch-numpy-runtime/multi.pte";
    Constants c(file, name);
    std::vector<int> conv = c.args_of("dim_order_ops::_to_dim_order_copy");
    REQUIRE(conv.size() == 5);
    REQUIRE(c.is_constant(conv[0]));
    std::vector<double> k = c.values(conv[0]);
    REQUIRE(k.size() == 1);
    Runner r(file, name);
    auto out = r.run({tensor<float>({2}, {1.5f, -4.0f})});
    if (!r.ok) continue;
    REQUIRE(out.size() == 1);
    check_floats(out[0], {2}, {1.5 + k[0], -4.0 + k[0]}, 1e-6);
  }
}

TEST_CASE("corpus: numpy const_methods: constant methods and forward") {
  SKIP_WITHOUT_CORPUS();
  const std::string file = "executorch-numpy-runtime/const_methods.pte";
  {
    Runner r(file, "get_scalar");
    auto out = r.run({});
    REQUIRE(out.size() == 1);
    CHECK(out[0].tag == Tag::Int);
    CHECK(out[0].i == 128);
  }
  {
    Runner r(file, "get_double");
    auto out = r.run({});
    REQUIRE(out.size() == 1);
    CHECK(out[0].tag == Tag::Double);
    CHECK(out[0].d == 2.5);
  }
  {
    Runner r(file, "get_bool");
    auto out = r.run({});
    REQUIRE(out.size() == 1);
    CHECK(out[0].tag == Tag::Bool);
    CHECK(out[0].b);
  }
  {
    Runner r(file, "get_tensor");
    auto out = r.run({});
    REQUIRE(out.size() == 1);
    CHECK(values_of<int64_t>(out[0]) == std::vector<int64_t>{1, 2, 3});
  }
  Constants c(file, "forward");
  std::vector<int> conv = c.args_of("dim_order_ops::_to_dim_order_copy");
  REQUIRE(conv.size() == 5);
  std::vector<double> k = c.values(conv[0]);
  REQUIRE(k.size() == 1);
  Runner r(file);
  auto out = r.run({tensor<float>({3}, {0.0f, 1.0f, -7.5f})});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {3}, {k[0], 1 + k[0], -7.5 + k[0]}, 1e-6);
}

TEST_CASE("corpus: module_linear + .ptd: x W^T + b with W, b from the .ptd") {
  SKIP_WITHOUT_CORPUS();
  std::vector<float> w = ptd_tensor("executorch/module_linear.ptd", "linear.weight");
  std::vector<float> b = ptd_tensor("executorch/module_linear.ptd", "linear.bias");
  REQUIRE(w.size() == 9);
  REQUIRE(b.size() == 3);
  std::vector<float> x = {2, 3, 4, 2, 3, 4, 2, 3, 4};
  std::vector<double> want(9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double acc = b[j];
      for (int k = 0; k < 3; ++k) acc += static_cast<double>(x[i * 3 + k]) * w[j * 3 + k];
      want[i * 3 + j] = acc;
    }
  Runner r("executorch/module_linear.pte", "forward", {"executorch/module_linear.ptd"});
  auto out = r.run({tensor<float>({3, 3}, x)});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {3, 3}, want, 1e-5);
}

TEST_CASE("corpus: xor_training forward: loss, prediction, gradients, parameters") {
  SKIP_WITHOUT_CORPUS();
  const std::string ptd = "executorch/xor_training.ptd";
  std::vector<float> w1 = ptd_tensor(ptd, "net.linear.weight");   // [10,2]
  std::vector<float> b1 = ptd_tensor(ptd, "net.linear.bias");     // [10]
  std::vector<float> w2 = ptd_tensor(ptd, "net.linear2.weight");  // [2,10]
  std::vector<float> b2 = ptd_tensor(ptd, "net.linear2.bias");    // [2]
  REQUIRE(w1.size() == 20);
  REQUIRE(b1.size() == 10);
  REQUIRE(w2.size() == 20);
  REQUIRE(b2.size() == 2);
  const float x[2] = {1.0f, 0.0f};
  const int64_t label = 1;
  // Reference in double: h = sigmoid(W1 x + b1); z = W2 h + b2; loss = -log_softmax(z)[label].
  double h[10], z[2], p[2], dz[2], dh[10], da[10];
  for (int j = 0; j < 10; ++j) h[j] = 1 / (1 + std::exp(-(b1[j] + w1[j * 2] * x[0] + w1[j * 2 + 1] * x[1])));
  for (int o = 0; o < 2; ++o) {
    z[o] = b2[o];
    for (int j = 0; j < 10; ++j) z[o] += w2[o * 10 + j] * h[j];
  }
  double mx = std::max(z[0], z[1]);
  double lse = mx + std::log(std::exp(z[0] - mx) + std::exp(z[1] - mx));
  double loss = lse - z[label];
  for (int o = 0; o < 2; ++o) {
    p[o] = std::exp(z[o] - lse);
    dz[o] = p[o] - (o == label ? 1 : 0);
  }
  for (int j = 0; j < 10; ++j) {
    dh[j] = w2[j] * dz[0] + w2[10 + j] * dz[1];
    da[j] = dh[j] * h[j] * (1 - h[j]);
  }
  std::vector<double> g_w1(20), g_b1(10), g_w2(20), g_b2(2);
  for (int j = 0; j < 10; ++j) {
    g_w1[j * 2] = da[j] * x[0];
    g_w1[j * 2 + 1] = da[j] * x[1];
    g_b1[j] = da[j];
    g_w2[j] = dz[0] * h[j];
    g_w2[10 + j] = dz[1] * h[j];
  }
  g_b2 = {dz[0], dz[1]};

  Runner r("executorch/xor_training.pte", "forward", {ptd});
  auto out = r.run({tensor<float>({1, 2}, {x[0], x[1]}), tensor<int64_t>({1}, {label})});
  if (!r.ok) return;
  REQUIRE(out.size() == 10);
  check_floats(out[0], {}, {loss}, 1e-5);
  CHECK(values_of<int64_t>(out[1]) == std::vector<int64_t>{z[1] > z[0] ? 1 : 0});
  check_floats(out[2], {10, 2}, g_w1, 1e-5);
  check_floats(out[3], {10}, g_b1, 1e-5);
  check_floats(out[4], {2, 10}, g_w2, 1e-5);
  check_floats(out[5], {2}, g_b2, 1e-5);
  check_floats(out[6], {10, 2}, std::vector<double>(w1.begin(), w1.end()), 0);
  check_floats(out[7], {10}, std::vector<double>(b1.begin(), b1.end()), 0);
  check_floats(out[8], {2, 10}, std::vector<double>(w2.begin(), w2.end()), 0);
  check_floats(out[9], {2}, std::vector<double>(b2.begin(), b2.end()), 0);
}

TEST_CASE("corpus: bundled_program.bpte through the verify code path") {
  SKIP_WITHOUT_CORPUS();
  pte::util::Bundle bundle;
  pte::Status s = pte::util::bundle_read(kCorpus + "executorch/bundled_program.bpte", &bundle);
  REQUIRE_MESSAGE(s, s.message());
  CHECK(bundle.version == 2);
  CHECK(bundle.program_size == 1696);
  CHECK(bundle.program_offset % 32 == 0);

  // The parsed cases equal the independently decoded ones (flatc) in cases.json.
  pte::json::Value doc;
  s = pte::json::parse_file(kCorpus + "executorch/bundled_program.cases.json", &doc);
  REQUIRE_MESSAGE(s, s.message());
  const pte::json::Value* cases = doc.find("test_cases", pte::json::Type::Array);
  REQUIRE(cases);
  size_t total = 0;
  for (const auto& suite : bundle.suites) total += suite.cases.size();
  REQUIRE(total == cases->size());
  CHECK(total == 10);
  size_t k = 0;
  for (const auto& suite : bundle.suites) {
    for (const auto& tc : suite.cases) {
      const pte::json::Value& jc = (*cases)[k++];
      CHECK(jc.find("method")->as_string() == suite.method);
      auto same = [](const HostValue& v, const pte::json::Value& j) {
        if (v.tag != Tag::Tensor || j.find("dtype")->as_string() != "INT") return false;
        std::vector<int64_t> sizes;
        for (const auto& s : j.find("sizes")->items()) sizes.push_back(s.as_int());
        if (sizes != v.tensor.shape) return false;
        std::vector<int32_t> got = values_of<int32_t>(v);
        const auto& data = j.find("data")->items();
        if (got.size() != data.size()) return false;
        for (size_t i = 0; i < got.size(); ++i)
          if (got[i] != data[i].as_int()) return false;
        return true;
      };
      REQUIRE(tc.inputs.size() == jc.find("inputs")->size());
      for (size_t i = 0; i < tc.inputs.size(); ++i) CHECK(same(tc.inputs[i], (*jc.find("inputs"))[i]));
      REQUIRE(tc.expected.size() == jc.find("expected_outputs")->size());
      for (size_t i = 0; i < tc.expected.size(); ++i) CHECK(same(tc.expected[i], (*jc.find("expected_outputs"))[i]));
    }
  }

  pte::util::BundleReport report;
  s = pte::util::bundle_run(bundle, {}, {}, &report);
  REQUIRE_MESSAGE(s, s.message());
  REQUIRE(report.cases.size() == 10);
  for (const auto& c : report.cases) CHECK_MESSAGE(c.pass, c.method << " case " << c.index << ": " << c.message);
  CHECK(report.passed == 10);

  // A wrong expectation is caught: the verifier can fail.
  pte::util::Bundle tampered = bundle;
  tampered.suites[0].cases[0].expected[0].tensor.bytes[0] ^= 1;
  pte::util::BundleReport bad;
  REQUIRE(pte::util::bundle_run(tampered, {}, {}, &bad));
  REQUIRE(bad.cases.size() == 10);
  CHECK_FALSE(bad.cases[0].pass);
  CHECK(bad.failed == 1);
}

TEST_CASE("corpus: bundled program validation refuses damaged files") {
  SKIP_WITHOUT_CORPUS();
  std::vector<uint8_t> bytes;
  {
    std::FILE* f = std::fopen((kCorpus + "executorch/bundled_program.bpte").c_str(), "rb");
    REQUIRE(f);
    uint8_t buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
    std::fclose(f);
  }
  pte::util::Bundle b;
  for (size_t n : {size_t{0}, size_t{7}, size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
    CAPTURE(n);
    pte::Status s = pte::util::bundle_parse(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n)), "cut.bpte", &b);
    CHECK_FALSE(s);
  }
  // Every single-byte corruption is either refused or runs without crashing.
  size_t parsed = 0;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= static_cast<uint8_t>(0x5a + i);
    pte::util::Bundle parsed_bundle;
    if (!pte::util::bundle_parse(std::move(bad), "flip.bpte", &parsed_bundle)) continue;
    ++parsed;
    pte::util::BundleReport rep;
    (void)pte::util::bundle_run(parsed_bundle, {}, {}, &rep);
  }
  CHECK(parsed > 0);
  std::vector<uint8_t> wrong_id = bytes;
  wrong_id[7] = '9';
  pte::Status s = pte::util::bundle_parse(wrong_id, "id.bpte", &b);
  CHECK_FALSE(s);
  CHECK(s.message().find("BP09") != std::string::npos);
  s = pte::util::bundle_read(kCorpus + "executorch/add_apple.pte", &b);
  CHECK_FALSE(s);
  CHECK(s.message().find("pte-run run") != std::string::npos);
}

TEST_CASE("corpus: pr17248_add ones+ones") {
  SKIP_WITHOUT_CORPUS();
  Runner r("executorch/pr17248_add.pte");
  auto out = r.run({tensor<float>({1}, {1}), tensor<float>({1}, {1})});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {1}, {2}, 0);
}

TEST_CASE("corpus: pr17248_softmax against a double-precision softmax") {
  SKIP_WITHOUT_CORPUS();
  const int rows = 2, cols = 4096;
  std::vector<float> x(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = static_cast<float>(6.0 * std::sin(0.37 * i) + (i % 7) * 0.5);
  std::vector<double> want(x.size());
  for (int r = 0; r < rows; ++r) {
    double mx = -1e300, sum = 0;
    for (int c = 0; c < cols; ++c) mx = std::max(mx, static_cast<double>(x[r * cols + c]));
    for (int c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - mx);
    for (int c = 0; c < cols; ++c) want[r * cols + c] = std::exp(x[r * cols + c] - mx) / sum;
  }
  Runner r("executorch/pr17248_softmax.pte");
  auto out = r.run({tensor<float>({rows, cols}, x)});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {rows, cols}, want, 1e-7);
  std::vector<float> got = values_of<float>(out[0]);
  for (int r2 = 0; r2 < rows; ++r2) {
    double s = 0;
    for (int c = 0; c < cols; ++c) s += got[r2 * cols + c];
    CHECK(std::fabs(s - 1.0) < 1e-4);
  }
}

TEST_CASE("corpus: pr17248_maxpool2d (k3 s2 p1) against a direct max") {
  SKIP_WITHOUT_CORPUS();
  const int C = 64, H = 112, W = 112, OH = 56, OW = 56;
  std::vector<float> x(static_cast<size_t>(C) * H * W);
  uint32_t state = 12345;
  for (float& v : x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int32_t>(state >> 8) % 2001 - 1000) / 37.0f;
  }
  std::vector<double> want(static_cast<size_t>(C) * OH * OW);
  for (int c = 0; c < C; ++c)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        float m = -INFINITY;
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw) {
            int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            m = std::max(m, x[(static_cast<size_t>(c) * H + ih) * W + iw]);
          }
        want[(static_cast<size_t>(c) * OH + oh) * OW + ow] = m;
      }
  Runner r("executorch/pr17248_maxpool2d.pte");
  auto out = r.run({tensor<float>({1, C, H, W}, x)});
  if (!r.ok) return;
  REQUIRE(out.size() == 1);
  check_floats(out[0], {1, C, OH, OW}, want, 0);
}

TEST_CASE("corpus: XNNPACK-delegated programs") {
  SKIP_WITHOUT_CORPUS();
  if (!xnnpack_unsupported("executorch-numpy-runtime/add_xnnpack.pte")) {
    Runner r("executorch-numpy-runtime/add_xnnpack.pte");
    const float cases[3][3] = {{2, 5, 7}, {1, 1, 2}, {9, 9, 18}};
    for (const auto& c : cases) {
      auto out = r.run({tensor<float>({3}, std::vector<float>(3, c[0])), tensor<float>({3}, std::vector<float>(3, c[1]))});
      if (!r.ok) break;
      REQUIRE(out.size() == 1);
      check_floats(out[0], {3}, std::vector<double>(3, c[2]), 0);
    }
  }
  if (!xnnpack_unsupported("executorch-numpy-runtime/dynamic_xnnpack.pte")) {
    Runner r("executorch-numpy-runtime/dynamic_xnnpack.pte");
    for (int64_t n : {1, 4, 8}) {
      auto out = r.run({tensor<float>({n}, std::vector<float>(static_cast<size_t>(n), 1.0f))});
      if (!r.ok) break;
      REQUIRE(out.size() == 1);
      check_floats(out[0], {n}, std::vector<double>(static_cast<size_t>(n), 2.0), 0);
    }
  }
  if (!xnnpack_unsupported("executorch-numpy-runtime/quantized_xnnpack.pte")) {
    // static int8: convert (q8 per tensor) -> qs8 fully connected (+ int32 bias) -> convert.
    // Reference: the official ExecuTorch runtime (executorch 1.5.1 python bindings) on the
    // same input; outputs are multiples of the output scale 0.005447.
    Runner r("executorch-numpy-runtime/quantized_xnnpack.pte");
    std::vector<float> x(16);
    for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i) / 8.0f - 1.0f;
    auto out = r.run({tensor<float>({2, 8}, x)});
    if (r.ok) {
      REQUIRE(out.size() == 1);
      const std::vector<double> want{-0.5338436365127563,  -0.3813168704509735,  0.17976367473602295, -0.04357907176017761,
                                     -0.2560270428657532,  0.7789759039878845,   -0.07081599533557892, -0.15252675116062164,
                                     -0.010894767940044403, -0.3704221248626709, 0.15797413885593414,  0.09260553121566772,
                                     -0.12528982758522034, -0.016342151910066605, 0.4248959422111511,  0.3540799617767334};
      check_floats(out[0], {2, 8}, want, 1e-6);
    }
  }
}

TEST_CASE("corpus: unsupported operators and delegates are refused with one clear line") {
  SKIP_WITHOUT_CORPUS();
  check_refused("executorch/arduino_KeywordSpotting_cortex_m.pte", "cortex_m::");
  check_refused("executorch/pr17248_cadence_conv2d_quantized.pte", "cadence::");
  check_refused("executorch-numpy-runtime/lstm/lstm_etnp_custom_op.pte", "etnp::lstm");
  check_refused("cmsis-executorch/ethos_u_minimal_example.pte", "EthosUBackend");
  check_refused("executorch/stories260k_hybrid_llama_qnn.pte", "QnnBackend");
}

TEST_CASE("corpus: the QNN llama's constant methods are readable") {
  SKIP_WITHOUT_CORPUS();
  const std::string file = "executorch/stories260k_hybrid_llama_qnn.pte";
  struct Want {
    const char* method;
    Tag tag;
    int64_t value;
  };
  const Want wants[] = {{"get_vocab_size", Tag::Int, 512}, {"get_n_layers", Tag::Int, 5},   {"get_dim", Tag::Int, 64},
                        {"get_bos_id", Tag::Int, 1},       {"get_eos_id", Tag::Int, 2},     {"get_max_seq_len", Tag::Int, 128},
                        {"get_use_kv_cache", Tag::Bool, 1}};
  for (const Want& w : wants) {
    INFO(w.method);
    Runner r(file, w.method);
    auto out = r.run({});
    if (!r.ok) continue;
    REQUIRE(out.size() >= 1);
    CHECK(out[0].tag == w.tag);
    if (w.tag == Tag::Int) CHECK(out[0].i == w.value);
    if (w.tag == Tag::Bool) CHECK(out[0].b == (w.value != 0));
  }
}
