// Tests of the elementwise engine: dtype promotion, torch.result_type, iteration
// plans, copy_into, and threaded map() against the single-threaded result.
#include "ops/elementwise/elementwise.h"

#include <pthreadpool.h>

#include "ops/elementwise/ew_test.h"

using namespace pte;
using pte::test::Harness;

TEST_CASE("ew: promote_types matches torch.promote_types") {
  const DType order[10] = {DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                           DType::Half,  DType::Float, DType::Double, DType::Bool, DType::BFloat16};
  // torch.promote_types(order[i], order[j]), printed by torch 2.13
  const DType want[10][10] = {
      {DType::UInt8, DType::Int16, DType::Int16, DType::Int32, DType::Int64, DType::Half, DType::Float, DType::Double, DType::UInt8, DType::BFloat16},
      {DType::Int16, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::Half, DType::Float, DType::Double, DType::Int8, DType::BFloat16},
      {DType::Int16, DType::Int16, DType::Int16, DType::Int32, DType::Int64, DType::Half, DType::Float, DType::Double, DType::Int16, DType::BFloat16},
      {DType::Int32, DType::Int32, DType::Int32, DType::Int32, DType::Int64, DType::Half, DType::Float, DType::Double, DType::Int32, DType::BFloat16},
      {DType::Int64, DType::Int64, DType::Int64, DType::Int64, DType::Int64, DType::Half, DType::Float, DType::Double, DType::Int64, DType::BFloat16},
      {DType::Half, DType::Half, DType::Half, DType::Half, DType::Half, DType::Half, DType::Float, DType::Double, DType::Half, DType::Float},
      {DType::Float, DType::Float, DType::Float, DType::Float, DType::Float, DType::Float, DType::Float, DType::Double, DType::Float, DType::Float},
      {DType::Double, DType::Double, DType::Double, DType::Double, DType::Double, DType::Double, DType::Double, DType::Double, DType::Double, DType::Double},
      {DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::Half, DType::Float, DType::Double, DType::Bool, DType::BFloat16},
      {DType::BFloat16, DType::BFloat16, DType::BFloat16, DType::BFloat16, DType::BFloat16, DType::Float, DType::Float, DType::Double, DType::BFloat16, DType::BFloat16},
  };
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) {
      INFO(dtype_name(order[i]) << " with " << dtype_name(order[j]));
      CHECK(ew::promote_types(order[i], order[j]) == want[i][j]);
    }
  CHECK(ew::promote_types(DType::Float, DType::QInt8) == ew::kNoDType);
}

TEST_CASE("ew: ResultType follows torch.result_type priorities") {
  Harness h;
  auto t = [&](DType dt, std::vector<int64_t> shape) {
    Tensor* x = h.tensor<float>(shape, {})->t;
    x->dtype = dt;
    return x;
  };
  EValue d25, i3, bt;
  d25.tag = Tag::Double;
  d25.d = 2.5;
  i3.tag = Tag::Int;
  i3.i = 3;
  bt.tag = Tag::Bool;
  bt.b = true;
  struct Case {
    Tensor* a;
    Tensor* b;      // or null
    EValue* s;      // or null
    DType want;     // torch.result_type
  } cases[] = {
      {t(DType::Int32, {2}), nullptr, &d25, DType::Float},
      {t(DType::Half, {2}), nullptr, &d25, DType::Half},
      {t(DType::Int8, {2}), t(DType::Int64, {}), nullptr, DType::Int8},
      {t(DType::Int32, {2}), t(DType::Double, {}), nullptr, DType::Double},
      {t(DType::Half, {2}), t(DType::Float, {}), nullptr, DType::Half},
      {t(DType::Bool, {2}), nullptr, &i3, DType::Int64},
      {t(DType::Bool, {2}), t(DType::Int32, {}), nullptr, DType::Int32},
      {t(DType::UInt8, {2}), t(DType::Int8, {2}), nullptr, DType::Int16},
      {t(DType::Int64, {}), nullptr, &d25, DType::Float},
      {t(DType::Bool, {}), nullptr, &bt, DType::Bool},
      {t(DType::Int32, {}), t(DType::Half, {}), nullptr, DType::Half},
  };
  for (const Case& c : cases) {
    ew::ResultType rt;
    rt.add(*c.a);
    if (c.b) rt.add(*c.b);
    if (c.s) rt.add_scalar(*c.s);
    INFO(dtype_name(c.a->dtype) << " dim " << c.a->dim);
    CHECK(rt.get() == c.want);
  }
  CHECK(ew::can_cast(DType::Int32, DType::Float));
  CHECK_FALSE(ew::can_cast(DType::Float, DType::Int64));
  CHECK_FALSE(ew::can_cast(DType::Int8, DType::Bool));
  CHECK(ew::can_cast(DType::Bool, DType::Half));
}

TEST_CASE("ew: make_plan merges contiguous dims, keeps broadcast and permuted ones") {
  Harness h;
  // contiguous [2,3,4] + [2,3,4]: one flat row
  EValue* a = h.tensor<float>({2, 3, 4}, std::vector<float>(24));
  EValue* o = h.out<float>({2, 3, 4});
  ew::Operand in[2] = {ew::operand(*a->t), ew::operand(*a->t)};
  ew::Plan p;
  ew::make_plan(p, *o->t, in, 2);
  CHECK(p.ndim == 1);
  CHECK(p.sizes[0] == 24);
  CHECK(p.strides[0][0] == 1);
  CHECK(p.strides[2][0] == 1);
  // [2,3,4] + [4]: dims 0,1 merge (12 rows of 4), the [4] operand repeats
  EValue* b = h.tensor<float>({4}, std::vector<float>(4));
  in[1] = ew::operand(*b->t);
  ew::make_plan(p, *o->t, in, 2);
  CHECK(p.ndim == 2);
  CHECK(p.sizes[0] == 6);
  CHECK(p.sizes[1] == 4);
  CHECK(p.strides[2][0] == 0);
  CHECK(p.strides[2][1] == 1);
  // out channels-last [1,2,3,4] dim_order [0,2,3,1], input contiguous: walk in out's order
  EValue* cl = h.tensor<float>({1, 2, 3, 4}, std::vector<float>(24), Dynamism::Static, {0, 2, 3, 1});
  EValue* x = h.tensor<float>({1, 2, 3, 4}, std::vector<float>(24));
  ew::Operand in1[1] = {ew::operand(*x->t)};
  ew::make_plan(p, *cl->t, in1, 1);
  CHECK(p.ndim == 2);  // (H*W) x C
  CHECK(p.sizes[0] == 12);
  CHECK(p.sizes[1] == 2);
  CHECK(p.strides[0][1] == 1);   // out: C innermost
  CHECK(p.strides[1][1] == 12);  // input: C has stride H*W
  // a zero-dim output: one element
  EValue* s = h.out<float>({});
  ew::make_plan(p, *s->t, in1, 0);
  CHECK(p.ndim == 1);
  CHECK(p.numel == 1);
}

TEST_CASE("ew: for_each_row visits every element of a partial range once") {
  Harness h;
  EValue* o = h.out<float>({3, 5});
  EValue* x = h.tensor<float>({3, 5}, std::vector<float>(15), Dynamism::Static, {1, 0});  // transposed layout
  ew::Operand in[1] = {ew::operand(*x->t)};
  ew::Plan p;
  ew::make_plan(p, *o->t, in, 1);
  REQUIRE(p.ndim == 2);
  std::vector<int> hits(15, 0);
  ew::for_each_row(p, 4, 13, [&](const int64_t* off, int64_t n) {
    for (int64_t i = 0; i < n; ++i) hits[static_cast<size_t>(off[0] + i * p.strides[0][1])]++;
  });
  for (int k = 0; k < 15; ++k) {
    INFO("element " << k);
    CHECK(hits[static_cast<size_t>(k)] == (k >= 4 && k < 13 ? 1 : 0));
  }
}

TEST_CASE("ew: shape_str and broadcast errors") {
  char buf[64];
  const int64_t s[3] = {2, 3, 4};
  CHECK(std::string(ew::shape_str(buf, sizeof buf, s, 3)) == "[2,3,4]");
  CHECK(std::string(ew::shape_str(buf, sizeof buf, s, 0)) == "[]");
  CHECK(std::string(ew::shape_str(buf, 5, s, 3)) == "[2,3");
  Harness h;
  EValue* a = h.tensor<float>({2, 3}, std::vector<float>(6));
  EValue* b = h.tensor<float>({4}, std::vector<float>(4));
  const Tensor* ts[2] = {a->t, b->t};
  int64_t out[kMaxDims];
  int32_t dim;
  CHECK_FALSE(ew::broadcast_all(h.ctx, ts, 2, out, &dim));
  CHECK(std::string(h.ctx.message()) == "shapes [2,3] and [4] are not broadcastable");
}

TEST_CASE("ew: copy_into converts dtypes and writes the output's dim order") {
  Harness h;
  // logical [2,3] = [[1.5,-2.7,3],[4,5.9,-6]] given in a transposed physical layout
  EValue* x = h.tensor<float>({2, 3}, {1.5f, 4.f, -2.7f, 5.9f, 3.f, -6.f}, Dynamism::Static, {1, 0});
  EValue* o = h.out<int32_t>({2, 3});
  REQUIRE(ew::copy_into(h.ctx, *o->t, ew::operand(*x->t)));
  pte::test::check_equal(Harness::values<int32_t>(o), {1, -2, 3, 4, 5, -6});
  // same dtype: a raw copy into a channels-last output
  EValue* y = h.tensor<int16_t>({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  EValue* cl = h.tensor<int16_t>({1, 2, 2, 2}, std::vector<int16_t>(8), Dynamism::Static, {0, 2, 3, 1});
  REQUIRE(ew::copy_into(h.ctx, *cl->t, ew::operand(*y->t)));
  pte::test::check_equal(Harness::values<int16_t>(cl), {0, 1, 2, 3, 4, 5, 6, 7});
  const int16_t* raw = cl->t->ptr<int16_t>();
  pte::test::check_equal(std::vector<int16_t>(raw, raw + 8), {0, 4, 1, 5, 2, 6, 3, 7});
}

TEST_CASE("ew: threaded map gives the single-threaded result") {
  Harness h;
  const int64_t n = 3 * 70001;  // big enough to be split, not a multiple of the task count
  std::vector<float> xa(static_cast<size_t>(n)), xb(70001);
  for (int64_t i = 0; i < n; ++i) xa[static_cast<size_t>(i)] = static_cast<float>(i % 977) * 0.25f - 50.f;
  for (int64_t i = 0; i < 70001; ++i) xb[static_cast<size_t>(i)] = static_cast<float>(i % 13);
  EValue* a = h.tensor<float>({3, 70001}, xa);
  EValue* b = h.tensor<float>({70001}, xb);
  EValue* o1 = h.out<float>({3, 70001});
  EValue* o2 = h.out<float>({3, 70001});
  REQUIRE(h.call("aten::mul.out", {a, b, o1}));
  pthreadpool_t pool = pthreadpool_create(4);
  REQUIRE(pool);
  h.ctx.threadpool = pool;
  const bool ok = h.call("aten::mul.out", {a, b, o2});
  h.ctx.threadpool = nullptr;
  pthreadpool_destroy(pool);
  REQUIRE(ok);
  const float* r1 = o1->t->ptr<float>();
  const float* r2 = o2->t->ptr<float>();
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float want = xa[static_cast<size_t>(i)] * xb[static_cast<size_t>(i % 70001)];
    if (r1[i] != want || r2[i] != want) ++mismatches;
  }
  CHECK(mismatches == 0);
}
