// pte-run: kernel lookup over the table in ops.def.
#include <cstdio>
#include <cstring>

#include "ops/kernel.h"
#include "pte_config.h"

// A selective build's table (ops/meson.build) or every kernel of the tree.
#if PTE_SELECTED_OPS
#define PTE_KERNEL_TABLE "ops/selected_ops.def"
#else
#define PTE_KERNEL_TABLE "ops/all_ops.def"
#endif

namespace pte {

#define PTE_KERNEL(name, nargs, fn, ...) \
  bool fn(KernelContext&, EValue**);        \
  __VA_OPT__(KernelFn __VA_ARGS__(KernelContext&, EValue**);)
#include PTE_KERNEL_TABLE
#undef PTE_KERNEL

namespace {
const KernelDef kKernels[] = {
#define PTE_KERNEL(name, nargs, fn, ...) {name, nargs, &fn, OpId::fn __VA_OPT__(, &__VA_ARGS__)},
#include PTE_KERNEL_TABLE
#undef PTE_KERNEL
    {nullptr, 0, nullptr, OpId::None},
};
}  // namespace

const KernelDef* find_kernel(const char* name) {
  for (const KernelDef* k = kKernels; k->name; ++k)
    if (std::strcmp(k->name, name) == 0) return k;
  return nullptr;
}

const KernelDef* all_kernels(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]) - 1;
  return kKernels;
}

bool KernelContext::fail(const char* fmt, ...) {
  if (!failed_) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(message_, sizeof(message_), fmt, ap);
    va_end(ap);
    failed_ = true;
  }
  return false;
}

void* KernelContext::scratch(size_t bytes, size_t align) {
  size_t start = (scratch_used_ + align - 1) / align * align;
  if (!scratch_base_ || start + bytes > scratch_size_) return nullptr;
  scratch_used_ = start + bytes;
  return scratch_base_ + start;
}

}  // namespace pte
