// C API: programs (open from a file or from memory, inspect) (pte/pte.h).
#include <string>
#include <vector>

#include "capi/capi_internal.h"

using pte::capi::failf;
using pte::capi::guard;
using pte::capi::report;

namespace pte::capi {

// The method `name` (the executable one when a constant method shares it), or an error.
pte_error_t find_method(const Program& p, const char* name, const MethodInfo** out) {
  const ProgramInfo& info = p.info();
  const MethodInfo* m = info.executable(name);
  if (!m)
    for (const MethodInfo& mi : info.methods)
      if (mi.name == name) m = &mi;
  if (!m) {
    std::string names;
    for (const MethodInfo& mi : info.methods) names += (names.empty() ? "" : ", ") + mi.name;
    return failf(PTE_ERR_UNKNOWN_METHOD, "%s: no method named '%s' (methods: %s)", info.path.c_str(), name, names.c_str());
  }
  *out = m;
  return PTE_OK;
}

namespace {

OpenOptions open_options(const pte_open_options* o) {
  OpenOptions r;
  if (!o) return r;
  r.verify = o->verify != 0;
  if (o->data_files)
    for (size_t k = 0; k < o->num_data_files; ++k)
      if (o->data_files[k]) r.data_files.emplace_back(o->data_files[k]);
  return r;
}

pte_error_t finish_open(Status s, std::unique_ptr<Program> p, pte_program** out) {
  if (!s) return report(s);
  auto* h = new pte_program;
  h->program = std::move(p);
  *out = h;
  return PTE_OK;
}

pte_value_kind kind_of(Tag t) {
  switch (t) {
    case Tag::None: return PTE_VALUE_NONE;
    case Tag::Int: return PTE_VALUE_INT;
    case Tag::Double: return PTE_VALUE_DOUBLE;
    case Tag::Bool: return PTE_VALUE_BOOL;
    case Tag::String: return PTE_VALUE_STRING;
    case Tag::Tensor: return PTE_VALUE_TENSOR;
    default: return PTE_VALUE_OTHER;
  }
}

pte_error_t value_info(const pte_program* program, const char* method, size_t index, bool input, pte_value_info* info,
                       const char* function) {
  if (!program) return failf(PTE_ERR_NULL_HANDLE, "%s: program is NULL", function);
  if (!method) return failf(PTE_ERR_NULL_POINTER, "%s: method is NULL", function);
  if (!info) return failf(PTE_ERR_NULL_POINTER, "%s: info is NULL", function);
  const MethodInfo* m = nullptr;
  if (pte_error_t e = find_method(*program->program, method, &m)) return e;
  const std::vector<ValueInfo>& vs = input ? m->inputs : m->outputs;
  if (index >= vs.size())
    return failf(input ? PTE_ERR_INPUT_INDEX : PTE_ERR_OUTPUT_INDEX, "%s: method %s: %s index %zu out of range (%zu)",
                 program->program->path().c_str(), m->name.c_str(), input ? "input" : "output", index, vs.size());
  const ValueInfo& v = vs[index];
  *info = pte_value_info{};
  info->kind = kind_of(v.tag);
  if (v.tag == Tag::Tensor) {
    info->dtype = static_cast<pte_dtype>(v.tensor.dtype);
    info->rank = v.tensor.sizes.size();
    info->sizes = v.tensor.sizes.data();
    info->dynamic = v.tensor.dynamism != Dynamism::Static;
  }
  return PTE_OK;
}

}  // namespace
}  // namespace pte::capi

extern "C" {

void pte_open_options_init(pte_open_options* options) {
  if (!options) return;
  *options = pte_open_options{};
  options->verify = 1;
}

pte_error_t pte_program_open_file(const char* path, const pte_open_options* options, pte_program** out) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(out, PTE_ERR_NULL_POINTER);
    *out = nullptr;
    PTE_C_NOT_NULL(path, PTE_ERR_NULL_POINTER);
    std::unique_ptr<pte::Program> p;
    pte::Status s = pte::Program::open_file(path, pte::capi::open_options(options), &p);
    return pte::capi::finish_open(std::move(s), std::move(p), out);
  });
}

pte_error_t pte_program_open_memory(const void* data, size_t size, const pte_open_options* options, pte_program** out) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(out, PTE_ERR_NULL_POINTER);
    *out = nullptr;
    PTE_C_NOT_NULL(data, PTE_ERR_NULL_POINTER);
    std::unique_ptr<pte::Program> p;
    pte::Status s = pte::Program::open_buffer(data, size, "<memory>", pte::capi::open_options(options), &p);
    return pte::capi::finish_open(std::move(s), std::move(p), out);
  });
}

void pte_program_destroy(pte_program* program) { delete program; }

pte_error_t pte_program_num_methods(const pte_program* program, size_t* count) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(program, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(count, PTE_ERR_NULL_POINTER);
    *count = program->program->info().methods.size();
    return PTE_OK;
  });
}

pte_error_t pte_program_method_name(const pte_program* program, size_t index, const char** name) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(program, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(name, PTE_ERR_NULL_POINTER);
    const auto& ms = program->program->info().methods;
    if (index >= ms.size())
      return failf(PTE_ERR_INVALID_ARGUMENT, "%s: method index %zu out of range (%zu methods)", program->program->path().c_str(),
                   index, ms.size());
    *name = ms[index].name.c_str();
    return PTE_OK;
  });
}

pte_error_t pte_program_method_io(const pte_program* program, const char* method, size_t* num_inputs, size_t* num_outputs) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(program, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(method, PTE_ERR_NULL_POINTER);
    const pte::MethodInfo* m = nullptr;
    if (pte_error_t e = pte::capi::find_method(*program->program, method, &m)) return e;
    if (num_inputs) *num_inputs = m->inputs.size();
    if (num_outputs) *num_outputs = m->outputs.size();
    return PTE_OK;
  });
}

pte_error_t pte_program_input_info(const pte_program* program, const char* method, size_t index, pte_value_info* info) {
  return guard(__func__, [&](const char* fn) { return pte::capi::value_info(program, method, index, true, info, fn); });
}

pte_error_t pte_program_output_info(const pte_program* program, const char* method, size_t index, pte_value_info* info) {
  return guard(__func__, [&](const char* fn) { return pte::capi::value_info(program, method, index, false, info, fn); });
}

}  // extern "C"
