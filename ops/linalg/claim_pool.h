// pte-run linalg: a parallel-for for short, bandwidth-bound loops (decode GEMV) that
// never waits for a worker that has not started.
//
// pthreadpool's parallelize_* returns only after every worker has checked in, so on
// an oversubscribed machine one descheduled worker stalls each call for a time slice
// (a 200-GEMV decode step became 3-6x slower with 2 threads on a loaded 2-core VM).
// Here tiles are claimed from one atomic counter by the caller and whichever helper
// threads are awake; the caller waits only for tiles already claimed. A helper that
// wakes late finds nothing left and sleeps again. Worst case: the caller runs every
// tile itself, i.e. single-threaded speed.
#pragma once
#include <cstddef>
#include <cstdint>

namespace pte::linalg {

// Runs fn(ctx, tile) for tile in [0, ntiles) on the calling thread and up to
// `helpers` helper threads (started on first use, shared by the process; a call
// made while another is running runs on its caller alone). helpers <= 0: inline.
void claim_parallel_for(int helpers, int64_t ntiles, void (*fn)(void* ctx, int64_t tile), void* ctx);
// The same for pthreadpool-style tasks fn(ctx, size_t index) (the qd8 GEMMs, the
// elementwise and reduction loops).
void claim_parallel_for(int helpers, int64_t ntiles, void (*fn)(void* ctx, size_t index), void* ctx);

}  // namespace pte::linalg
