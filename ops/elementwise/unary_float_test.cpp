// Tests of the floating unary math kernels (unary_float.cpp). Expected values printed
// by torch 2.13 for the same float32 inputs.
#include "ops/elementwise/ew_test.h"

#include <limits>

using namespace pte;
using pte::test::check_close;
using pte::test::Harness;

namespace {
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("unary float ops: f32 values match torch") {
  Harness h;
  EValue* x = h.tensor<float>({5}, {-1.5f, -0.3f, 0.f, 0.4f, 2.f});
  EValue* o = h.out<float>({5});
  struct {
    const char* op;
    std::vector<double> want;
  } cases[] = {
      {"aten::exp.out", {0.22313016653060913, 0.740818202495575, 1.0, 1.491824746131897, 7.389056205749512}},
      {"aten::expm1.out", {-0.7768698334693909, -0.25918179750442505, 0.0, 0.4918247163295746, 6.389056205749512}},
      {"aten::log.out", {kNan, kNan, -kInf, -0.9162907004356384, 0.6931471824645996}},
      {"aten::log1p.out", {kNan, -0.3566749691963196, 0.0, 0.3364722430706024, 1.0986123085021973}},
      {"aten::log2.out", {kNan, kNan, -kInf, -1.3219280242919922, 1.0}},
      {"aten::log10.out", {kNan, kNan, -kInf, -0.3979400098323822, 0.3010300099849701}},
      {"aten::sqrt.out", {kNan, kNan, 0.0, 0.6324555277824402, 1.4142135381698608}},
      {"aten::rsqrt.out", {kNan, kNan, kInf, 1.5811388492584229, 0.7071067690849304}},
      {"aten::reciprocal.out", {-0.6666666865348816, -3.3333332538604736, kInf, 2.5, 0.5}},
      {"aten::sin.out", {-0.9974949955940247, -0.29552021622657776, 0.0, 0.389418363571167, 0.9092974066734314}},
      {"aten::cos.out", {0.07073719799518585, 0.9553365111351013, 1.0, 0.9210609793663025, -0.416146844625473}},
      {"aten::tan.out", {-14.101419448852539, -0.30933627486228943, 0.0, 0.4227932393550873, -2.185039758682251}},
      {"aten::asin.out", {kNan, -0.30469265580177307, 0.0, 0.41151684522628784, kNan}},
      {"aten::acos.out", {kNan, 1.8754889965057373, 1.5707963705062866, 1.159279465675354, kNan}},
      {"aten::atan.out", {-0.9827936887741089, -0.29145681858062744, 0.0, 0.38050639629364014, 1.1071487665176392}},
      {"aten::sinh.out", {-2.129279375076294, -0.30452030897140503, 0.0, 0.4107523262500763, 3.6268603801727295}},
      {"aten::cosh.out", {2.352409601211548, 1.04533851146698, 1.0, 1.0810723304748535, 3.7621958255767822}},
      {"aten::tanh.out", {-0.9051482677459717, -0.29131263494491577, 0.0, 0.3799489736557007, 0.9640275835990906}},
      {"aten::asinh.out", {-1.19476318359375, -0.29567307233810425, 0.0, 0.39003533124923706, 1.4436354637145996}},
      {"aten::acosh.out", {kNan, kNan, kNan, kNan, 1.316957950592041}},
      {"aten::atanh.out", {kNan, -0.30951961874961853, 0.0, 0.4236489534378052, kNan}},
      {"aten::erf.out", {-0.9661051630973816, -0.3286267817020416, 0.0, 0.42839235067367554, 0.9953222870826721}},
  };
  for (auto& c : cases) {
    INFO(c.op);
    REQUIRE(h.call(c.op, {x, o}));
    check_close(Harness::values<float>(o), c.want, 2e-6, 1e-7);
  }
}

TEST_CASE("unary float ops: int input promotes, f64, f16, transposed input, resized output") {
  Harness h;
  EValue* xi = h.tensor<int64_t>({3}, {1, 4, 9});
  EValue* of = h.out<float>({1}, 3);
  REQUIRE(h.call("aten::sqrt.out", {xi, of}));
  check_close(Harness::values<float>(of), {1, 2, 3}, 0, 0);
  EValue* xd = h.tensor<double>({2}, {1, -2});
  EValue* od = h.out<double>({2});
  REQUIRE(h.call("aten::exp.out", {xd, od}));
  check_close(Harness::values<double>(od), {2.718281828459045, 0.1353352832366127}, 1e-15, 0);
  EValue* xh = h.tensor<Half>({3}, {Half(0.5f), Half(-1.f), Half(3.f)});
  EValue* oh = h.out<Half>({3});
  REQUIRE(h.call("aten::tanh.out", {xh, oh}));
  check_close(Harness::values<Half>(oh), {0.462158203125, -0.76171875, 0.9951171875}, 0, 0);
  EValue* xt = h.tensor<float>({2, 2}, {0.25f, 2.5f, 1.f, 10.f}, Dynamism::Static, {1, 0});  // [[0.25,1],[2.5,10]]
  EValue* ot = h.out<float>({2, 2});
  REQUIRE(h.call("aten::log2.out", {xt, ot}));
  check_close(Harness::values<float>(ot), {-2.0, 0.0, 1.3219281435012817, 3.321928024291992}, 2e-6, 0);
}

TEST_CASE("unary float ops: errors") {
  Harness h;
  EValue* x = h.tensor<float>({2}, {1, 2});
  EValue* oi = h.out<int64_t>({2});
  CHECK_FALSE(h.call("aten::exp.out", {x, oi}));
  CHECK(h.message == "result type float32 can't be cast to the desired output type int64");
  EValue* fixed = h.tensor<float>({3}, {0, 0, 0});
  CHECK_FALSE(h.call("aten::cos.out", {x, fixed}));
  CHECK(h.message.find("cannot resize output") != std::string::npos);
}
