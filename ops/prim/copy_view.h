// Run-time views that replace copies the loader proved safe to alias (copy_view.cpp).
#pragma once
#include "ops/kernel.h"

namespace pte {

// out = the bytes of self (contiguous, same dtype) under `sizes`, in self's memory: no
// copy; out's own capacity does not apply (et_view and the folded copies).
bool view_of_self(KernelContext& ctx, const Tensor& self, Tensor& out, const int64_t* sizes, int32_t dim);

bool unsqueeze_as_view(KernelContext& ctx, EValue** args);    // unsqueeze_copy.out
bool clone_as_view(KernelContext& ctx, EValue** args);        // clone.out
bool alias_copy_as_view(KernelContext& ctx, EValue** args);   // alias_copy.out
bool expand_copy_as_view(KernelContext& ctx, EValue** args);  // expand_copy.out to self's own sizes

}  // namespace pte
