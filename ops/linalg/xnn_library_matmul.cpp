// pte-run: aten linear / mm / addmm on the XNNPACK library (xnn_library_matmul.h).
#include "ops/linalg/xnn_library_matmul.h"

#include <vector>

#include "ops/util.h"
#include "pte_config.h"

namespace pte::linalg::xnnlib {

namespace {

bool row_major(const Tensor& t) {
  int64_t s = 1;
  for (int d = t.dim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != s) return false;
    s *= t.sizes[d];
  }
  return true;
}

bool f32_tensor(const EValue* e) { return e && e->tag == Tag::Tensor && e->t && e->t->dtype == DType::Float; }

bool is_one(const EValue* e) {
  return e && (e->tag == Tag::Int || e->tag == Tag::Double || e->tag == Tag::Bool) && e->to_double() == 1.0;
}

}  // namespace

bool matmul_kind(OpId op, MatmulKind* kind) {
  if (op == OpId::linear_out) *kind = MatmulKind::Linear;
  else if (op == OpId::mm_out) *kind = MatmulKind::Mm;
  else if (op == OpId::addmm_out) *kind = MatmulKind::Addmm;
  else return false;
  return true;
}

Status attach(MatmulKind kind, EValue** args, KernelFn fn, bool last_row_only,
              const std::function<bool(const EValue*)>& is_constant, XnnpackPolicy policy, bool* candidate,
              MatmulPath* path, std::unique_ptr<LibMatmul>* out) {
  *candidate = false;
  const int xi = kind == MatmulKind::Addmm ? 1 : 0, wi = kind == MatmulKind::Addmm ? 2 : 1;
  const int oi = kind == MatmulKind::Linear ? 3 : kind == MatmulKind::Mm ? 2 : 5;
  const EValue* wv = args[wi];
  if (!f32_tensor(args[xi]) || !f32_tensor(wv) || !f32_tensor(args[oi]) || wv->t->dim != 2 || !wv->t->data ||
      !is_constant(wv))
    return Status::ok();
  const Tensor& w = *wv->t;
  // W(n, k) = w[n * ns + k * ks]: linear's weight is [N, K], mm's / addmm's mat2 [K, N]
  int64_t N, K, ns, ks;
  if (kind == MatmulKind::Linear)
    N = w.sizes[0], K = w.sizes[1], ns = w.strides[0], ks = w.strides[1];
  else
    K = w.sizes[0], N = w.sizes[1], ks = w.strides[0], ns = w.strides[1];
  *candidate = true;
  path->n = N, path->k = K, path->library = false;
  // the bias: linear's optional [N] (or one value), addmm's self broadcast from [N] with beta = alpha = 1
  const EValue* bv = kind == MatmulKind::Linear ? args[2] : kind == MatmulKind::Addmm ? args[0] : nullptr;
  const Tensor* bias = nullptr;
  if (bv && bv->tag != Tag::None) {
    if (!f32_tensor(bv) || !bv->t->data || !is_constant(bv)) {
      path->why = "ours: the bias is not a constant fp32 tensor";
      return Status::ok();
    }
    bias = bv->t;
    const bool vec = bias->numel() == 1 ||
                     (bias->numel() == N && bias->dim >= 1 && bias->sizes[bias->dim - 1] == N && (N == 1 || bias->strides[bias->dim - 1] == 1));
    if (!vec) {
      path->why = "ours: the bias is not one row of N values";
      return Status::ok();
    }
  }
  if (kind == MatmulKind::Addmm && (!is_one(args[3]) || !is_one(args[4]))) {
    path->why = "ours: addmm with beta or alpha other than 1";
    return Status::ok();
  }
  std::string why;
  if (!choose(policy, N, K, &why)) {
    path->why = "ours: " + why;
    return Status::ok();
  }
  std::vector<float> b;
  if (bias) {
    b.assign(static_cast<size_t>(N), 0.0f);
    const float* bp = bias->ptr<const float>();
    for (int64_t j = 0; j < N; ++j) b[static_cast<size_t>(j)] = bias->numel() == 1 ? bp[0] : bp[j * (N == 1 ? 0 : 1)];
  }
  auto lm = std::make_unique<LibMatmul>();
  PTE_TRY(FullyConnectedF32::create(N, K, w.ptr<const float>(), ns, ks, bias ? b.data() : nullptr, -__builtin_inff(),
                                    __builtin_inff(), &lm->fc));
  lm->fallback = fn;
  lm->kind = kind;
  lm->last_row_only = last_row_only;
  path->library = true;
  path->why = "XNNPACK library: " + why;
  *out = std::move(lm);
  return Status::ok();
}

bool lib_matmul_out(KernelContext& ctx, EValue** args) {
  const LibMatmul& L = *static_cast<const LibMatmul*>(ctx.op_state);
  const int xi = L.kind == MatmulKind::Addmm ? 1 : 0;
  const int oi = L.kind == MatmulKind::Linear ? 3 : L.kind == MatmulKind::Mm ? 2 : 5;
  if (!f32_tensor(args[xi]) || !f32_tensor(args[oi])) return L.fallback(ctx, args);
  const Tensor& x = *args[xi]->t;
  Tensor& out = *args[oi]->t;
  const int64_t N = L.fc->N(), K = L.fc->K();
  if ((L.kind == MatmulKind::Linear ? x.dim < 1 : x.dim != 2) || x.sizes[x.dim - 1] != K || !row_major(x) ||
      (L.kind == MatmulKind::Addmm && (!is_one(args[3]) || !is_one(args[4]))))
    return L.fallback(ctx, args);
  int64_t sizes[kMaxDims];
  for (int d = 0; d < x.dim; ++d) sizes[d] = x.sizes[d];
  sizes[x.dim - 1] = N;
  if (!resize_output(ctx, out, sizes, x.dim)) return false;
  if (!row_major(out)) return L.fallback(ctx, args);
  int64_t M = x.numel() / K;
  const float* xp = x.ptr<const float>();
  float* y = out.ptr<float>();
  if (L.last_row_only && M > 1) {
    xp += (M - 1) * K, y += (M - 1) * N;
    M = 1;
  }
  return L.fc->run(ctx, M, xp, y);
}

}  // namespace pte::linalg::xnnlib
