// Doctests of the XNNPACK delegate: blobs built here with the flatbuffers builder
// (our schema/xnnpack.fbs), wrapped in an XH00 header with a constant region.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "interpreter/xnnpack/backend.h"
#include "interpreter/xnnpack/exec.h"
#include "interpreter/xnnpack/graph.h"
#include "ops/linalg/conv_nhwc.h"
#include "ops/util.h"
#include "schema/xnnpack_generated.h"

namespace {

namespace fx = fb_xnnpack;
using namespace pte;

struct Builder {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fx::XValue>> values;
  std::vector<flatbuffers::Offset<fx::XNode>> nodes;
  std::vector<flatbuffers::Offset<fx::ConstantDataOffset>> cdata;
  std::vector<uint8_t> constants;  // the blob's constant region
  uint32_t num_externs = 0;

  Builder() { cdata.push_back(fx::CreateConstantDataOffset(fbb, 0, 0)); }

  // Adds constant bytes; returns the constant_buffer_idx.
  uint32_t constant(const void* p, size_t n) {
    while (constants.size() % 16) constants.push_back(0);
    uint64_t off = constants.size();
    constants.insert(constants.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
    cdata.push_back(fx::CreateConstantDataOffset(fbb, off, n));
    return static_cast<uint32_t>(cdata.size() - 1);
  }
  // A plain value; ext = -1 internal, flags 1 input / 2 output.
  uint32_t value(fx::XNNDatatype dt, std::vector<uint32_t> dims, int ext = -1, uint32_t flags = 0, uint32_t cbuf = 0) {
    uint32_t id = static_cast<uint32_t>(values.size());
    auto tv = fx::CreateXNNTensorValue(fbb, dt, static_cast<uint32_t>(dims.size()), fbb.CreateVector(dims), cbuf,
                                       ext < 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(ext), flags, id);
    values.push_back(fx::CreateXValue(fbb, fx::XValueUnion::XNNTensorValue, tv.Union()));
    if (ext >= 0) num_externs = std::max(num_externs, static_cast<uint32_t>(ext) + 1);
    return id;
  }
  uint32_t fvalue(std::vector<uint32_t> dims, int ext = -1, uint32_t flags = 0) {
    return value(fx::XNNDatatype::xnn_datatype_fp32, dims, ext, flags);
  }
  uint32_t fconst(std::vector<uint32_t> dims, const std::vector<float>& data) {
    return value(fx::XNNDatatype::xnn_datatype_fp32, dims, -1, 0, constant(data.data(), data.size() * 4));
  }
  void node(fx::XNodeUnion t, flatbuffers::Offset<void> u, float lo = -INFINITY, float hi = INFINITY) {
    nodes.push_back(fx::CreateXNode(fbb, t, u, 0, fx::CreateOutputMinMax(fbb, lo, hi)));
  }
  void binary(fx::XNodeUnion t, uint32_t a, uint32_t b, uint32_t y) { node(t, fx::Create_XNNNode2x1(fbb, a, b, y, 0).Union()); }
  void unary(fx::XNodeUnion t, uint32_t a, uint32_t y, float lo = -INFINITY, float hi = INFINITY) {
    node(t, fx::Create_XNNNode1x1(fbb, a, y, 0).Union(), lo, hi);
  }

  std::vector<uint8_t> blob(const char* ident = "XN01") {
    auto g = fx::CreateXNNGraph(fbb, fbb.CreateString("0"), fbb.CreateVector(nodes), fbb.CreateVector(values), num_externs,
                                0, 0, 0, 0, fbb.CreateVector(cdata));
    fbb.Finish(g, ident);
    std::vector<uint8_t> fb(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    uint16_t hl = 30;
    uint32_t fo = 32, fs = static_cast<uint32_t>(fb.size());
    uint32_t co = static_cast<uint32_t>((32 + fb.size() + 15) / 16 * 16);
    uint64_t cs = constants.size();
    std::vector<uint8_t> out(co + constants.size(), 0);
    std::memcpy(out.data() + 4, "XH00", 4);
    std::memcpy(out.data() + 8, &hl, 2);
    std::memcpy(out.data() + 10, &fo, 4);
    std::memcpy(out.data() + 14, &fs, 4);
    std::memcpy(out.data() + 18, &co, 4);
    std::memcpy(out.data() + 22, &cs, 8);
    if (!fb.empty()) std::memcpy(out.data() + 32, fb.data(), fb.size());
    if (!constants.empty()) std::memcpy(out.data() + co, constants.data(), constants.size());
    return out;
  }
};

// A host tensor bound into an EValue.
struct HostT {
  std::vector<float> data;
  Tensor t;
  EValue ev;
  HostT(std::vector<int64_t> sizes, std::vector<float> v, size_t capacity_elems = 0, bool dynamic = true) : data(std::move(v)) {
    if (capacity_elems > data.size()) data.resize(capacity_elems);
    t.dtype = DType::Float;
    const size_t nd = std::min<size_t>(sizes.size(), static_cast<size_t>(pte::kMaxDims));
    t.dim = static_cast<int32_t>(nd);
    for (int i = 0; i < pte::kMaxDims; ++i) t.dim_order[i] = static_cast<uint8_t>(i);
    std::copy(sizes.begin(), sizes.begin() + static_cast<long>(nd), t.sizes);
    compute_strides(t);
    t.data = data.data();
    t.capacity = data.size() * 4;
    t.dynamism = dynamic ? Dynamism::DynamicBound : Dynamism::Static;
    ev.tag = Tag::Tensor;
    ev.t = &t;
  }
};

Status make(const std::vector<uint8_t>& blob, std::unique_ptr<BackendInstance>* out, int last_row_only_output = -1) {
  BackendInit init;
  init.id = "XnnpackBackend";
  init.blob = {blob.data(), blob.size()};
  init.last_row_only_output = last_row_only_output;
  return xnn::create_xnnpack_backend(init, out);
}

}  // namespace

TEST_CASE("xnnpack: add with broadcasting and a fused clamp") {
  Builder b;
  uint32_t x = b.fvalue({2, 3}, 0, 1), y = b.fvalue({3}, 1, 1), z = b.fvalue({2, 3}, 2, 2);
  b.node(fx::XNodeUnion::XNNAdd, fx::Create_XNNNode2x1(b.fbb, x, y, z, 0).Union(), -1.0f, 5.0f);
  auto blob = b.blob();
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  HostT a({2, 3}, {1, 2, 3, 4, 5, 6}), c({3}, {-10, 0, 1}), o({2, 3}, {}, 6);
  EValue* args[] = {&a.ev, &c.ev, &o.ev};
  KernelContext ctx;
  REQUIRE(inst->execute(ctx, args, 3));
  const float want[] = {-1, 2, 4, -1, 5, 5};
  for (int i = 0; i < 6; ++i) CHECK(o.data[i] == want[i]);
}

TEST_CASE("xnnpack: fully connected (constant region weights, bias, transposed weights) and dynamic rows") {
  for (int transposed = 0; transposed < 2; ++transposed) {
    Builder b;
    // W [N=2, K=3] (or [K, N] with the flag)
    std::vector<float> w = transposed ? std::vector<float>{1, 4, 2, 5, 3, 6} : std::vector<float>{1, 2, 3, 4, 5, 6};
    uint32_t x = b.fvalue({4, 3}, 0, 1);
    uint32_t wf = b.fconst(transposed ? std::vector<uint32_t>{3, 2} : std::vector<uint32_t>{2, 3}, w);
    uint32_t bias = b.fconst({2}, {0.5f, -1.0f});
    uint32_t y = b.fvalue({4, 2}, 1, 2);
    b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(b.fbb, x, wf, bias, y, transposed ? 1 : 0).Union());
    auto blob = b.blob();
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    REQUIRE_MESSAGE(s, s.message());
    // two rows (fewer than the exported upper bound of 4)
    HostT a({2, 3}, {1, 0, -1, 2, 1, 0}), o({4, 2}, {}, 8);
    EValue* args[] = {&a.ev, &o.ev};
    KernelContext ctx;
    REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
    REQUIRE(o.t.dim == 2);
    CHECK(o.t.sizes[0] == 2);
    CHECK(o.t.sizes[1] == 2);
    // row0: [1*1+0*2-1*3, 1*4+0-6] + bias = [-2+0.5, -2-1]; row1: [2+2, 8+5] + bias
    const float want[] = {-1.5f, -3.0f, 4.5f, 12.0f};
    for (int i = 0; i < 4; ++i) CHECK(o.data[i] == doctest::Approx(want[i]));
  }
}

TEST_CASE("xnnpack: transpose, reshape (inferred dim), slice, concat and pad") {
  Builder b;
  uint32_t x = b.fvalue({2, 3}, 0, 1);
  uint32_t t = b.fvalue({3, 2}), r = b.fvalue({6}), sl = b.fvalue({4}), c = b.fvalue({10}), p = b.fvalue({13}, 1, 2);
  std::vector<uint32_t> perm{1, 0}, shape{0}, offs{1}, sizes{4}, pre{1}, post{2};
  b.node(fx::XNodeUnion::XNNStaticTranspose, fx::CreateXNNStaticTranspose(b.fbb, 2, b.fbb.CreateVector(perm), x, t).Union());
  b.node(fx::XNodeUnion::XNNStaticReshape, fx::CreateXNNStaticReshape(b.fbb, 1, b.fbb.CreateVector(shape), t, r).Union());
  b.node(fx::XNodeUnion::XNNStaticSlice,
         fx::CreateXNNStaticSlice(b.fbb, 1, b.fbb.CreateVector(offs), b.fbb.CreateVector(sizes), r, sl).Union());
  b.node(fx::XNodeUnion::XNNConcatenate2, fx::Create_XNNCat(b.fbb, 0, r, sl, 0xFFFFFFFFu, 0xFFFFFFFFu, c, 0, 0xFFFFFFFFu).Union());
  b.node(fx::XNodeUnion::XNNStaticConstantPad,
         fx::CreateXNNStaticConstantPad(b.fbb, b.fbb.CreateVector(pre), b.fbb.CreateVector(post), 9.0f, c, p).Union());
  auto blob = b.blob();
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  HostT a({2, 3}, {0, 1, 2, 3, 4, 5}), o({13}, {}, 13);
  EValue* args[] = {&a.ev, &o.ev};
  KernelContext ctx;
  REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
  // transpose: 0 3 1 4 2 5; slice [1,5): 3 1 4 2; concat; pad 1 before, 2 after with 9
  const float want[] = {9, 0, 3, 1, 4, 2, 5, 3, 1, 4, 2, 9, 9};
  for (int i = 0; i < 13; ++i) CHECK(o.data[i] == want[i]);
}

TEST_CASE("xnnpack: NHWC convolution and pooling match direct loops") {
  // x [1, 4, 4, 2], conv 3x3 pad 1 -> 3 channels, then 2x2 max pool
  Builder b;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> xv(32), wv(3 * 3 * 3 * 2), bv{0.1f, -0.2f, 0.3f};
  for (auto& v : xv) v = u(rng);
  for (auto& v : wv) v = u(rng);
  uint32_t x = b.fvalue({1, 4, 4, 2}, 0, 1);
  uint32_t w = b.fconst({3, 3, 3, 2}, wv), bias = b.fconst({3}, bv);
  uint32_t c = b.fvalue({1, 4, 4, 3}), y = b.fvalue({1, 2, 2, 3}, 1, 2);
  b.node(fx::XNodeUnion::XNNConv2d,
         fx::Create_XNNNodeConv(b.fbb, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 2, 3, 1, 0, 0, x, w, bias, c, 0).Union(), 0.0f, INFINITY);
  b.node(fx::XNodeUnion::XNNMaxPooling2d, fx::Create_XNNPooling2D(b.fbb, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, c, y, 0).Union());
  auto blob = b.blob();
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  HostT a({1, 4, 4, 2}, xv), o({1, 2, 2, 3}, {}, 12);
  EValue* args[] = {&a.ev, &o.ev};
  KernelContext ctx;
  REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
  float conv[4][4][3];
  for (int h = 0; h < 4; ++h)
    for (int ww = 0; ww < 4; ++ww)
      for (int oc = 0; oc < 3; ++oc) {
        double acc = bv[oc];
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw)
            for (int ic = 0; ic < 2; ++ic) {
              int ih = h - 1 + kh, iw = ww - 1 + kw;
              if (ih < 0 || ih >= 4 || iw < 0 || iw >= 4) continue;
              acc += xv[(ih * 4 + iw) * 2 + ic] * wv[((oc * 3 + kh) * 3 + kw) * 2 + ic];
            }
        conv[h][ww][oc] = std::max(0.0f, static_cast<float>(acc));
      }
  for (int oh = 0; oh < 2; ++oh)
    for (int ow = 0; ow < 2; ++ow)
      for (int oc = 0; oc < 3; ++oc) {
        float m = std::max(std::max(conv[2 * oh][2 * ow][oc], conv[2 * oh][2 * ow + 1][oc]),
                           std::max(conv[2 * oh + 1][2 * ow][oc], conv[2 * oh + 1][2 * ow + 1][oc]));
        CHECK(o.data[(oh * 2 + ow) * 3 + oc] == doctest::Approx(m).epsilon(1e-5));
      }
}

TEST_CASE("xnnpack: malformed blobs and unsupported nodes are one clear error") {
  std::unique_ptr<BackendInstance> inst;
  std::vector<uint8_t> tiny{0, 0, 0, 0, 'X', 'H'};
  Status s = make(tiny, &inst);
  CHECK(!s);
  Builder b0;
  b0.fvalue({1}, 0, 1);
  auto good = b0.blob();
  {  // flatbuffer size beyond the blob
    auto bad = good;
    uint32_t fs = 1u << 30;
    std::memcpy(bad.data() + 14, &fs, 4);
    s = make(bad, &inst);
    REQUIRE(!s);
    CHECK(s.message().find("outside") != std::string::npos);
  }
  {  // wrong identifier
    Builder b;
    b.fvalue({1}, 0, 1);
    s = make(b.blob("ZZ99"), &inst);
    REQUIRE(!s);
    CHECK(s.message().find("identifier") != std::string::npos);
  }
  {  // every truncation fails cleanly
    for (size_t n = 0; n < good.size(); n += 7) {
      std::vector<uint8_t> t(good.begin(), good.begin() + static_cast<long>(n));
      CHECK(!make(t, &inst));
    }
  }
  {  // every single-byte corruption of a small FC blob loads or fails cleanly (run under the sanitizers)
    Builder b;
    uint32_t x = b.fvalue({2, 3}, 0, 1), w = b.fconst({2, 3}, {1, 2, 3, 4, 5, 6}), bias = b.fconst({2}, {1, 1});
    uint32_t y = b.fvalue({2, 2}, 1, 2);
    b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(b.fbb, x, w, bias, y, 0).Union());
    auto blob = b.blob();
    int refused = 0;
    for (size_t i = 0; i < blob.size(); ++i)
      for (uint8_t v : {uint8_t(0x00), uint8_t(0xFF), uint8_t(0x7F)}) {
        auto bad = blob;
        bad[i] = v;
        Status st = make(bad, &inst);
        if (!st) {
          ++refused;
          CHECK(st.message().find('\n') == std::string::npos);
        }
      }
    CHECK(refused > 0);
  }
  {  // an unsupported node type is refused by name
    Builder b;
    // (XNNArgMaxPooling2d: ExecuTorch 1.5.1's partitioner never emits it, max.dim with indices stays portable)
    uint32_t x = b.fvalue({1, 2, 2, 1}, 0, 1), y = b.fvalue({1, 1, 1, 1}, 1, 2), yi = b.value(fx::XNNDatatype::xnn_datatype_int32, {1, 1, 1, 1});
    b.node(fx::XNodeUnion::XNNArgMaxPooling2d, fx::CreateXNNArgMaxPooling2d(b.fbb, 0, 0, 0, 0, 2, 2, x, y, yi, 0).Union());
    s = make(b.blob(), &inst);
    REQUIRE(!s);
    CHECK(s.message().find("XNNArgMaxPooling2d") != std::string::npos);
    std::vector<DelegateNodeInfo> nodes;
    auto blob = b.blob();
    REQUIRE(xnn::describe_xnnpack_blob({blob.data(), blob.size()}, nullptr, &nodes));
    REQUIRE(nodes.size() == 1);
    CHECK(nodes[0].name == "XNNArgMaxPooling2d");
    CHECK(nodes[0].types.empty());
    CHECK(!nodes[0].supported);
  }
  {  // a node reading an undefined value
    Builder b;
    uint32_t x = b.fvalue({2}, 0, 1), t = b.fvalue({2}), y = b.fvalue({2}, 1, 2);
    b.binary(fx::XNodeUnion::XNNAdd, x, t, y);
    s = make(b.blob(), &inst);
    REQUIRE(!s);
    CHECK(s.message().find("before it is written") != std::string::npos);
  }
  {  // a shape beyond the exported bound fails at execute, without writing out of bounds
    Builder b;
    uint32_t x = b.fvalue({2}, 0, 1), t = b.fvalue({2}), y = b.fvalue({2}, 1, 2);
    b.unary(fx::XNodeUnion::XNNNegate, x, t);
    b.unary(fx::XNodeUnion::XNNAbs, t, y);
    auto blob = b.blob();
    REQUIRE(make(blob, &inst));
    HostT a({5}, {1, 2, 3, 4, 5}), o({2}, {}, 2);
    EValue* args[] = {&a.ev, &o.ev};
    KernelContext ctx;
    CHECK(!inst->execute(ctx, args, 2));
    CHECK(std::string(ctx.message()).find("upper bound") != std::string::npos);
  }
}

TEST_CASE("xnnpack: depthwise convolution, average pooling (padding excluded) and global average pooling") {
  // x [1, 3, 3, 2], depthwise 3x3 pad 1 with channel multiplier 2 -> 4 channels
  Builder b;
  std::vector<float> xv(18), wv(3 * 3 * 4);
  for (int i = 0; i < 18; ++i) xv[i] = static_cast<float>(i % 7) - 3.0f;
  for (int i = 0; i < 36; ++i) wv[i] = 0.1f * static_cast<float>(i % 5) - 0.2f;
  uint32_t x = b.fvalue({1, 3, 3, 2}, 0, 1);
  uint32_t w = b.fconst({1, 3, 3, 4}, wv);
  uint32_t c = b.fvalue({1, 3, 3, 4}, 1, 2), p = b.fvalue({1, 3, 3, 4}, 2, 2), gp = b.fvalue({1, 1, 1, 4}, 3, 2);
  b.node(fx::XNodeUnion::XNNDepthwiseConv2d,
         fx::Create_XNNNodeConv(b.fbb, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 2, 2, 0, 0, x, w, 0xFFFFFFFFu, c, 0).Union());
  b.node(fx::XNodeUnion::XNNAvgPooling2d, fx::Create_XNNPooling2D(b.fbb, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, c, p, 0).Union());
  b.node(fx::XNodeUnion::XNNGlobalAvgPooling2d, fx::Create_XNNNode1x1(b.fbb, c, gp, 0x40).Union());
  auto blob = b.blob();
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  HostT a({1, 3, 3, 2}, xv), o1({1, 3, 3, 4}, {}, 36), o2({1, 3, 3, 4}, {}, 36), o3({1, 1, 1, 4}, {}, 4);
  EValue* args[] = {&a.ev, &o1.ev, &o2.ev, &o3.ev};
  KernelContext ctx;
  REQUIRE_MESSAGE(inst->execute(ctx, args, 4), ctx.message());
  float conv[3][3][4];
  for (int h = 0; h < 3; ++h)
    for (int ww = 0; ww < 3; ++ww)
      for (int oc = 0; oc < 4; ++oc) {
        double acc = 0;
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw) {
            int ih = h - 1 + kh, iw = ww - 1 + kw;
            if (ih < 0 || ih >= 3 || iw < 0 || iw >= 3) continue;
            acc += xv[(ih * 3 + iw) * 2 + oc / 2] * wv[(kh * 3 + kw) * 4 + oc];
          }
        conv[h][ww][oc] = static_cast<float>(acc);
        CHECK(o1.data[(h * 3 + ww) * 4 + oc] == doctest::Approx(acc).epsilon(1e-5));
      }
  for (int oc = 0; oc < 4; ++oc) {
    // corner (0,0): mean of the 2x2 valid window; global: mean of all 9
    double corner = (conv[0][0][oc] + conv[0][1][oc] + conv[1][0][oc] + conv[1][1][oc]) / 4.0, all = 0;
    for (int h = 0; h < 3; ++h)
      for (int ww = 0; ww < 3; ++ww) all += conv[h][ww][oc];
    CHECK(o2.data[oc] == doctest::Approx(corner).epsilon(1e-5));
    CHECK(o3.data[oc] == doctest::Approx(all / 9.0).epsilon(1e-5));
  }
}

TEST_CASE("xnnpack: batch matmul with broadcast batches and transposed B, softmax") {
  Builder b;
  // a [2, 1, 2, 3], b [3, 3, 2] with flag 1 => b is [.., N=3, K=2]? use K=3: b [3, 4, 3] (N=4, K=3)
  uint32_t a = b.fvalue({2, 1, 2, 3}, 0, 1), bb = b.fvalue({3, 4, 3}, 1, 1);
  uint32_t y = b.fvalue({2, 3, 2, 4}, 2, 2), sm = b.fvalue({2, 3, 2, 4}, 3, 2);
  b.node(fx::XNodeUnion::XNNBatchMatrixMultiply, fx::Create_XNNNode2x1(b.fbb, a, bb, y, 1).Union());
  b.unary(fx::XNodeUnion::XNNSoftmax, y, sm);
  auto blob = b.blob();
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  std::vector<float> av(12), bv(36);
  for (int i = 0; i < 12; ++i) av[i] = 0.25f * static_cast<float>(i) - 1.0f;
  for (int i = 0; i < 36; ++i) bv[i] = 0.1f * static_cast<float>(i % 9) - 0.3f;
  HostT ha({2, 1, 2, 3}, av), hb({3, 4, 3}, bv), o({2, 3, 2, 4}, {}, 48), o2({2, 3, 2, 4}, {}, 48);
  EValue* args[] = {&ha.ev, &hb.ev, &o.ev, &o2.ev};
  KernelContext ctx;
  REQUIRE_MESSAGE(inst->execute(ctx, args, 4), ctx.message());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int m = 0; m < 2; ++m) {
        double row[4], mx = -1e30, sum = 0;
        for (int n = 0; n < 4; ++n) {
          double acc = 0;
          for (int k = 0; k < 3; ++k) acc += av[(i * 2 + m) * 3 + k] * bv[(j * 4 + n) * 3 + k];
          row[n] = acc;
          mx = std::max(mx, acc);
          CHECK(o.data[((i * 3 + j) * 2 + m) * 4 + n] == doctest::Approx(acc).epsilon(1e-5));
        }
        for (double& r : row) sum += std::exp(r - mx);
        for (int n = 0; n < 4; ++n)
          CHECK(o2.data[((i * 3 + j) * 2 + m) * 4 + n] == doctest::Approx(std::exp(row[n] - mx) / sum).epsilon(1e-5));
      }
}

TEST_CASE("xnnpack: qd8 x qc8w fully connected, explicit convert and the legacy dq_datatype input agree") {
  const uint32_t M = 2, K = 32, N = 5;
  std::vector<float> xv(M * K), scales(N);
  std::vector<int8_t> wq(N * K);
  for (uint32_t i = 0; i < M * K; ++i) xv[i] = std::sin(0.37f * static_cast<float>(i)) * 2.0f;
  for (uint32_t i = 0; i < N * K; ++i) wq[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
  for (uint32_t n = 0; n < N; ++n) scales[n] = 0.01f * static_cast<float>(n + 1);
  auto build = [&](bool legacy) {
    Builder b;
    auto& f = b.fbb;
    uint32_t x = static_cast<uint32_t>(b.values.size());
    {
      auto tv = fx::CreateXNNTensorValue(f, fx::XNNDatatype::xnn_datatype_fp32, 2, f.CreateVector(std::vector<uint32_t>{M, K}), 0,
                                         0, 1, x, legacy ? fx::XNNDatatype::xnn_datatype_qint8 : fx::XNNDatatype::xnn_datatype_invalid);
      b.values.push_back(fx::CreateXValue(f, fx::XValueUnion::XNNTensorValue, tv.Union()));
      b.num_externs = 2;
    }
    uint32_t xq = x;
    if (!legacy) {
      xq = static_cast<uint32_t>(b.values.size());
      auto tv = fx::CreateXNNTensorValue(f, fx::XNNDatatype::xnn_datatype_qdint8, 2, f.CreateVector(std::vector<uint32_t>{M, K}), 0,
                                         0xFFFFFFFFu, 0, xq);
      auto qp = fx::CreatePerTokenDynamicQuant(f, 1);
      auto qv = fx::CreateXNNQuantizedTensorValue(f, tv, fx::XNNQuantParams::PerTokenDynamicQuant, qp.Union());
      b.values.push_back(fx::CreateXValue(f, fx::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
    }
    uint32_t w = static_cast<uint32_t>(b.values.size());
    {
      uint32_t cb = b.constant(wq.data(), wq.size());
      auto tv = fx::CreateXNNTensorValue(f, fx::XNNDatatype::xnn_datatype_qcint8, 2, f.CreateVector(std::vector<uint32_t>{N, K}), cb,
                                         0xFFFFFFFFu, 0, w);
      auto qp = fx::CreatePerChannelQuant(f, f.CreateVector(scales), 0);
      auto qv = fx::CreateXNNQuantizedTensorValue(f, tv, fx::XNNQuantParams::PerChannelQuant, qp.Union());
      b.values.push_back(fx::CreateXValue(f, fx::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
    }
    uint32_t y = b.fvalue({M, N}, 1, 2);
    if (!legacy) b.unary(fx::XNodeUnion::XNNConvert, x, xq);
    b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(f, xq, w, 0xFFFFFFFFu, y, 0).Union());
    return b.blob();
  };
  std::vector<float> out[2];
  for (int legacy = 0; legacy < 2; ++legacy) {
    auto blob = build(legacy != 0);
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    REQUIRE_MESSAGE(s, s.message());
    HostT a({M, K}, xv), o({M, N}, {}, M * N);
    EValue* args[] = {&a.ev, &o.ev};
    KernelContext ctx;
    REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
    out[legacy] = o.data;
  }
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      double ref = 0, mag = 0;
      for (uint32_t k = 0; k < K; ++k) {
        ref += xv[m * K + k] * wq[n * K + k] * scales[n];
        mag += std::fabs(xv[m * K + k] * wq[n * K + k] * scales[n]);
      }
      CHECK(out[0][m * N + n] == out[1][m * N + n]);
      CHECK(std::fabs(out[0][m * N + n] - ref) <= 0.01 * mag);  // int8 activation rounding
    }
  // BackendInit::last_row_only_output: the FC writing that output computes only its last row
  {
    auto blob = build(false);
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst, 1);
    REQUIRE_MESSAGE(s, s.message());
    HostT a({M, K}, xv), o({M, N}, std::vector<float>(M * N, -7.0f), M * N);
    EValue* args[] = {&a.ev, &o.ev};
    KernelContext ctx;
    REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
    for (uint32_t n = 0; n < N; ++n) {
      CHECK(o.data[n] == -7.0f);  // row 0 untouched
      CHECK(o.data[(M - 1) * N + n] == out[0][(M - 1) * N + n]);
    }
  }
  {  // fp32 FC, and an output index that is not the FC's: everything computed
    Builder b;
    std::vector<float> wv(N * K);
    for (uint32_t i = 0; i < N * K; ++i) wv[i] = 0.01f * static_cast<float>(static_cast<int>(i % 17) - 8);
    uint32_t x = b.fvalue({M, K}, 0, 1), w = b.fconst({N, K}, wv), y = b.fvalue({M, N}, 1, 2);
    b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(b.fbb, x, w, 0xFFFFFFFFu, y, 0).Union());
    auto blob = b.blob();
    for (int which : {1, 5}) {
      std::unique_ptr<BackendInstance> inst;
      Status s = make(blob, &inst, which);
      REQUIRE_MESSAGE(s, s.message());
      HostT a({M, K}, xv), o({M, N}, std::vector<float>(M * N, -7.0f), M * N);
      EValue* args[] = {&a.ev, &o.ev};
      KernelContext ctx;
      REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
      for (uint32_t m = 0; m < M; ++m)
        for (uint32_t n = 0; n < N; ++n) {
          float ref = 0.0f;
          for (uint32_t k = 0; k < K; ++k) ref += xv[m * K + k] * wv[n * K + k];
          CAPTURE(which);
          if (which == 1 && m + 1 < M)
            CHECK(o.data[m * N + n] == -7.0f);
          else
            CHECK(o.data[m * N + n] == doctest::Approx(ref).epsilon(1e-5));
        }
    }
  }
}

TEST_CASE("xnnpack: legacy layouts: bare XN00 flatbuffer with constants in constant_buffer") {
  flatbuffers::FlatBufferBuilder f;
  std::vector<float> w{1, 2, 3, 4, 5, 6}, bias{0.5f, -20.0f};
  std::vector<flatbuffers::Offset<fx::Buffer>> bufs;
  bufs.push_back(fx::CreateBuffer(f, f.CreateVector(std::vector<uint8_t>{})));
  for (const auto* v : {&w, &bias}) {
    f.ForceVectorAlignment(v->size() * 4, 1, 16);
    bufs.push_back(fx::CreateBuffer(f, f.CreateVector(reinterpret_cast<const uint8_t*>(v->data()), v->size() * 4)));
  }
  auto val = [&](std::vector<uint32_t> dims, uint32_t cb, uint32_t ext, uint32_t flags, uint32_t id) {
    auto tv = fx::CreateXNNTensorValue(f, fx::XNNDatatype::xnn_datatype_fp32, static_cast<uint32_t>(dims.size()), f.CreateVector(dims),
                                       cb, ext, flags, id);
    return fx::CreateXValue(f, fx::XValueUnion::XNNTensorValue, tv.Union());
  };
  std::vector<flatbuffers::Offset<fx::XValue>> values{val({1, 3}, 0, 0, 1, 0), val({2, 3}, 1, 0xFFFFFFFFu, 0, 1),
                                                       val({2}, 2, 0xFFFFFFFFu, 0, 2), val({1, 2}, 0, 1, 2, 3)};
  // a fused ReLU: output_min 0 is the schema default, so it is not even written
  std::vector<flatbuffers::Offset<fx::XNode>> nodes{fx::CreateXNode(f, fx::XNodeUnion::XNNFullyConnected,
                                                                    fx::CreateXNNFullyConnected(f, 0, 1, 2, 3, 0).Union(), 0,
                                                                    fx::CreateOutputMinMax(f, 0.0f, INFINITY))};
  auto g = fx::CreateXNNGraph(f, f.CreateString("0"), f.CreateVector(nodes), f.CreateVector(values), 2, 0, 0, f.CreateVector(bufs));
  f.Finish(g, "XN00");
  std::vector<uint8_t> blob(f.GetBufferPointer(), f.GetBufferPointer() + f.GetSize());
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  HostT a({1, 3}, {1, -1, 2}), o({1, 2}, {}, 2);
  EValue* args[] = {&a.ev, &o.ev};
  KernelContext ctx;
  REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
  CHECK(o.data[0] == doctest::Approx(1 - 2 + 6 + 0.5));
  CHECK(o.data[1] == 0.0f);  // 4 - 5 + 12 - 20 = -9, clamped by the fused ReLU
}

TEST_CASE("xnnpack: every byte of a real 8da4w program damaged: loads or fails with one line") {
  const char* path = "fixtures/data/qlinear_8da4w_xnnpack/model.pte";
  FILE* fp = std::fopen(path, "rb");
  if (!fp) {
    MESSAGE("skipped: " << path << " not found (run from the repository root)");
    return;
  }
  std::vector<uint8_t> file;
  uint8_t buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, fp)) > 0;) file.insert(file.end(), buf, buf + n);
  std::fclose(fp);
  // the delegate blob (XH00 header, graph, quantization parameters)
  size_t begin = 0;
  for (size_t i = 4; i + 4 <= file.size(); ++i)
    if (std::memcmp(file.data() + i, "XH00", 4) == 0) begin = i - 4;
  REQUIRE(begin > 0);
  const size_t end = std::min(file.size(), begin + 1616);
  Program::MethodOptions mo;
  mo.num_threads = 1;
  mo.scratch_bytes = 1 << 16;
  int loaded = 0, refused = 0;
  for (size_t i = begin; i < end; ++i)
    for (uint8_t v : {uint8_t(0x00), uint8_t(0xFF)}) {
      if (file[i] == v) continue;
      std::vector<uint8_t> bad = file;
      bad[i] = v;
      std::unique_ptr<Program> prog;
      Status s = Program::open_buffer(bad.data(), bad.size(), "damaged.pte", {}, &prog);
      if (s) {
        std::unique_ptr<Method> m;
        s = prog->load_method("forward", mo, &m);
      }
      if (s) {
        ++loaded;
      } else {
        ++refused;
        CHECK(!s.message().empty());
        CHECK(s.message().find('\n') == std::string::npos);
      }
    }
  CHECK(loaded > 0);
  CHECK(refused > 0);
}

namespace {

// Reference transposed convolution straight from XNNPACK's definition: NHWC input,
// filter [groups * goc, KH, KW, gic], output row oy = iy * stride - pad_top + ky * dilation.
std::vector<float> ref_deconv(const std::vector<float>& x, int H, int W, const std::vector<float>& w, const std::vector<float>& bias,
                              int G, int gic, int goc, int KH, int KW, int sh, int sw, int dh, int dw, int pt, int pl, int OH, int OW) {
  const int C = G * gic, OC = G * goc;
  std::vector<double> y(static_cast<size_t>(OH * OW * OC));
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int oc = 0; oc < OC; ++oc) y[(oy * OW + ox) * OC + oc] = bias.empty() ? 0.0 : bias[oc];
  for (int iy = 0; iy < H; ++iy)
    for (int ix = 0; ix < W; ++ix)
      for (int g = 0; g < G; ++g)
        for (int o = 0; o < goc; ++o)
          for (int ky = 0; ky < KH; ++ky)
            for (int kx = 0; kx < KW; ++kx) {
              const int oy = iy * sh - pt + ky * dh, ox = ix * sw - pl + kx * dw;
              if (oy < 0 || oy >= OH || ox < 0 || ox >= OW) continue;
              for (int i = 0; i < gic; ++i)
                y[(oy * OW + ox) * OC + g * goc + o] +=
                    static_cast<double>(x[(iy * W + ix) * C + g * gic + i]) * w[(((g * goc + o) * KH + ky) * KW + kx) * gic + i];
            }
  return std::vector<float>(y.begin(), y.end());
}

// A host tensor of fp16 values (bits) bound into an EValue.
struct HalfT {
  std::vector<uint16_t> data;
  Tensor t;
  EValue ev;
  HalfT(std::vector<int64_t> sizes, const std::vector<float>& v, size_t capacity_elems = 0) {
    for (float f : v) data.push_back(float_to_half_bits(f));
    if (capacity_elems > data.size()) data.resize(capacity_elems);
    t.dtype = DType::Half;
    t.dim = static_cast<int32_t>(sizes.size());
    for (int i = 0; i < pte::kMaxDims; ++i) t.dim_order[i] = static_cast<uint8_t>(i);
    std::copy(sizes.begin(), sizes.end(), t.sizes);
    compute_strides(t);
    t.data = data.data();
    t.capacity = data.size() * 2;
    t.dynamism = Dynamism::DynamicBound;
    ev.tag = Tag::Tensor;
    ev.t = &t;
  }
  float at(size_t i) const { return half_bits_to_float(data[i]); }
};

float round_half(float f) { return half_bits_to_float(float_to_half_bits(f)); }

}  // namespace

TEST_CASE("xnnpack: transposed convolution (groups, stride, dilation, asymmetric padding, adjustment) matches the definition") {
  struct Geo {
    int G, gic, goc, KH, KW, sh, sw, dh, dw, pt, pr, pb, pl, ah, aw;
    bool bias;
  };
  const Geo geos[] = {
      {1, 3, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, true},   // torch ConvTranspose2d(3, 2, 3, stride 2, padding 1, output_padding 1)
      {2, 2, 3, 3, 2, 1, 2, 2, 1, 0, 1, 2, 0, 0, 1, false},  // grouped, dilated rows, asymmetric padding
      {4, 1, 1, 3, 3, 3, 2, 1, 1, 2, 0, 1, 1, 2, 1, true},   // depthwise, stride 3x2
  };
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const Geo& q : geos) {
    CAPTURE(q.G);
    CAPTURE(q.sh);
    CAPTURE(q.pt);
    const int H = 4, W = 5, C = q.G * q.gic, OC = q.G * q.goc;
    const int OH = (H - 1) * q.sh + q.ah + q.dh * (q.KH - 1) + 1 - q.pt - q.pb;
    const int OW = (W - 1) * q.sw + q.aw + q.dw * (q.KW - 1) + 1 - q.pl - q.pr;
    std::vector<float> xv(static_cast<size_t>(H * W * C)), wv(static_cast<size_t>(OC * q.KH * q.KW * q.gic)), bv;
    for (auto& v : xv) v = u(rng);
    for (auto& v : wv) v = u(rng);
    if (q.bias)
      for (int i = 0; i < OC; ++i) bv.push_back(u(rng));
    Builder b;
    uint32_t x = b.fvalue({1, (uint32_t)H, (uint32_t)W, (uint32_t)C}, 0, 1);
    uint32_t w = b.fconst({(uint32_t)OC, (uint32_t)q.KH, (uint32_t)q.KW, (uint32_t)q.gic}, wv);
    uint32_t bias = q.bias ? b.fconst({(uint32_t)OC}, bv) : 0xFFFFFFFFu;
    uint32_t y = b.fvalue({1, (uint32_t)OH, (uint32_t)OW, (uint32_t)OC}, 1, 2);
    b.node(fx::XNodeUnion::XNNConvTranspose2d,
           fx::Create_XNNNodeConv(b.fbb, q.pt, q.pr, q.pb, q.pl, q.KH, q.KW, q.sh, q.sw, q.dh, q.dw, q.gic, q.goc, q.G, q.ah, q.aw, x,
                                  w, bias, y, 0)
               .Union());
    auto blob = b.blob();
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    REQUIRE_MESSAGE(s, s.message());
    HostT a({1, H, W, C}, xv), o({1, OH, OW, OC}, {}, static_cast<size_t>(OH * OW * OC));
    EValue* args[] = {&a.ev, &o.ev};
    KernelContext ctx;
    REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
    CHECK(o.t.sizes[1] == OH);
    CHECK(o.t.sizes[2] == OW);
    auto ref = ref_deconv(xv, H, W, wv, bv, q.G, q.gic, q.goc, q.KH, q.KW, q.sh, q.sw, q.dh, q.dw, q.pt, q.pl, OH, OW);
    for (size_t i = 0; i < ref.size(); ++i) CHECK(o.data[i] == doctest::Approx(ref[i]).epsilon(1e-5));
    // a smaller input (dynamic H, W): the output is re-propagated and resized
    HostT a2({1, 2, 3, C}, std::vector<float>(xv.begin(), xv.begin() + 2 * 3 * C));
    EValue* args2[] = {&a2.ev, &o.ev};
    REQUIRE_MESSAGE(inst->execute(ctx, args2, 2), ctx.message());
    const int OH2 = (2 - 1) * q.sh + q.ah + q.dh * (q.KH - 1) + 1 - q.pt - q.pb;
    const int OW2 = (3 - 1) * q.sw + q.aw + q.dw * (q.KW - 1) + 1 - q.pl - q.pr;
    CHECK(o.t.sizes[1] == OH2);
    CHECK(o.t.sizes[2] == OW2);
    auto ref2 = ref_deconv(a2.data, 2, 3, wv, bv, q.G, q.gic, q.goc, q.KH, q.KW, q.sh, q.sw, q.dh, q.dw, q.pt, q.pl, OH2, OW2);
    for (size_t i = 0; i < ref2.size(); ++i) CHECK(o.data[i] == doctest::Approx(ref2[i]).epsilon(1e-5));
  }
  {  // an adjustment not smaller than the stride is refused at load, by name
    Builder b;
    uint32_t x = b.fvalue({1, 2, 2, 1}, 0, 1), w = b.fconst({1, 2, 2, 1}, {1, 2, 3, 4}), y = b.fvalue({1, 5, 5, 1}, 1, 2);
    b.node(fx::XNodeUnion::XNNConvTranspose2d,
           fx::Create_XNNNodeConv(b.fbb, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1, 1, 2, 0, x, w, 0xFFFFFFFFu, y, 0).Union());
    std::unique_ptr<BackendInstance> inst;
    Status s = make(b.blob(), &inst);
    REQUIRE(!s);
    CHECK(s.message().find("XNNConvTranspose2d") != std::string::npos);
    CHECK(s.message().find("adjustment") != std::string::npos);
  }
}

TEST_CASE("xnnpack: bilinear resize: half-pixel centres, align_corners, TensorFlow legacy mode") {
  // x = [[0, 1], [2, 3]] (NHWC, one channel) -> every output is 2 * src_y + src_x
  auto run = [](uint32_t oh, uint32_t ow, uint32_t flags, std::vector<float>* out) {
    Builder b;
    uint32_t x = b.fvalue({1, 2, 2, 1}, 0, 1), y = b.fvalue({1, oh, ow, 1}, 1, 2);
    b.node(fx::XNodeUnion::XNNStaticResizeBilinear2D, fx::CreateXNNStaticResizeBilinear2D(b.fbb, oh, ow, x, y, flags).Union());
    auto blob = b.blob();
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    if (!s) return s;
    HostT a({1, 2, 2, 1}, {0, 1, 2, 3}), o({1, oh, ow, 1}, {}, oh * ow);
    EValue* args[] = {&a.ev, &o.ev};
    KernelContext ctx;
    REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
    *out = std::vector<float>(o.data.begin(), o.data.begin() + oh * ow);
    return Status::ok();
  };
  std::vector<float> y;
  REQUIRE(run(4, 4, 0, &y));  // src = (o + 0.5) / 2 - 0.5 clamped: 0, 0.25, 0.75, 1
  const float hp[4] = {0, 0.25f, 0.75f, 1};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) CHECK(y[i * 4 + j] == doctest::Approx(2 * hp[i] + hp[j]));
  REQUIRE(run(3, 3, xnn::kFlagAlignCorners, &y));  // src = o * (2 - 1) / (3 - 1)
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(y[i * 3 + j] == doctest::Approx(2 * 0.5f * i + 0.5f * j));
  REQUIRE(run(1, 1, xnn::kFlagAlignCorners, &y));  // one output: the corner
  CHECK(y[0] == 0.0f);
  REQUIRE(run(1, 1, 0, &y));  // one output: the centre
  CHECK(y[0] == doctest::Approx(1.5f));
  REQUIRE(run(1, 4, xnn::kFlagTensorflowLegacy, &y));  // src = o * 2 / 4, the last one past the edge stays there
  const float lg[4] = {0, 0.5f, 1, 1};
  for (int j = 0; j < 4; ++j) CHECK(y[j] == doctest::Approx(lg[j]));
  Status s = run(0, 4, 0, &y);
  REQUIRE(!s);
  CHECK(s.message().find("XNNStaticResizeBilinear2D") != std::string::npos);
  s = run(2, 2, xnn::kFlagAlignCorners | xnn::kFlagTensorflowLegacy, &y);
  REQUIRE(!s);
  CHECK(s.message().find("align_corners") != std::string::npos);
  s = run(2, 2, 0x100, &y);
  REQUIRE(!s);
  CHECK(s.message().find("flags") != std::string::npos);
}

TEST_CASE("xnnpack: fp16 graph runs on the fp32 kernels, stored in fp16 (fp16 constant, fp32 filter, data movement in fp16)") {
  // y = transpose(fc(x, w32, b32) + c16): x fp16 [2, 3], w fp32 [2, 3], c fp16 [2] constant, y fp16 [2, 2]
  Builder b;
  const std::vector<float> xv{0.5f, -1.25f, 2.0f, 3.0f, 0.125f, -0.75f}, wv{0.1f, 0.2f, -0.3f, 0.7f, -0.5f, 0.25f}, bv{0.01f, -0.02f};
  std::vector<uint16_t> cbits{float_to_half_bits(1.5f), float_to_half_bits(-0.333f)};
  uint32_t x = b.value(fx::XNNDatatype::xnn_datatype_fp16, {2, 3}, 0, 1);
  uint32_t w = b.fconst({2, 3}, wv), bias = b.fconst({2}, bv);
  uint32_t c = b.value(fx::XNNDatatype::xnn_datatype_fp16, {2}, -1, 0, b.constant(cbits.data(), 4));
  uint32_t f = b.value(fx::XNNDatatype::xnn_datatype_fp16, {2, 2}), a = b.value(fx::XNNDatatype::xnn_datatype_fp16, {2, 2});
  uint32_t y = b.value(fx::XNNDatatype::xnn_datatype_fp16, {2, 2}, 1, 2);
  b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(b.fbb, x, w, bias, f, 0).Union());
  b.binary(fx::XNodeUnion::XNNAdd, f, c, a);
  b.node(fx::XNodeUnion::XNNStaticTranspose,
         fx::CreateXNNStaticTranspose(b.fbb, 2, b.fbb.CreateVector(std::vector<uint32_t>{1, 0}), a, y, 0).Union());
  auto blob = b.blob();
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  HalfT hx({2, 3}, xv), hy({2, 2}, {}, 4);
  EValue* args[] = {&hx.ev, &hy.ev};
  KernelContext ctx;
  REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
  for (int m = 0; m < 2; ++m)
    for (int n = 0; n < 2; ++n) {
      float acc = bv[n];
      for (int k = 0; k < 3; ++k) acc += round_half(xv[m * 3 + k]) * wv[n * 3 + k];
      const float fc = round_half(acc);
      const float want = round_half(fc + half_bits_to_float(cbits[n]));
      CHECK(hy.at(static_cast<size_t>(n * 2 + m)) == want);  // transposed
    }
  // the rewrite: x's twin, the FC, f's round trip in one pass (f itself never written: only
  // the Add read it), the Add, a narrowed for the transpose (which moves fp16 bytes), the
  // transpose. The results above are those of both passes (the rounding of fc).
  {
    xnn::Graph g;
    REQUIRE(xnn::parse_graph({blob.data(), blob.size()}, nullptr, &g).is_ok());
    std::vector<int32_t> origin;
    REQUIRE(xnn::widen_half(&g, &origin).is_ok());
    REQUIRE(g.nodes.size() == 6);
    CHECK(origin == std::vector<int32_t>{0, 0, 1, 1, 1, 2});
    int rounds = 0;
    for (const auto& n : g.nodes)
      if (n.op == xnn::Op::Convert && n.round_through == xnn::DT::F16) {
        ++rounds;
        CHECK(g.values[static_cast<size_t>(n.in[0])].dtype == xnn::DT::F32);
        CHECK(g.values[static_cast<size_t>(n.out)].dtype == xnn::DT::F32);
      }
    CHECK(rounds == 1);
    CHECK(g.nodes[2].op == xnn::Op::Convert);
    CHECK(g.nodes[2].in[0] == g.nodes[1].out);  // reads the FC's fp32 result
    for (const auto& n : g.nodes) CHECK(n.out != static_cast<int32_t>(f));
  }
  // info: the nodes are listed with their serialized types and as supported
  std::vector<DelegateNodeInfo> nodes;
  REQUIRE(xnn::describe_xnnpack_blob({blob.data(), blob.size()}, nullptr, &nodes));
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[0].name == "XNNFullyConnected");
  CHECK(nodes[0].types == "fp16 x fp32 -> fp16");
  for (const auto& e : nodes) CHECK_MESSAGE(e.supported, e.name);
}

TEST_CASE("xnnpack: asymmetric padding on Conv2d, DepthwiseConv2d, AvgPooling2d (divisor: the valid taps) and MaxPooling2d") {
  // pads (top, right, bottom, left) = (2, 0, 1, 1), stride 2x1, on x [1, 5, 4, 2]
  const int H = 5, W = 4, C = 2, pt = 2, pr = 0, pb = 1, pl = 1, K = 3, sh = 2, sw = 1;
  const int OH = (H + pt + pb - K) / sh + 1, OW = (W + pl + pr - K) / sw + 1;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> xv(H * W * C), wv(3 * K * K * C), dv(K * K * C);
  for (auto& v : xv) v = u(rng);
  for (auto& v : wv) v = u(rng);
  for (auto& v : dv) v = u(rng);
  Builder b;
  uint32_t x = b.fvalue({1, H, W, C}, 0, 1), w = b.fconst({3, K, K, C}, wv), dw = b.fconst({1, K, K, C}, dv);
  uint32_t yc = b.fvalue({1, OH, OW, 3}, 1, 2), yd = b.fvalue({1, OH, OW, C}, 2, 2);
  uint32_t ya = b.fvalue({1, OH, OW, C}, 3, 2), ym = b.fvalue({1, OH, OW, C}, 4, 2);
  b.node(fx::XNodeUnion::XNNConv2d,
         fx::Create_XNNNodeConv(b.fbb, pt, pr, pb, pl, K, K, sh, sw, 1, 1, C, 3, 1, 0, 0, x, w, 0xFFFFFFFFu, yc, 0).Union());
  b.node(fx::XNodeUnion::XNNDepthwiseConv2d,
         fx::Create_XNNNodeConv(b.fbb, pt, pr, pb, pl, K, K, sh, sw, 1, 1, 1, 1, C, 0, 0, x, dw, 0xFFFFFFFFu, yd, 0).Union());
  b.node(fx::XNodeUnion::XNNAvgPooling2d, fx::Create_XNNPooling2D(b.fbb, pt, pr, pb, pl, K, K, sh, sw, 1, 1, x, ya, 0).Union());
  b.node(fx::XNodeUnion::XNNMaxPooling2d, fx::Create_XNNPooling2D(b.fbb, pt, pr, pb, pl, K, K, sh, sw, 1, 1, x, ym, 0).Union());
  auto blob = b.blob();
  std::unique_ptr<BackendInstance> inst;
  Status s = make(blob, &inst);
  REQUIRE_MESSAGE(s, s.message());
  HostT a({1, H, W, C}, xv), oc({1, OH, OW, 3}, {}, OH * OW * 3), od({1, OH, OW, C}, {}, OH * OW * C);
  HostT oa({1, OH, OW, C}, {}, OH * OW * C), om({1, OH, OW, C}, {}, OH * OW * C);
  EValue* args[] = {&a.ev, &oc.ev, &od.ev, &oa.ev, &om.ev};
  KernelContext ctx;
  REQUIRE_MESSAGE(inst->execute(ctx, args, 5), ctx.message());
  CHECK(oc.t.sizes[1] == OH);
  CHECK(oc.t.sizes[2] == OW);
  for (int oh = 0; oh < OH; ++oh)
    for (int ow = 0; ow < OW; ++ow) {
      double conv[3] = {}, dwc[C] = {}, sum[C] = {};
      float mx[C] = {-INFINITY, -INFINITY};
      int taps = 0;
      for (int kh = 0; kh < K; ++kh)
        for (int kw = 0; kw < K; ++kw) {
          const int ih = oh * sh - pt + kh, iw = ow * sw - pl + kw;
          if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
          ++taps;
          for (int c = 0; c < C; ++c) {
            const float v = xv[(ih * W + iw) * C + c];
            for (int o = 0; o < 3; ++o) conv[o] += v * wv[((o * K + kh) * K + kw) * C + c];
            dwc[c] += v * dv[(kh * K + kw) * C + c];
            sum[c] += v;
            mx[c] = std::max(mx[c], v);
          }
        }
      REQUIRE(taps > 0);
      for (int o = 0; o < 3; ++o) CHECK(oc.data[(oh * OW + ow) * 3 + o] == doctest::Approx(conv[o]).epsilon(1e-5));
      for (int c = 0; c < C; ++c) {
        CHECK(od.data[(oh * OW + ow) * C + c] == doctest::Approx(dwc[c]).epsilon(1e-5));
        CHECK(oa.data[(oh * OW + ow) * C + c] == doctest::Approx(sum[c] / taps).epsilon(1e-5));
        CHECK(om.data[(oh * OW + ow) * C + c] == mx[c]);
      }
    }
}

TEST_CASE("xnnpack: a zero pad feeding a convolution is folded into its padding (same results, one node fewer)") {
  // x [1, 5, 4, 2] -> pad H by (2, 1), W by (0, 3) -> conv 3x3 stride 2 with its own padding
  // (1, 0, 0, 1) -> y; and the same x padded by 9 (not zero: kept) -> a second conv -> y2
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> xv(1 * 5 * 4 * 2), wv(3 * 3 * 3 * 2), bv{0.1f, -0.2f, 0.3f};
  for (auto& v : xv) v = u(rng);
  for (auto& v : wv) v = u(rng);
  const int PH = 5 + 2 + 1, PW = 4 + 0 + 3;  // padded input 8 x 7
  // the convolution's own padding top 1, right 0, bottom 0, left 1; stride 2
  const int OH = (PH + 1 - 3) / 2 + 1, OW = (PW + 1 - 3) / 2 + 1;
  auto build = [&](float pad_value) {
    Builder b;
    uint32_t x = b.fvalue({1, 5, 4, 2}, 0, 1);
    uint32_t w = b.fconst({3, 3, 3, 2}, wv), bias = b.fconst({3}, bv);
    uint32_t p = b.fvalue({1, static_cast<uint32_t>(PH), static_cast<uint32_t>(PW), 2});
    uint32_t y = b.fvalue({1, static_cast<uint32_t>(OH), static_cast<uint32_t>(OW), 3}, 1, 2);
    std::vector<uint32_t> pre{0, 2, 0, 0}, post{0, 1, 3, 0};
    b.node(fx::XNodeUnion::XNNStaticConstantPad,
           fx::CreateXNNStaticConstantPad(b.fbb, b.fbb.CreateVector(pre), b.fbb.CreateVector(post), pad_value, x, p).Union());
    // padding top, right, bottom, left; kernel 3x3; stride 2x2; dilation 1; groups 1; 2 -> 3 channels
    b.node(fx::XNodeUnion::XNNConv2d,
           fx::Create_XNNNodeConv(b.fbb, 1, 0, 0, 1, 3, 3, 2, 2, 1, 1, 2, 3, 1, 0, 0, p, w, bias, y, 0).Union());
    return b.blob();
  };
  for (float pad_value : {0.0f, 9.0f}) {
    CAPTURE(pad_value);
    auto blob = build(pad_value);
    // the fold itself: on the parsed graph
    xnn::Graph g;
    REQUIRE(xnn::parse_graph({blob.data(), blob.size()}, nullptr, &g).is_ok());
    std::vector<int32_t> origin{0, 1};
    REQUIRE(xnn::fuse_pad_into_conv(&g, &origin).is_ok());
    if (pad_value == 0.0f) {
      REQUIRE(g.nodes.size() == 1);
      CHECK(origin == std::vector<int32_t>{1});
      const xnn::ConvParams& c = g.nodes[0].conv;
      CHECK(c.pad_top == 1 + 2);
      CHECK(c.pad_bottom == 0 + 1);
      CHECK(c.pad_left == 1 + 0);
      CHECK(c.pad_right == 0 + 3);
      CHECK(g.nodes[0].in[0] == 0);  // reads x
    } else {
      CHECK(g.nodes.size() == 2);  // a pad of 9 is not the convolution's zero padding
    }
    // and run: against direct loops over the explicitly padded input
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    REQUIRE_MESSAGE(s, s.message());
    HostT a({1, 5, 4, 2}, xv), o({1, OH, OW, 3}, {}, static_cast<size_t>(OH * OW * 3));
    EValue* args[] = {&a.ev, &o.ev};
    KernelContext ctx;
    REQUIRE_MESSAGE(inst->execute(ctx, args, 2), ctx.message());
    auto padded = [&](int h, int w, int c) -> double {  // the pad node's output
      if (h < 0 || h >= PH || w < 0 || w >= PW) return 0.0;  // the convolution's own zero padding
      const int ih = h - 2, iw = w - 0;
      if (ih < 0 || ih >= 5 || iw < 0 || iw >= 4) return pad_value;
      return xv[(ih * 4 + iw) * 2 + c];
    };
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow)
        for (int oc = 0; oc < 3; ++oc) {
          double acc = bv[oc];
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw)
              for (int ic = 0; ic < 2; ++ic)
                acc += padded(oh * 2 - 1 + kh, ow * 2 - 1 + kw, ic) * wv[((oc * 3 + kh) * 3 + kw) * 2 + ic];
          CHECK(o.data[(oh * OW + ow) * 3 + oc] == doctest::Approx(acc).epsilon(1e-5));
        }
  }
}

TEST_CASE("xnnpack: an Add of a convolution's output and a shortcut runs in the convolution's store (same bits, Add clamp)") {
  // x [1, 6, 5, 64] -> conv 3x3 pad 1, 64 -> 64 (no clamp) -> v; Add(v, r) clamped to [0, 1.5] -> y.
  // Variant "exported": v is also a graph output, so the Add cannot be fused: the reference.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  const int H = 6, W = 5, C = 64, OC = 64;
  std::vector<float> xv(H * W * C), rv(H * W * OC), wv(OC * 3 * 3 * C), bv(OC);
  for (auto* v : {&xv, &rv, &wv, &bv})
    for (auto& e : *v) e = u(rng) * 0.2f;
  auto build = [&](bool exported, bool shortcut_first) {
    Builder b;
    const std::vector<uint32_t> dims{1, H, W, C};
    uint32_t x = b.fvalue(dims, 0, 1), r = b.fvalue(dims, 1, 1);
    uint32_t w = b.fconst({OC, 3, 3, C}, wv), bias = b.fconst({OC}, bv);
    uint32_t v = exported ? b.fvalue(dims, 3, 2) : b.fvalue(dims);
    uint32_t y = b.fvalue(dims, 2, 2);
    b.node(fx::XNodeUnion::XNNConv2d,
           fx::Create_XNNNodeConv(b.fbb, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, C, OC, 1, 0, 0, x, w, bias, v, 0).Union());
    b.node(fx::XNodeUnion::XNNAdd, shortcut_first ? fx::Create_XNNNode2x1(b.fbb, r, v, y, 0).Union()
                                                  : fx::Create_XNNNode2x1(b.fbb, v, r, y, 0).Union(),
           0.0f, 1.5f);
    return b.blob();
  };
  // the rewrite itself
  {
    auto blob = build(false, true);
    xnn::Graph g;
    REQUIRE(xnn::parse_graph({blob.data(), blob.size()}, nullptr, &g).is_ok());
    std::vector<size_t> keep;
    CHECK_FALSE(xnn::fuse_conv_add(&g, {0, 0}, &keep));  // not eligible (the library's convolution)
    CHECK(keep == std::vector<size_t>{0, 1});
    REQUIRE(xnn::fuse_conv_add(&g, {1, 0}, &keep));
    CHECK(keep == std::vector<size_t>{0});
    CHECK(g.nodes[0].nin == 4);
    CHECK(g.nodes[0].in[3] == 1);  // r
    CHECK(g.nodes[0].out == g.nodes[1].out);  // y
    CHECK(g.nodes[0].out_min == 0.0f);
    CHECK(g.nodes[0].out_max == 1.5f);
    auto blob2 = build(true, true);
    xnn::Graph g2;
    REQUIRE(xnn::parse_graph({blob2.data(), blob2.size()}, nullptr, &g2).is_ok());
    CHECK_FALSE(xnn::fuse_conv_add(&g2, {1, 0}, &keep));  // v is read outside the graph too
  }
  // and run: fused against unfused, bit for bit; both against direct loops
  std::vector<float> ref;
  for (int variant = 0; variant < 3; ++variant) {
    const bool exported = variant == 0, shortcut_first = variant != 2;
    CAPTURE(variant);
    auto blob = build(exported, shortcut_first);
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    REQUIRE_MESSAGE(s, s.message());
    HostT a({1, H, W, C}, xv), rr({1, H, W, C}, rv), o({1, H, W, OC}, {}, H * W * OC), ov({1, H, W, OC}, {}, H * W * OC);
    EValue* args[] = {&a.ev, &rr.ev, &o.ev, &ov.ev};
    KernelContext ctx;
    inst->set_profiling(true);
    REQUIRE_MESSAGE(inst->execute(ctx, args, exported ? 4 : 3), ctx.message());
    // where conv_nhwc runs the convolution (AVX-512F, aarch64) the Add is gone unless exported;
    // elsewhere (the library's or the im2col engine's convolution) nothing fuses
    std::vector<OpTiming> prof;
    inst->profile(&prof);
    bool add_ran = false;
    for (const OpTiming& t : prof) add_ran = add_ran || t.name.find("XNNAdd") != std::string::npos;
    CHECK(add_ran == (exported || !linalg::conv_nhwc_has_simd()));
    if (variant == 0) {
      ref = o.data;
      for (int oh = 0; oh < H; ++oh)
        for (int ow = 0; ow < W; ++ow)
          for (int oc = 0; oc < OC; ++oc) {
            double acc = bv[oc];
            for (int kh = 0; kh < 3; ++kh)
              for (int kw = 0; kw < 3; ++kw) {
                const int ih = oh - 1 + kh, iw = ow - 1 + kw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                for (int ic = 0; ic < C; ++ic) acc += xv[(ih * W + iw) * C + ic] * wv[((oc * 3 + kh) * 3 + kw) * C + ic];
              }
            const size_t i = static_cast<size_t>((oh * W + ow) * OC + oc);
            CHECK(ov.data[i] == doctest::Approx(acc).epsilon(1e-4));
            CHECK(o.data[i] == doctest::Approx(std::min(1.5, std::max(0.0, acc + rv[i]))).epsilon(1e-4));
          }
    } else {
      REQUIRE(o.data.size() == ref.size());
      CHECK(std::memcmp(o.data.data(), ref.data(), ref.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("xnnpack: an fp16 zero pad feeding an fp16 convolution folds too (before widen_half), origins kept") {
  // fp16 graph: x [1, 5, 4, 2] -> zero pad H (2, 1) -> conv 3x3 -> y; the fold runs before
  // widen_half (whose Converts would otherwise sit between the pad and the convolution)
  std::vector<uint16_t> wv(3 * 3 * 3 * 2, 0x3c00), bv(3, 0);
  Builder b;
  const auto f16 = fx::XNNDatatype::xnn_datatype_fp16;
  uint32_t x = b.value(f16, {1, 5, 4, 2}, 0, 1);
  uint32_t w = b.value(f16, {3, 3, 3, 2}, -1, 0, b.constant(wv.data(), wv.size() * 2));
  uint32_t bias = b.value(f16, {3}, -1, 0, b.constant(bv.data(), bv.size() * 2));
  uint32_t p = b.value(f16, {1, 8, 4, 2});
  uint32_t y = b.value(f16, {1, 6, 2, 3}, 1, 2);
  std::vector<uint32_t> pre{0, 2, 0, 0}, post{0, 1, 0, 0};
  b.node(fx::XNodeUnion::XNNStaticConstantPad,
         fx::CreateXNNStaticConstantPad(b.fbb, b.fbb.CreateVector(pre), b.fbb.CreateVector(post), 0.0f, x, p).Union());
  b.node(fx::XNodeUnion::XNNConv2d, fx::Create_XNNNodeConv(b.fbb, 0, 0, 0, 0, 3, 3, 1, 1, 1, 1, 1, 3, 2, 0, 0, p, w, bias, y, 0).Union());
  auto blob = b.blob();
  xnn::Graph g;
  REQUIRE(xnn::parse_graph({blob.data(), blob.size()}, nullptr, &g).is_ok());
  std::vector<int32_t> origin;
  REQUIRE(xnn::fuse_pad_into_conv(&g, &origin).is_ok());
  REQUIRE(g.nodes.size() == 1);
  CHECK(origin == std::vector<int32_t>{1});
  CHECK(g.nodes[0].conv.pad_top == 2);
  CHECK(g.nodes[0].conv.pad_bottom == 1);
  CHECK(g.nodes[0].in[0] == static_cast<int32_t>(x));
  // widen_half after it: Convert in, the convolution, Convert out, all from original node 1
  REQUIRE(xnn::widen_half(&g, &origin).is_ok());
  CHECK(g.nodes.size() == 3);
  CHECK(origin == std::vector<int32_t>{1, 1, 1});
}

TEST_CASE("xnnpack: qdint8 products of one tensor run as one group (one Convert, siblings moved up), bit-equal to separate runs") {
  // x [M, K] -> Convert -> FC w1 (576 x K) -> y1; Add y1 + y1 -> z; Convert x (again) -> FC w2
  // (192 x K) -> y2 and FC w3 (130 x K, bias, clamp) -> y3. Blockwise 4-bit filters (block 32,
  // bf16-exact scales: the packed form decode reads). The reference: the same products, each
  // FC reading its own external copy of x (nothing to share).
  const uint32_t K = 384, B = 32, Ns[3] = {576, 192, 130};
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> nib(0, 255), sc(1, 64);
  std::vector<uint8_t> wv[3];
  std::vector<float> sv[3], bias3(Ns[2]);
  for (int i = 0; i < 3; ++i) {
    wv[i].resize(Ns[i] * K / 2);
    for (auto& v : wv[i]) v = static_cast<uint8_t>(nib(rng));
    sv[i].resize(Ns[i] * (K / B));
    for (auto& v : sv[i]) v = static_cast<float>(sc(rng)) / 1024.0f;  // exact in bf16
  }
  for (uint32_t n = 0; n < Ns[2]; ++n) bias3[n] = 0.05f * static_cast<float>(static_cast<int>(n % 7) - 3);
  auto build = [&](bool shared, uint32_t M) {
    Builder b;
    auto& f = b.fbb;
    uint32_t xs[3];
    xs[0] = b.fvalue({M, K}, 0, 1);
    xs[1] = shared ? xs[0] : b.fvalue({M, K}, 1, 1);
    xs[2] = shared ? xs[0] : b.fvalue({M, K}, 2, 1);
    const int out0 = shared ? 1 : 3;
    auto qd8 = [&]() {
      uint32_t id = static_cast<uint32_t>(b.values.size());
      auto tv = fx::CreateXNNTensorValue(f, fx::XNNDatatype::xnn_datatype_qdint8, 2, f.CreateVector(std::vector<uint32_t>{M, K}), 0,
                                         0xFFFFFFFFu, 0, id);
      auto qv = fx::CreateXNNQuantizedTensorValue(f, tv, fx::XNNQuantParams::PerTokenDynamicQuant, fx::CreatePerTokenDynamicQuant(f, 1).Union());
      b.values.push_back(fx::CreateXValue(f, fx::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
      return id;
    };
    auto filter = [&](int i) {
      uint32_t id = static_cast<uint32_t>(b.values.size());
      uint32_t cb = b.constant(wv[i].data(), wv[i].size());
      auto tv = fx::CreateXNNTensorValue(f, fx::XNNDatatype::xnn_datatype_qbint4, 2, f.CreateVector(std::vector<uint32_t>{Ns[i], K}),
                                         cb, 0xFFFFFFFFu, 0, id);
      auto qp = fx::CreatePerChannelGroupQuant(f, f.CreateVector(sv[i]), 0, static_cast<int32_t>(B));
      auto qv = fx::CreateXNNQuantizedTensorValue(f, tv, fx::XNNQuantParams::PerChannelGroupQuant, qp.Union());
      b.values.push_back(fx::CreateXValue(f, fx::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
      return id;
    };
    uint32_t q1 = qd8(), w1 = filter(0), y1 = b.fvalue({M, Ns[0]}, out0, 2);
    uint32_t z = b.fvalue({M, Ns[0]}, out0 + 1, 2);
    uint32_t q2 = qd8(), w2 = filter(1), y2 = b.fvalue({M, Ns[1]}, out0 + 2, 2);
    uint32_t q3 = shared ? q2 : qd8(), w3 = filter(2), bb = b.fconst({Ns[2]}, bias3), y3 = b.fvalue({M, Ns[2]}, out0 + 3, 2);
    b.unary(fx::XNodeUnion::XNNConvert, xs[0], q1);
    b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(f, q1, w1, 0xFFFFFFFFu, y1, 0).Union());
    b.binary(fx::XNodeUnion::XNNAdd, y1, y1, z);
    b.unary(fx::XNodeUnion::XNNConvert, xs[1], q2);
    b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(f, q2, w2, 0xFFFFFFFFu, y2, 0).Union());
    if (!shared) b.unary(fx::XNodeUnion::XNNConvert, xs[2], q3);
    b.node(fx::XNodeUnion::XNNFullyConnected, fx::CreateXNNFullyConnected(f, q3, w3, bb, y3, 0).Union(), -0.5f, 0.75f);
    return b.blob();
  };
  {  // the rewrite
    auto blob = build(true, 1);
    xnn::Graph g;
    REQUIRE(xnn::parse_graph({blob.data(), blob.size()}, nullptr, &g).is_ok());
    REQUIRE(g.nodes.size() == 6);
    std::vector<int32_t> origin{0, 1, 2, 3, 4, 5};
    REQUIRE(xnn::fuse_qd8_siblings(&g, &origin).is_ok());
    REQUIRE(g.nodes.size() == 5);  // the second Convert dropped
    CHECK(origin == std::vector<int32_t>{0, 1, 4, 5, 2});  // FC w2 and FC w3 moved up behind FC w1, the Add after them
    CHECK(g.nodes[1].siblings == 2);  // it runs nodes 2 and 3
    CHECK((g.nodes[0].siblings == 0 && g.nodes[2].siblings == 0 && g.nodes[3].siblings == 0 && g.nodes[4].siblings == 0));
    CHECK(g.nodes[2].in[0] == g.nodes[1].in[0]);
    CHECK(g.nodes[3].in[0] == g.nodes[1].in[0]);
    // separate inputs: nothing changes
    auto sep = build(false, 1);
    xnn::Graph g2;
    REQUIRE(xnn::parse_graph({sep.data(), sep.size()}, nullptr, &g2).is_ok());
    const size_t before = g2.nodes.size();
    REQUIRE(xnn::fuse_qd8_siblings(&g2, nullptr).is_ok());
    CHECK(g2.nodes.size() == before);
    for (const auto& n : g2.nodes) CHECK(n.siblings == 0);
  }
  // and run: 1 and 3 rows (the decode form), 1 and 2 threads (the group's tasks on the claim pool)
  std::uniform_real_distribution<float> u(-2, 2);
  for (uint32_t M : {1u, 3u, 20u})
    for (int threads : {1, 2}) {
      CAPTURE(M);
      CAPTURE(threads);
      std::vector<float> xv(M * K);
      for (auto& v : xv) v = u(rng);
      std::vector<float> res[2][4];
      for (int shared = 0; shared < 2; ++shared) {
        auto blob = build(shared != 0, M);
        BackendInit init;
        init.id = "XnnpackBackend";
        init.blob = {blob.data(), blob.size()};
        init.num_threads = threads;
        std::unique_ptr<BackendInstance> inst;
        Status s = xnn::create_xnnpack_backend(init, &inst);
        REQUIRE_MESSAGE(s, s.message());
        HostT a0({M, K}, xv), a1({M, K}, xv), a2({M, K}, xv);
        HostT y1({M, Ns[0]}, {}, M * Ns[0]), z({M, Ns[0]}, {}, M * Ns[0]), y2({M, Ns[1]}, {}, M * Ns[1]), y3({M, Ns[2]}, {}, M * Ns[2]);
        std::vector<EValue*> args{&a0.ev};
        if (!shared) args.push_back(&a1.ev), args.push_back(&a2.ev);
        for (HostT* o : {&y1, &z, &y2, &y3}) args.push_back(&o->ev);
        KernelContext ctx;
        ctx.claim_threads = threads;
        REQUIRE_MESSAGE(inst->execute(ctx, args.data(), args.size()), ctx.message());
        res[shared][0] = y1.data, res[shared][1] = z.data, res[shared][2] = y2.data, res[shared][3] = y3.data;
      }
      for (int o = 0; o < 4; ++o) {
        REQUIRE(res[0][o].size() == res[1][o].size());
        CHECK(std::memcmp(res[0][o].data(), res[1][o].data(), res[0][o].size() * 4) == 0);
      }
      // real values: y3 within its clamp and not all clamped; y1 against a float product
      int inside = 0;
      for (float v : res[1][3]) {
        CHECK((v >= -0.5f && v <= 0.75f));
        inside += v > -0.5f && v < 0.75f;
      }
      CHECK(inside > 0);
      for (uint32_t m = 0; m < M; ++m)
        for (uint32_t n = 0; n < Ns[0]; n += 37) {
          double ref = 0, mag = 0;
          for (uint32_t k = 0; k < K; ++k) {
            const int q = ((k & 1) ? (wv[0][(n * K + k) / 2] >> 4) : (wv[0][(n * K + k) / 2] & 15)) - 8;
            const double t = xv[m * K + k] * q * sv[0][n * (K / B) + k / B];
            ref += t, mag += std::fabs(t);
          }
          CHECK(std::fabs(res[1][0][m * Ns[0] + n] - ref) <= 0.02 * mag);
          CHECK(res[1][1][m * Ns[0] + n] == 2.0f * res[1][0][m * Ns[0] + n]);
        }
    }
}

TEST_CASE("xnnpack: large unary and binary nodes split over two threads: subnormal results flushed, the same bits as one thread") {
  // 600 x 512 = 307200 elements: past the split's 2^18. Products of two 1e-20s (1e-40) and
  // squares of 1e-20 are subnormal: flushed to +0 under the delegate's FTZ / DAZ. (That a
  // helper thread takes the caller's mode whatever mode it started in is claim_pool_test's:
  // here the pool's helper may have started in either.)
  const int R = 600, C = 512, N = R * C;
  Builder b;
  uint32_t x = b.fvalue({uint32_t(R), uint32_t(C)}, 0, 1), y = b.fvalue({uint32_t(R), uint32_t(C)}, 1, 1);
  uint32_t m = b.fvalue({uint32_t(R), uint32_t(C)}, 2, 2), sq = b.fvalue({uint32_t(R), uint32_t(C)}, 3, 2);
  b.binary(fx::XNodeUnion::XNNMultiply, x, y, m);
  b.unary(fx::XNodeUnion::XNNSquare, x, sq);
  auto blob = b.blob();
  std::vector<float> xv(N), yv(N);
  for (int i = 0; i < N; ++i) xv[i] = i % 3 == 0 ? 1e-20f : 1.5f + float(i % 7), yv[i] = i % 5 == 0 ? 1e-20f : 2.0f;
  std::vector<float> res[2][2];
  for (int threads : {1, 2}) {
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    REQUIRE_MESSAGE(s, s.message());
    HostT a({R, C}, xv), c({R, C}, yv), o1({R, C}, {}, N), o2({R, C}, {}, N);
    EValue* args[] = {&a.ev, &c.ev, &o1.ev, &o2.ev};
    KernelContext ctx;
    ctx.claim_threads = threads;
    const uint64_t before = xnn::elementwise_split_runs();
    REQUIRE(inst->execute(ctx, args, 4));
    CHECK(xnn::elementwise_split_runs() - before == (threads == 2 ? 2u : 0u));  // both nodes split (two threads only)
    res[threads - 1][0] = o1.data, res[threads - 1][1] = o2.data;
  }
  int subnormal = 0, flushed = 0, differ = 0, tiny = 0;
  for (int i = 0; i < N; ++i) {
    const float p = xv[i] * yv[i], q = xv[i] * xv[i];  // (this thread: no FTZ)
    tiny += (std::fpclassify(p) == FP_SUBNORMAL) + (std::fpclassify(q) == FP_SUBNORMAL);
    for (int t = 0; t < 2; ++t) {
      subnormal += std::fpclassify(res[t][0][i]) == FP_SUBNORMAL || std::fpclassify(res[t][1][i]) == FP_SUBNORMAL;
      flushed += (std::fpclassify(p) == FP_SUBNORMAL && res[t][0][i] == 0.0f) + (std::fpclassify(q) == FP_SUBNORMAL && res[t][1][i] == 0.0f);
      differ += std::memcmp(&res[t][0][i], &res[0][0][i], 4) != 0 || std::memcmp(&res[t][1][i], &res[0][1][i], 4) != 0;
    }
    if (std::fpclassify(p) != FP_SUBNORMAL) CHECK(res[1][0][i] == p);
  }
  CHECK(subnormal == 0);
  CHECK(tiny == N / 15 + N / 3);  // i % 15 == 0 products and i % 3 == 0 squares
  CHECK(flushed == 2 * tiny);     // flushed in both runs
  CHECK(differ == 0);
}

TEST_CASE("xnnpack: large fp16 <-> fp32 Convert nodes split over two threads, the same bits as one thread") {
  // y = x + c, all fp16 [600, 512] (past the split's 2^18): widen_half runs the Add in fp32
  // between Converts (x and c widened, the sum narrowed), each split over the threads.
  const int R = 600, C = 512, N = R * C;
  Builder b;
  uint32_t x = b.value(fx::XNNDatatype::xnn_datatype_fp16, {uint32_t(R), uint32_t(C)}, 0, 1);
  uint32_t c = b.value(fx::XNNDatatype::xnn_datatype_fp16, {uint32_t(R), uint32_t(C)}, 1, 1);
  uint32_t y = b.value(fx::XNNDatatype::xnn_datatype_fp16, {uint32_t(R), uint32_t(C)}, 2, 2);
  b.binary(fx::XNodeUnion::XNNAdd, x, c, y);
  auto blob = b.blob();
  std::vector<float> xv(N), cv(N);
  for (int i = 0; i < N; ++i) xv[i] = 0.001f * float(i % 9973) - 4.0f, cv[i] = 1.0f / float(1 + i % 31);
  std::vector<uint16_t> res[2];
  for (int threads : {1, 2}) {
    std::unique_ptr<BackendInstance> inst;
    Status s = make(blob, &inst);
    REQUIRE_MESSAGE(s, s.message());
    HalfT hx({R, C}, xv), hc({R, C}, cv), hy({R, C}, {}, N);
    EValue* args[] = {&hx.ev, &hc.ev, &hy.ev};
    KernelContext ctx;
    ctx.claim_threads = threads;
    const uint64_t before = xnn::half_convert_splits();
    REQUIRE_MESSAGE(inst->execute(ctx, args, 3), ctx.message());
    const uint64_t splits = xnn::half_convert_splits() - before;
    if (threads == 1) CHECK(splits == 0);
    else CHECK(splits == 3);  // x and c widened, the sum narrowed into y: three Converts, each split
    res[threads - 1] = hy.data;
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += hy.at(size_t(i)) != round_half(round_half(xv[i]) + round_half(cv[i]));
    CHECK(wrong == 0);
  }
  CHECK(res[0] == res[1]);
}
