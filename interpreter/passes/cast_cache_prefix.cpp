// pte-run load-time pass: cast_cache_prefix (after fold_copy_views; LLM passes). An fp16
// export with llama::custom_sdpa casts each whole fp16 KV cache to fp32 before the
// attention reads it:
//   _to_copy.out(cache [B, L, H, D] fp16)      -> c   (fp32; instruction i)
//   llama::custom_sdpa.out(q, c|k, c|v, start_pos, None, ...)   (instruction j > i)
// i.e. L positions per cache, layer and step (SmolLM2-135M fp16 at context 2304: 60
// casts of 442 Ki values a decode step, ~17% of its time). Without a mask the attention
// reads positions [0, start_pos + q.sizes[1]) of c only (ops/llama/sdpa_common.cpp), so:
//  - where both of j's caches are cast so, with nothing else between the casts and j, the
//    casts become no-ops and j runs custom_sdpa_half_kv_out on the fp16 caches (its 12
//    arguments: custom_sdpa's 8, the two copies, out, return): an AVX-512 decode step reads
//    fp16 rows, other forms widen the positions read into the copies at j;
//  - otherwise each such cast becomes ops/prim/cast_cache_prefix over exactly those positions.
// Results are bit-identical either way (fp16 widens exactly).
//
// Conditions: c is planned, written by i alone, read by j alone (no list, move or
// delegate use), not an input or output; cache and c contiguous, fp16 and fp32, same
// shape; start_pos is an Int and q a tensor, each written by one kernel before i (their
// values at i are those j sees); the mask argument is None. The positions of c past the
// bound keep whatever the memory held: nothing reads them.
// Changes instructions' arguments: MethodImpl::load recomputes the access analysis.

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "interpreter/method_load.h"
#include "ops/llama/sdpa_common.h"
#include "ops/prim/cast_cache_prefix.h"

namespace pte {

using namespace loading;

size_t MethodImpl::Load::cast_cache_prefix() {
  using VA = passes::ValueAccess;
  const bool debug = std::getenv("PTE_DEBUG_CACHE_CAST") != nullptr;
  size_t folded = 0;
  auto vid = [&](const EValue* e) { return static_cast<size_t>(e - m.values_.data()); };
  auto arg = [&](size_t i, uint32_t k) { return m.args_[m.instrs_[i].arg_begin + k]; };
  auto is_op = [&](size_t i, OpId op, uint32_t nargs) {
    const Instr& in = m.instrs_[i];
    return in.kind == Instr::Kernel && op_id(in) == op && in.nargs == nargs && in.fn;
  };
  auto written_before = [&](const EValue* e, size_t i) {
    const int32_t w = access.writer[vid(e)];
    return w >= 0 && static_cast<size_t>(w) < i;
  };
  // The attention may read a cache at j instead of its copy made at i only if nothing runs in
  // between but the other cast (then no write to the cache, through any alias, comes between:
  // the export's order, cast, cast, attention).
  auto adjacent = [&](size_t ik, size_t iv, size_t j) {
    for (size_t k = std::min(ik, iv) + 1; k < j; ++k)
      if (k != ik && k != iv) return false;
    return true;
  };
  for (size_t j = 0; j < m.instrs_.size(); ++j) {
    if (!is_op(j, OpId::custom_sdpa_out, 10)) continue;
    EValue *q = arg(j, 0), *start = arg(j, 3), *mask = arg(j, 4);
    if (q->tag != Tag::Tensor || start->tag != Tag::Int || mask->tag == Tag::Tensor) continue;
    size_t cast_of[3] = {0, 0, 0};  // [1]: key, [2]: value; the cast's instruction + 1, 0: none
    for (uint32_t kv = 1; kv <= 2; ++kv) {
      EValue* c = arg(j, kv);
      if (c->tag != Tag::Tensor) continue;
      const size_t cv = vid(c);
      const int32_t w = access.writer[cv];
      if (w < 0 || static_cast<size_t>(w) >= j || !is_op(static_cast<size_t>(w), OpId::to_copy_out, 5)) continue;
      const size_t i = static_cast<size_t>(w);
      auto no = [&](const char* why) {
        if (debug) std::fprintf(stderr, "cache cast: instruction %zu kept: %s\n", i, why);
      };
      EValue* src = arg(i, 0);
      if (arg(i, 3) != c || arg(i, 4) != c || src->tag != Tag::Tensor) { no("arguments"); continue; }
      const Tensor &st = *src->t, &ct = *c->t;
      if (st.dtype != DType::Half || ct.dtype != DType::Float || st.dim < 2 || st.dim != ct.dim) { no("dtypes or ranks"); continue; }
      bool same = true;
      for (int d = 0; d < st.dim; ++d) same = same && st.sizes[d] == ct.sizes[d];
      if (!same || !st.contiguous_order() || !ct.contiguous_order()) { no("shapes or layouts"); continue; }
      if (is_input[cv] || is_output[cv] || !m.value_planned_[cv] ||
          access.has(cv, VA::InList | VA::MoveFrom | VA::MoveTo | VA::DelegateArg)) {
        no("the fp32 copy is not a private planned value");
        continue;
      }
      bool only_j = !access.readers[cv].empty();
      for (int32_t r : access.readers[cv]) only_j = only_j && r == static_cast<int32_t>(j);
      if (!only_j) { no("the fp32 copy has other readers"); continue; }
      if (!written_before(q, i) || !written_before(start, i)) { no("the query or start_pos is written after the cast"); continue; }
      cast_of[kv] = i + 1;
    }
    // Both casts: the attention reads the fp16 caches itself (custom_sdpa_half_kv_out: a decode
    // step's split form reads fp16 rows, other forms widen the positions read into the fp32
    // copies), the casts do nothing. Needs each cache unchanged between its cast and j, and
    // 4-D caches (the attention's).
    if (cast_of[1] && cast_of[2]) {
      EValue *sk = arg(cast_of[1] - 1, 0), *sv = arg(cast_of[2] - 1, 0);
      if (sk->t->dim == 4 && sv->t->dim == 4 && adjacent(cast_of[1] - 1, cast_of[2] - 1, j)) {
        EValue* copies[3] = {nullptr, arg(j, 1), arg(j, 2)};
        EValue* list[12] = {q, sk, sv, start, mask, arg(j, 5), arg(j, 6), arg(j, 7), copies[1], copies[2], arg(j, 8), arg(j, 9)};
        Instr& in = m.instrs_[j];
        in.arg_begin = static_cast<uint32_t>(m.args_.size());
        in.nargs = 12;
        m.args_.insert(m.args_.end(), list, list + 12);
        in.fn = pte::custom_sdpa_half_kv_out;
        for (int kv = 1; kv <= 2; ++kv) {
          Instr& c = m.instrs_[cast_of[kv] - 1];
          c.kind = Instr::Free;  // a no-op
          c.a = static_cast<int32_t>(vid(copies[kv]));
          c.nchecks = 0;
        }
        if (debug) std::fprintf(stderr, "cache cast: instruction %zu reads the fp16 caches of instructions %zu and %zu\n", j, cast_of[1] - 1, cast_of[2] - 1);
        ++m.cache_half_attentions_;
        folded += 2;
        continue;
      }
      if (debug) std::fprintf(stderr, "cache cast: instruction %zu keeps its fp32 inputs (other instructions between the casts and it, or not 4-D)\n", j);
    }
    // Otherwise each cast converts exactly the positions j reads
    for (int kv = 1; kv <= 2; ++kv) {
      if (!cast_of[kv]) continue;
      const size_t i = cast_of[kv] - 1;
      m.args_[m.instrs_[i].arg_begin + 1] = start;
      m.args_[m.instrs_[i].arg_begin + 2] = q;
      m.instrs_[i].fn = pte::cast_cache_prefix;
      if (debug) std::fprintf(stderr, "cache cast: instruction %zu converts the positions instruction %zu reads\n", i, j);
      ++folded;
    }
  }
  m.cache_cast_prefixes_ = folded;
  return folded;
}

}  // namespace pte
