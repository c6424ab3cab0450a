// pte-run XNNPACK delegate: opportunistic parallel loops for the qd8 GEMMs.
//
// helper_parallel_for(fn, ctx, n, helpers) runs fn(ctx, i) for every i in [0, n) on the
// calling thread and whichever of `helpers` helper threads are awake: tasks are claimed
// one at a time, so the caller never waits for a helper that has not started (only for a
// task a helper is in the middle of). On a machine busier than its cores, pthreadpool's
// parallel regions wait for every worker to be scheduled once (a time slice each); this
// does not. The helpers are the claim pool's (ops/linalg/claim_pool.h), shared with the
// fp32 GEMMs, attention and the elementwise loops: one set of helper threads for every
// kernel (a helper of its own spun 200 us after each GEMM, on the core the next
// kernel's helper needed).
#pragma once
#include <cstddef>

namespace pte::xnn {

void helper_parallel_for(void (*fn)(void*, size_t), void* ctx, size_t n, int helpers = 1);

}  // namespace pte::xnn
