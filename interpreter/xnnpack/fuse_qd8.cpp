// pte-run XNNPACK delegate: fully connected layers that read the same dynamically quantized
// activations run as one product group (exec.h, fuse_qd8_siblings).
//
// The exporter gives every qdint8 FullyConnected its own Convert (fp32 -> qdint8), also
// when several read the same tensor: an LLM's query and key projections, its gate and up
// projections. Run one by one, each small product enters a parallel region of its own, and
// one below the threads' threshold (SmolLM2's 192 x 576 key projection) runs on one thread
// while the other waits. Here, at load:
// 1. a Convert fp32 -> qdint8 of a value an earlier such Convert already quantizes (same
//    shape) is dropped and its readers read the earlier one's result: the same bytes, as a
//    row's quantization depends on that row alone;
// 2. FullyConnected nodes reading that one qdint8 value, with filters of one kind (dtype,
//    K, block) and constant filters and biases (so they can run earlier), move up to just
//    after the first of them, which then runs them all as one group (qgemm_qd8_group: the
//    activations prepared once, every product's tasks claimed from one list). Each output
//    is computed exactly as before.
#include <algorithm>

#include "interpreter/xnnpack/exec.h"
#include "ops/qd8/qgemm_qd8.h"

namespace pte::xnn {

namespace {

bool same_shape(const Shape& a, const Shape& b) {
  if (a.n != b.n) return false;
  for (int d = 0; d < a.n; ++d)
    if (a.d[d] != b.d[d]) return false;
  return true;
}

// A qdint8 x 4-bit / int8 FullyConnected whose filter and bias are constants.
bool qd8_fc(const Graph& g, const Node& n) {
  if (n.op != Op::FullyConnected || n.in[0] < 0 || n.in[1] < 0 || n.out < 0) return false;
  const Value& x = g.values[static_cast<size_t>(n.in[0])];
  const Value& w = g.values[static_cast<size_t>(n.in[1])];
  if (x.dtype != DT::QDInt8 || !w.is_constant() || w.dims.n != 2 || (n.flags & kFlagTransposeWeights)) return false;
  if (w.dtype != DT::QBInt4 && w.dtype != DT::QCInt4 && w.dtype != DT::QCInt8) return false;
  if (n.in[2] >= 0 && !g.values[static_cast<size_t>(n.in[2])].is_constant()) return false;
  return g.values[static_cast<size_t>(n.out)].dtype == DT::F32;
}

bool same_filter_kind(const Graph& g, const Node& a, const Node& b) {
  const Value& wa = g.values[static_cast<size_t>(a.in[1])];
  const Value& wb = g.values[static_cast<size_t>(b.in[1])];
  return wa.dtype == wb.dtype && wa.dims.d[1] == wb.dims.d[1] && (wa.dtype != DT::QBInt4 || wa.block_size == wb.block_size);
}

}  // namespace

Status fuse_qd8_siblings(Graph* g, std::vector<int32_t>* origin) {
  // (value indices are valid: parse_graph resolved every reference, -1 for an absent one)
  const size_t nv = g->values.size();
  const size_t nn = g->nodes.size();
  std::vector<int32_t> writers(nv, 0);
  for (const Node& n : g->nodes) ++writers[static_cast<size_t>(n.out)];
  // 1. duplicate quantizations of one fp32 value
  std::vector<int32_t> remap(nv, -1), first_q(nv, -1);
  std::vector<uint8_t> drop(nn, 0);
  bool any = false;
  for (size_t k = 0; k < nn; ++k) {
    const Node& c = g->nodes[k];
    if (c.op != Op::Convert || c.nin < 1 || c.in[0] < 0) continue;
    const Value& src = g->values[static_cast<size_t>(c.in[0])];
    const Value& dst = g->values[static_cast<size_t>(c.out)];
    if (src.dtype != DT::F32 || dst.dtype != DT::QDInt8 || dst.is_external() || writers[static_cast<size_t>(c.out)] != 1) continue;
    int32_t& first = first_q[static_cast<size_t>(c.in[0])];
    if (first >= 0 && same_shape(g->values[static_cast<size_t>(first)].dims, dst.dims)) {
      remap[static_cast<size_t>(c.out)] = first;
      drop[k] = 1;
      any = true;
    } else if (first < 0) {
      first = c.out;
    }
  }
  for (Node& n : g->nodes)
    for (int i = 0; i < n.nin; ++i)
      if (n.in[i] >= 0 && remap[static_cast<size_t>(n.in[i])] >= 0) n.in[i] = remap[static_cast<size_t>(n.in[i])];
  // 2. sibling products move up behind the first
  std::vector<size_t> order;
  order.reserve(nn);
  std::vector<uint8_t> taken(nn, 0);
  for (size_t a = 0; a < nn; ++a) {
    if (drop[a] || taken[a]) continue;
    order.push_back(a);
    Node& head = g->nodes[a];
    if (!qd8_fc(*g, head)) continue;
    for (size_t b = a + 1; b < nn && head.siblings + 1 < kQd8GroupMax; ++b) {
      const Node& m = g->nodes[b];
      if (drop[b] || taken[b] || m.in[0] != head.in[0] || !qd8_fc(*g, m) || !same_filter_kind(*g, head, m)) continue;
      if (writers[static_cast<size_t>(m.out)] != 1) continue;
      bool free = true;  // nothing between reads its output (a malformed graph)
      for (size_t j = a + 1; j < b && free; ++j) {
        const Node& o = g->nodes[j];
        for (int i = 0; i < o.nin; ++i) free = free && o.in[i] != m.out;
      }
      if (!free) continue;
      taken[b] = 1;
      ++head.siblings;
      order.push_back(b);
      any = true;
    }
  }
  if (any) keep_nodes(g, order, origin);
  return Status::ok();
}

}  // namespace pte::xnn
