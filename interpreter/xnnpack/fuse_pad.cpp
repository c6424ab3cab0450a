// pte-run XNNPACK delegate: a zero constant pad feeding a convolution becomes the
// convolution's own padding (exec.h, fuse_pad_into_conv).
//
// ExecuTorch's exporter lowers torch's explicit padding (e.g. TF "SAME" padding in
// MobileNetV2, F.pad before a strided convolution) to XNNStaticConstantPad + a convolution
// with zero padding; XNNPACK's own subgraph folds such pads into the convolution. Without
// the fold every such layer writes and reads its whole input once more (MobileNetV2: the
// pads took ~12% of a forward's samples).
#include "interpreter/xnnpack/exec.h"

namespace pte::xnn {

Status fuse_pad_into_conv(Graph* g, std::vector<int32_t>* origin) {
  const size_t nv = g->values.size();
  std::vector<int32_t> readers(nv, 0);
  for (const Node& n : g->nodes)
    for (int i = 0; i < n.nin; ++i)
      if (n.in[i] >= 0 && static_cast<size_t>(n.in[i]) < nv) ++readers[static_cast<size_t>(n.in[i])];
  std::vector<int32_t> writer(nv, -1);
  for (size_t k = 0; k < g->nodes.size(); ++k) {
    const int32_t o = g->nodes[k].out;
    if (o >= 0 && static_cast<size_t>(o) < nv) writer[static_cast<size_t>(o)] = static_cast<int32_t>(k);
  }
  std::vector<uint8_t> drop(g->nodes.size(), 0);
  bool any = false;
  for (size_t ck = 0; ck < g->nodes.size(); ++ck) {
    Node& c = g->nodes[ck];
    if ((c.op != Op::Conv2d && c.op != Op::DepthwiseConv2d) || c.in[0] < 0 || static_cast<size_t>(c.in[0]) >= nv) continue;
    const size_t pv = static_cast<size_t>(c.in[0]);
    const int32_t pk = writer[pv];
    if (pk < 0 || static_cast<size_t>(pk) >= ck || drop[static_cast<size_t>(pk)]) continue;  // written before
    const Node& p = g->nodes[static_cast<size_t>(pk)];
    if (p.op != Op::StaticConstantPad || p.ndims != 4 || p.f != 0.0f || p.in[0] < 0) continue;
    const Value& padded = g->values[pv];
    const Value& x = g->values[static_cast<size_t>(p.in[0])];
    // one reader (this convolution), not a graph output, fp32 without quantization
    const bool real = x.dtype == DT::F32 || x.dtype == DT::F16 || x.dtype == DT::BF16;
    if (readers[pv] != 1 || padded.is_external() || padded.dtype != x.dtype || !real ||
        padded.quant != Quant::None || x.quant != Quant::None)
      continue;
    // NHWC: only the H and W dims padded, by amounts that fit the convolution's fields
    if (p.pre[0] || p.post[0] || p.pre[3] || p.post[3]) continue;
    bool fits = true;
    for (int d = 1; d <= 2; ++d) fits = fits && p.pre[d] >= 0 && p.post[d] >= 0 && p.pre[d] <= 65535 && p.post[d] <= 65535;
    if (!fits || c.conv.pad_top > 65535 || c.conv.pad_bottom > 65535 || c.conv.pad_left > 65535 || c.conv.pad_right > 65535)
      continue;
    c.conv.pad_top += static_cast<uint32_t>(p.pre[1]), c.conv.pad_bottom += static_cast<uint32_t>(p.post[1]);
    c.conv.pad_left += static_cast<uint32_t>(p.pre[2]), c.conv.pad_right += static_cast<uint32_t>(p.post[2]);
    c.in[0] = p.in[0];
    drop[static_cast<size_t>(pk)] = 1;
    any = true;
  }
  if (!any) return Status::ok();
  std::vector<size_t> order;
  for (size_t k = 0; k < g->nodes.size(); ++k)
    if (!drop[k]) order.push_back(k);
  keep_nodes(g, order, origin);
  return Status::ok();
}

}  // namespace pte::xnn
