// pte-run XNNPACK delegate: one helper thread for opportunistic parallel loops.
//
// helper_parallel_for(fn, ctx, n) runs fn(ctx, i) for every i in [0, n) on the calling
// thread and, if it gets to run in time, one helper thread: tasks are claimed one at a
// time, so the caller never waits for a helper that has not started (only for a task the
// helper is in the middle of). On a machine busier than its cores, pthreadpool's
// parallel regions wait for every worker to be scheduled once (a time slice each); this
// does not. The helper thread starts on first use, sleeps when idle and lives until exit.
#pragma once
#include <cstddef>

namespace pte::xnn {

void helper_parallel_for(void (*fn)(void*, size_t), void* ctx, size_t n);

}  // namespace pte::xnn
