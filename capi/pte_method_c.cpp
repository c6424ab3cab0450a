// C API: methods (load into caller memory, set inputs, execute, read outputs) (pte/pte.h).
// execute and the output readers allocate nothing on success.
#include <cstring>
#include <string>

#include "capi/capi_internal.h"
#include "pte/dtype.h"

using pte::capi::failf;
using pte::capi::guard;
using pte::capi::report;

namespace pte::capi {

pte_error_t find_method(const Program& p, const char* name, const MethodInfo** out);

namespace {

pte_error_t method_options(const pte_method_options* o, Program::MethodOptions* r, const char* fn) {
  if (!o) return PTE_OK;
  if (o->num_threads < 0) return failf(PTE_ERR_INVALID_ARGUMENT, "%s: num_threads is negative", fn);
  if (!o->memory && o->memory_bytes > 0) return failf(PTE_ERR_NULL_POINTER, "%s: memory is NULL but memory_bytes is not 0", fn);
  r->num_threads = o->num_threads;
  r->memory = o->memory;
  r->memory_bytes = o->memory_bytes;
  r->scratch_bytes = o->scratch_bytes;
  return PTE_OK;
}

// Output `index` as a tensor, or an error (index, not executed, not a tensor).
pte_error_t output_tensor(const pte_method* m, size_t index, const Tensor** out) {
  if (!m->executed)
    return failf(PTE_ERR_NOT_EXECUTED, "%s: outputs are read after a successful pte_method_execute", m->prefix.c_str());
  if (index >= m->method->num_outputs())
    return failf(PTE_ERR_OUTPUT_INDEX, "%s: output index %zu out of range (the method has %zu outputs)", m->prefix.c_str(),
                 index, m->method->num_outputs());
  const EValue& v = m->method->output(index);
  if (v.tag != Tag::Tensor || !v.t) return failf(PTE_ERR_NOT_A_TENSOR, "%s: output %zu is not a tensor", m->prefix.c_str(), index);
  *out = v.t;
  return PTE_OK;
}

}  // namespace
}  // namespace pte::capi

extern "C" {

void pte_method_options_init(pte_method_options* options) {
  if (options) *options = pte_method_options{};
}

pte_error_t pte_method_memory_needed(const pte_program* program, const char* method, const pte_method_options* options,
                                     size_t* bytes) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(program, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_POINTER);
    PTE_C_NOT_NULL(bytes, PTE_ERR_NULL_POINTER);
    pte::Program::MethodOptions mo;
    if (pte_error_t e = pte::capi::method_options(options, &mo, fn)) return e;
    return report(program->program->memory_needed(method, mo, bytes));
  });
}

pte_error_t pte_method_load(pte_program* program, const char* method, const pte_method_options* options, pte_method** out) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(out, PTE_ERR_NULL_POINTER);
    *out = nullptr;
    PTE_C_NOT_NULL(program, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_POINTER);
    pte::Program::MethodOptions mo;
    if (pte_error_t e = pte::capi::method_options(options, &mo, fn)) return e;
    std::unique_ptr<pte_method> h(new pte_method);
    h->program = program->program;
    h->prefix = program->program->path() + ": method " + method;
    if (pte_error_t e = report(program->program->load_method(method, mo, &h->method))) return e;
    *out = h.release();
    return PTE_OK;
  });
}

void pte_method_destroy(pte_method* method) { delete method; }

pte_error_t pte_method_num_inputs(const pte_method* method, size_t* count) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(count, PTE_ERR_NULL_POINTER);
    *count = method->method->info().inputs.size();
    return PTE_OK;
  });
}

pte_error_t pte_method_num_outputs(const pte_method* method, size_t* count) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(count, PTE_ERR_NULL_POINTER);
    *count = method->method->num_outputs();
    return PTE_OK;
  });
}

pte_error_t pte_method_set_input(pte_method* method, size_t index, pte_dtype dtype, const int64_t* sizes, size_t rank,
                                 const void* data, size_t data_bytes) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_HANDLE);
    if (index >= method->method->info().inputs.size())  // the library's message lists the signature
      return report(method->method->set_input(index, pte::Tensor{}));
    const char* where = method->prefix.c_str();
    if (rank > 0 && !sizes) return failf(PTE_ERR_NULL_POINTER, "%s: sizes is NULL for rank %zu", fn, rank);
    if (rank > static_cast<size_t>(pte::kMaxDims))
      return failf(PTE_ERR_INPUT_SHAPE, "%s: input %zu: rank %zu (at most %d)", where, index, rank, pte::kMaxDims);
    if (pte_dtype_size(dtype) == 0)
      return failf(PTE_ERR_INPUT_DTYPE, "%s: input %zu: dtype %d is not a known dtype", where, index, static_cast<int>(dtype));
    pte::Tensor t;
    t.dtype = static_cast<pte::DType>(dtype);
    t.dim = static_cast<int32_t>(rank);
    uint64_t numel = 1;
    bool overflow = false;
    for (size_t i = 0; i < rank; ++i) {
      if (sizes[i] < 0)
        return failf(PTE_ERR_INPUT_SHAPE, "%s: input %zu: size %lld of dimension %zu is negative", where, index,
                     static_cast<long long>(sizes[i]), i);
      t.sizes[i] = sizes[i];
      t.dim_order[i] = static_cast<uint8_t>(i);
      if (sizes[i] > 0 && numel > (uint64_t{1} << 62) / static_cast<uint64_t>(sizes[i])) overflow = true;
      numel *= static_cast<uint64_t>(sizes[i]);
    }
    if (overflow) return failf(PTE_ERR_INPUT_SHAPE, "%s: input %zu: the sizes overflow", where, index);
    const uint64_t need = numel * pte_dtype_size(dtype);
    if (need > 0 && !data) return failf(PTE_ERR_NULL_POINTER, "%s: data is NULL", fn);
    if (need > data_bytes)
      return failf(PTE_ERR_INPUT_DATA, "%s: input %zu: %zu bytes given, the tensor needs %llu", where, index, data_bytes,
                   static_cast<unsigned long long>(need));
    t.data = const_cast<void*>(data);
    t.capacity = data_bytes;
    pte::compute_strides(t);
    return report(method->method->set_input(index, t));
  });
}

pte_error_t pte_method_execute(pte_method* method) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_HANDLE);
    method->executed = false;
    pte::Status s = method->method->execute();
    if (!s) return report(s);
    method->executed = true;
    return PTE_OK;
  });
}

pte_error_t pte_method_output(const pte_method* method, size_t index, pte_tensor_view* view) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(view, PTE_ERR_NULL_POINTER);
    const pte::Tensor* t = nullptr;
    if (pte_error_t e = pte::capi::output_tensor(method, index, &t)) return e;
    if (!t->contiguous_order())
      return failf(PTE_ERR_INVALID_ARGUMENT, "%s: output %zu is not in contiguous dim order: read it with pte_method_copy_output",
                   method->prefix.c_str(), index);
    view->dtype = static_cast<pte_dtype>(t->dtype);
    view->rank = static_cast<size_t>(t->dim);
    view->sizes = t->sizes;
    view->data = t->data;
    view->nbytes = t->nbytes();
    return PTE_OK;
  });
}

pte_error_t pte_method_copy_output(const pte_method* method, size_t index, void* dst, size_t dst_bytes, size_t* written) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_HANDLE);
    const pte::Tensor* t = nullptr;
    if (pte_error_t e = pte::capi::output_tensor(method, index, &t)) return e;
    const size_t n = t->nbytes();
    if (n > 0 && !dst) return failf(PTE_ERR_NULL_POINTER, "%s: dst is NULL", fn);
    if (n > dst_bytes)
      return failf(PTE_ERR_BUFFER_TOO_SMALL, "%s: output %zu has %zu bytes, the buffer %zu", method->prefix.c_str(), index, n,
                   dst_bytes);
    if (n > 0 && t->contiguous_order()) {
      std::memcpy(dst, t->data, n);
    } else if (n > 0) {  // logical (row-major) order from the tensor's strides
      const size_t es = pte::dtype_size(t->dtype);
      const int64_t count = t->numel();
      for (int64_t i = 0; i < count; ++i) {
        int64_t rest = i, off = 0;
        for (int d = t->dim - 1; d >= 0; --d) {
          off += (rest % t->sizes[d]) * t->strides[d];
          rest /= t->sizes[d];
        }
        std::memcpy(static_cast<uint8_t*>(dst) + static_cast<size_t>(i) * es, static_cast<const uint8_t*>(t->data) + off * static_cast<int64_t>(es), es);
      }
    }
    if (written) *written = n;
    return PTE_OK;
  });
}

}  // extern "C"
