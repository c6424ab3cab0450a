// pte-run kernels in ops/shape: advanced indexing shared by index.Tensor and index_put.
//
// indices is a list of optional tensors, one per leading dim of self. None keeps the dim
// ("sliced"); an int64/int32 tensor indexes it; a bool (or uint8) mask of k dims indexes k
// dims at once, like the k index tensors of its nonzero() coordinates. The index tensors
// broadcast together to a shape B. The result has B in place of the indexed dims when
// those are adjacent, and B first otherwise (PyTorch's rule).
#pragma once
#include "ops/shape/shape_util.h"

namespace pte::shape {

struct IndexPlan {
  int32_t nslot = 0;             // self dims taken by index tensors, in order
  int32_t slot_dim[kMaxDims];    // the self dim of each slot
  const Tensor* slot_t[kMaxDims];  // its index tensor (int) or mask
  int32_t slot_comp[kMaxDims];   // -1: int tensor; else which dim of the mask
  int64_t slot_nnz[kMaxDims];    // masks: number of true elements

  int32_t bdim = 0;              // broadcast shape of the index tensors
  int64_t bsizes[kMaxDims];
  int32_t b_pos = 0;             // where B starts in the result

  int32_t nsliced = 0;           // self dims kept as they are
  int32_t sliced_dim[kMaxDims];  // the self dim
  int32_t sliced_pos[kMaxDims];  // its position in the result

  int32_t out_dim = 0;           // result shape
  int64_t out_sizes[kMaxDims];
};

// Builds the plan for self and an (Optional)TensorList EValue of indices.
bool make_index_plan(KernelContext& ctx, const Tensor& self, const EValue* indices, IndexPlan& p, const char* op);

// Visits every position of B in row-major order: fn(b_offset, index_values) where
// b_offset = sum of B coordinates times b_strides (one stride per B dim) and index_values
// are the checked, wrapped indices of the slots. Stops and fails on an out-of-range index
// or when fn returns false.
bool for_each_index(KernelContext& ctx, const IndexPlan& p, const Tensor& self, const int64_t* b_strides,
                    bool (*fn)(void* state, int64_t b_offset, const int64_t* values), void* state, const char* op);

}  // namespace pte::shape
