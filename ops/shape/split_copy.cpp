// aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()
//   Chunks of split_size along dim (the last may be smaller).
// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor(a!)[] out) -> ()
//   Chunks of the given sizes (must sum to the dim's size).
// aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> ()
//   One tensor per index along dim, without that dim.
#include "ops/shape/shape_util.h"

namespace pte {

using namespace shape;

static bool out_list(KernelContext& ctx, EValue* v, size_t want, const char* op) {
  if (!expect_tag(ctx, v, Tag::TensorList, "out")) return false;
  if (v->tlist.size != want)
    return ctx.fail("%s: expected %zu output tensors, got %zu", op, want, v->tlist.size);
  for (size_t k = 0; k < want; ++k)
    if (!v->tlist.items[k] || v->tlist.items[k]->tag != Tag::Tensor) return ctx.fail("%s: out item %zu is not a tensor", op, k);
  return true;
}

// Writes chunk k (start `start`, length `len` along dim) of `in` into `out`.
static bool write_chunk(KernelContext& ctx, const Tensor& in, int64_t dim, int64_t start, int64_t len, Tensor& out) {
  View sv = view_of(in);
  sv.offset = start * in.strides[dim];
  sv.sizes[dim] = len;
  if (!resize_output(ctx, out, sv.sizes, sv.dim)) return false;
  return copy_view(ctx, out, view_of(out), in, sv);
}

bool split_copy_tensor_out(KernelContext& ctx, EValue** args) {
  Tensor* in;
  int64_t split, dim;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int(ctx, args[1], "split_size", split)) return false;
  if (in->dim == 0) return ctx.fail("split_copy: cannot split a 0-d tensor");
  if (!arg_dim(ctx, args[2], "dim", in->dim, dim)) return false;
  const int64_t size = in->sizes[dim];
  if (split < 0 || (split == 0 && size != 0))
    return ctx.fail("split_copy: split_size can only be 0 if the dimension size is 0, got %lld for size %lld",
                    static_cast<long long>(split), static_cast<long long>(size));
  const int64_t chunks = split == 0 ? 1 : (size + split - 1) / split;
  const int64_t want = chunks > 0 ? chunks : 1;
  if (!out_list(ctx, args[3], static_cast<size_t>(want), "split_copy")) return false;
  for (int64_t k = 0; k < want; ++k) {
    const int64_t start = k * split, len = split == 0 ? 0 : std::min(split, size - start);
    if (!write_chunk(ctx, *in, dim, start, len, *args[3]->tlist.items[k]->t)) return false;
  }
  return true;
}

bool split_with_sizes_copy_out(KernelContext& ctx, EValue** args) {
  Tensor* in;
  const int64_t* sizes;
  size_t n;
  int64_t dim;
  if (!arg_tensor(ctx, args[0], "self", in) || !arg_int_list(ctx, args[1], "split_sizes", sizes, n)) return false;
  if (in->dim == 0) return ctx.fail("split_with_sizes_copy: cannot split a 0-d tensor");
  if (!arg_dim(ctx, args[2], "dim", in->dim, dim)) return false;
  int64_t total = 0;
  for (size_t k = 0; k < n; ++k) {
    if (sizes[k] < 0) return ctx.fail("split_with_sizes_copy: split size %lld is negative", static_cast<long long>(sizes[k]));
    total += sizes[k];
  }
  if (total != in->sizes[dim])
    return ctx.fail("split_with_sizes_copy: split sizes sum to %lld, but dimension %lld has size %lld",
                    static_cast<long long>(total), static_cast<long long>(dim), static_cast<long long>(in->sizes[dim]));
  if (!out_list(ctx, args[3], n, "split_with_sizes_copy")) return false;
  int64_t start = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!write_chunk(ctx, *in, dim, start, sizes[k], *args[3]->tlist.items[k]->t)) return false;
    start += sizes[k];
  }
  return true;
}

bool unbind_copy_int_out(KernelContext& ctx, EValue** args) {
  Tensor* in;
  int64_t dim;
  if (!arg_tensor(ctx, args[0], "self", in)) return false;
  if (in->dim == 0) return ctx.fail("unbind_copy: cannot unbind a 0-d tensor");
  if (!arg_dim(ctx, args[1], "dim", in->dim, dim)) return false;
  const int64_t size = in->sizes[dim];
  if (!out_list(ctx, args[2], static_cast<size_t>(size), "unbind_copy")) return false;
  View sv;
  sv.dim = in->dim - 1;
  for (int d = 0, s = 0; d < in->dim; ++d) {
    if (d == dim) continue;
    sv.sizes[s] = in->sizes[d];
    sv.strides[s] = in->strides[d];
    ++s;
  }
  for (int64_t k = 0; k < size; ++k) {
    Tensor& o = *args[2]->tlist.items[k]->t;
    sv.offset = k * in->strides[dim];
    if (!resize_output(ctx, o, sv.sizes, sv.dim) || !copy_view(ctx, o, view_of(o), *in, sv)) return false;
  }
  return true;
}

}  // namespace pte
