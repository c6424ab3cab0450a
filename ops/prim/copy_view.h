// Run-time views that replace copies the loader proved safe to alias (copy_view.cpp).
#pragma once
#include "ops/kernel.h"

namespace pte {

bool unsqueeze_as_view(KernelContext& ctx, EValue** args);    // unsqueeze_copy.out
bool clone_as_view(KernelContext& ctx, EValue** args);        // clone.out
bool alias_copy_as_view(KernelContext& ctx, EValue** args);   // alias_copy.out
bool expand_copy_as_view(KernelContext& ctx, EValue** args);  // expand_copy.out to self's own sizes

}  // namespace pte
