// Opportunistic parallel loops of the qd8 GEMMs (see helper_thread.h): on the claim pool
// of ops/linalg/claim_pool.h, the helper threads every other kernel uses.
#include "ops/qd8/helper_thread.h"

#include <cstdint>

#include "ops/linalg/claim_pool.h"

namespace pte::xnn {

void helper_parallel_for(void (*fn)(void*, size_t), void* ctx, size_t n, int helpers) {
  if (n == 0) return;
  struct Adapter {
    void (*fn)(void*, size_t);
    void* ctx;
  } ad{fn, ctx};
  linalg::claim_parallel_for(
      helpers, static_cast<int64_t>(n),
      [](void* p, int64_t i) {
        const Adapter& a = *static_cast<const Adapter*>(p);
        a.fn(a.ctx, static_cast<size_t>(i));
      },
      &ad);
}

}  // namespace pte::xnn
