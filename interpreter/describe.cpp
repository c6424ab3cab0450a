// pte-run: builds MethodInfo (signature, operators, delegates, memory) from a plan.
#include "interpreter/backends.h"
#include "interpreter/loader.h"
#include "interpreter/tensor_meta.h"
#include "ops/kernel.h"

namespace pte {

namespace {

std::string num(uint64_t v) { return std::to_string(v); }

Status describe_value(const LoadedProgram& program, const fb::EValue* ev, ValueInfo* out) {
  // A union value may be absent even when its type is set (the loader refuses that
  // at open; checked again here because describe_plan is also a public entry).
  if (ev->val_type() != fb::KernelTypes::NONE && ev->val_type() != fb::KernelTypes::Null && !ev->val())
    return Status::error("value of type " + num(static_cast<unsigned>(ev->val_type())) + " has no data");
  switch (ev->val_type()) {
    case fb::KernelTypes::NONE:
    case fb::KernelTypes::Null: out->tag = Tag::None; return Status::ok();
    case fb::KernelTypes::Int: out->tag = Tag::Int; out->int_value = ev->val_as_Int()->int_val(); return Status::ok();
    case fb::KernelTypes::Bool: out->tag = Tag::Bool; out->bool_value = ev->val_as_Bool()->bool_val(); return Status::ok();
    case fb::KernelTypes::Double: out->tag = Tag::Double; out->double_value = ev->val_as_Double()->double_val(); return Status::ok();
    case fb::KernelTypes::String:
      out->tag = Tag::String;
      if (ev->val_as_String()->string_val()) out->string_value = ev->val_as_String()->string_val()->str();
      return Status::ok();
    case fb::KernelTypes::IntList: out->tag = Tag::IntList; return Status::ok();
    case fb::KernelTypes::DoubleList: out->tag = Tag::DoubleList; return Status::ok();
    case fb::KernelTypes::BoolList: out->tag = Tag::BoolList; return Status::ok();
    case fb::KernelTypes::TensorList: out->tag = Tag::TensorList; return Status::ok();
    case fb::KernelTypes::OptionalTensorList: out->tag = Tag::OptionalTensorList; return Status::ok();
    case fb::KernelTypes::Tensor: {
      out->tag = Tag::Tensor;
      const fb::Tensor* t = ev->val_as_Tensor();
      Tensor meta;
      PTE_TRY(decode_tensor_meta(t, &meta));
      TensorInfo& ti = out->tensor;
      ti.dtype = meta.dtype;
      ti.sizes.assign(meta.sizes, meta.sizes + meta.dim);
      ti.dim_order.assign(meta.dim_order, meta.dim_order + meta.dim);
      ti.dynamism = meta.dynamism;
      ti.memory_planned = t->allocation_info() != nullptr || t->data_buffer_idx() != 0;
      if (t->data_buffer_idx() > 0 && !t->allocation_info()) {
        const uint8_t* data = nullptr;
        PTE_TRY(program.constant_data(t->data_buffer_idx(), meta.nbytes(), &data));
        out->constant_data = data;
      }
      return Status::ok();
    }
  }
  return Status::error("value has unknown type " + num(static_cast<int>(ev->val_type())));
}

Status describe_list(const LoadedProgram& program, const flatbuffers::Vector<int32_t>* idx,
                     const flatbuffers::Vector<flatbuffers::Offset<fb::EValue>>* values, const char* what,
                     std::vector<ValueInfo>* out) {
  if (!idx) return Status::ok();
  uint32_t nvalues = values ? values->size() : 0;
  for (uint32_t k = 0; k < idx->size(); ++k) {
    int32_t v = idx->Get(k);
    if (v < 0 || static_cast<uint32_t>(v) >= nvalues)
      return Status::error(std::string(what) + " " + num(k) + " refers to value " + std::to_string(v) + " of " + num(nvalues));
    ValueInfo vi;
    Status s = describe_value(program, values->Get(v), &vi);
    if (!s) return s.context(std::string(what) + " " + num(k));
    out->push_back(std::move(vi));
  }
  return Status::ok();
}

}  // namespace

Status describe_plan(const LoadedProgram& program, const fb::ExecutionPlan* plan, MethodInfo* out) {
  out->name = plan->name() ? plan->name()->str() : std::string();
  const auto* values = plan->values();
  out->num_values = values ? values->size() : 0;
  PTE_TRY(describe_list(program, plan->inputs(), values, "input", &out->inputs));
  PTE_TRY(describe_list(program, plan->outputs(), values, "output", &out->outputs));
  if (const auto* ops = plan->operators()) {
    for (uint32_t k = 0; k < ops->size(); ++k) {
      const auto* op = ops->Get(k);
      if (!op->name()) return Status::error("operator " + num(k) + " has no name");
      OperatorInfo oi;
      oi.name = op->name()->str();
      if (op->overload() && op->overload()->size() > 0) oi.name += "." + op->overload()->str();
      oi.supported = find_kernel(oi.name.c_str()) != nullptr;
      out->operators.push_back(std::move(oi));
    }
  }
  if (const auto* dels = plan->delegates()) {
    for (uint32_t k = 0; k < dels->size(); ++k) {
      const auto* d = dels->Get(k);
      DelegateInfo di;
      di.backend = d->id() ? d->id()->str() : std::string();
      Bytes blob;
      Status s = program.delegate_blob(d, &blob);
      if (!s) return s.context("delegate " + num(k) + " (" + printable(di.backend) + ")");
      di.blob_bytes = blob.size;
      di.inline_data = d->processed()->location() == fb::DataLocation::INLINE;
      di.supported = backend_supported(di.backend);
      if (di.supported) {
        Status ds = describe_backend_blob(di.backend, blob, &program, &di.nodes);
        if (!ds) {
          di.supported = false;
          di.detail = ds.message();
        }
        for (const auto& nd : di.nodes)
          if (!nd.supported) {
            di.supported = false;
            if (di.detail.empty()) di.detail = "node type " + nd.name + " is not supported";
          }
      }
      out->delegates.push_back(std::move(di));
    }
  }
  if (const auto* sizes = plan->non_const_buffer_sizes()) {
    for (uint32_t k = 1; k < sizes->size(); ++k) {
      if (sizes->Get(k) < 0) return Status::error("planned buffer " + num(k) + " has a negative size");
      out->planned_buffers.push_back(sizes->Get(k));
    }
  }
  size_t ninstr = 0;
  if (const auto* chains = plan->chains())
    for (const auto* c : *chains)
      if (c->instructions()) ninstr += c->instructions()->size();
  out->num_instructions = ninstr;
  out->is_constant = ninstr == 0;
  return Status::ok();
}

}  // namespace pte
