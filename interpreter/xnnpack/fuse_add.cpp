// pte-run XNNPACK delegate: an Add of a convolution's output and a tensor computed before it
// (a residual block's shortcut) becomes that convolution's last step (exec.h, fuse_conv_add).
//
// ResNet's bottleneck blocks end in a convolution without activation, then XNNAdd with the
// block's ReLU; unfused, the Add reads the convolution's whole output back and writes it
// again (ResNet-50: 16 Adds, ~1 ms of a 22 ms forward). Fused, conv_nhwc adds the shortcut
// to each finished sum in its store and applies the Add's clamp: the same additions in the
// same order, so the same bits.
#include <limits>

#include "interpreter/xnnpack/exec.h"

namespace pte::xnn {

bool fuse_conv_add(Graph* g, const std::vector<uint8_t>& eligible, std::vector<size_t>* keep) {
  const size_t nv = g->values.size(), nn = g->nodes.size();
  std::vector<int32_t> readers(nv, 0), reader(nv, -1), writer(nv, -1);
  for (size_t k = 0; k < nn; ++k) {
    const Node& n = g->nodes[k];
    for (int i = 0; i < n.nin; ++i)
      if (n.in[i] >= 0 && static_cast<size_t>(n.in[i]) < nv) {
        ++readers[static_cast<size_t>(n.in[i])];
        reader[static_cast<size_t>(n.in[i])] = static_cast<int32_t>(k);
      }
    if (n.out >= 0 && static_cast<size_t>(n.out) < nv) writer[static_cast<size_t>(n.out)] = static_cast<int32_t>(k);
  }
  auto plain_f32 = [&](int32_t v) {
    const Value& x = g->values[static_cast<size_t>(v)];
    return x.dtype == DT::F32 && x.quant == Quant::None;
  };
  std::vector<uint8_t> drop(nn, 0);
  bool any = false;
  for (size_t ck = 0; ck < nn && ck < eligible.size(); ++ck) {
    Node& c = g->nodes[ck];
    if (!eligible[ck] || c.op != Op::Conv2d || c.nin != 3 || c.out < 0 || static_cast<size_t>(c.out) >= nv) continue;
    if (c.out_min > -std::numeric_limits<float>::max() || c.out_max < std::numeric_limits<float>::max()) continue;  // no clamp of its own
    const size_t v = static_cast<size_t>(c.out);
    if (readers[v] != 1 || g->values[v].is_external() || !plain_f32(c.out)) continue;
    const int32_t ak = reader[v];
    if (ak <= static_cast<int32_t>(ck) || drop[static_cast<size_t>(ak)]) continue;
    const Node& a = g->nodes[static_cast<size_t>(ak)];
    if (a.op != Op::Add || a.nin != 2 || a.in[0] < 0 || a.in[1] < 0 || a.in[0] == a.in[1] || a.out < 0) continue;
    const int32_t r = a.in[0] == c.out ? a.in[1] : a.in[0];
    // the shortcut: fp32, exactly the output's shape (no broadcast), ready before the convolution
    if (!plain_f32(r) || !plain_f32(a.out)) continue;
    const Value& rv = g->values[static_cast<size_t>(r)];
    if (!(rv.dims == g->values[v].dims) || !(g->values[static_cast<size_t>(a.out)].dims == g->values[v].dims)) continue;
    if (writer[static_cast<size_t>(r)] >= static_cast<int32_t>(ck)) continue;
    c.in[3] = r;
    c.nin = 4;
    c.out = a.out;
    c.out_min = a.out_min, c.out_max = a.out_max;
    drop[static_cast<size_t>(ak)] = 1;
    any = true;
  }
  keep->clear();
  for (size_t k = 0; k < nn; ++k)
    if (!drop[k]) keep->push_back(k);
  return any;
}

}  // namespace pte::xnn
