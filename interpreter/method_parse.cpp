// pte-run: loading a method, part 1: parse the plan's values, inputs and outputs,
// instructions and delegate ids into MethodImpl's flat arrays (see method_load.h and
// ../shared/docs/pte-format.md §2.1-2.8). Every index is checked here so that the
// passes and execution can trust them.

#include <algorithm>
#include <cstring>

#include "interpreter/method_load.h"
#include "interpreter/tensor_meta.h"

namespace pte {

using namespace loading;

Status MethodImpl::Load::check_index(int64_t v, const std::string& what) const {
  if (v < 0 || v >= static_cast<int64_t>(nvalues))
    return fail(what + " refers to value " + num(v) + " of " + num(nvalues));
  return Status::ok();
}

Status MethodImpl::Load::parse_values() {
  const auto* values = plan->values();
  nvalues = values ? values->size() : 0;
  m.values_.resize(nvalues);
  m.value_planned_.assign(nvalues, 0);
  slot_of.assign(nvalues, -1);
  is_input.assign(nvalues, 0);
  is_output.assign(nvalues, 0);
  is_view_out.assign(nvalues, 0);
  referenced.assign(nvalues, 0);

  // Sizes of the pools first, so pointers into them stay valid.
  size_t ntensors = 0, nitems = 0, nints = 0;
  for (uint32_t k = 0; k < nvalues; ++k) {
    const fb::EValue* ev = values->Get(k);
    // The verifier accepts a union with a type but no table; every accessor below would return null.
    if (ev->val_type() != fb::KernelTypes::NONE && ev->val_type() != fb::KernelTypes::Null && !ev->val())
      return fail("value " + num(k) + " has type " + num(static_cast<int>(ev->val_type())) + " but no data");
    switch (ev->val_type()) {
      case fb::KernelTypes::Tensor: ++ntensors; break;
      case fb::KernelTypes::IntList:
        if (const auto* it = ev->val_as_IntList()->items()) { nitems += it->size(); nints += it->size(); }
        break;
      case fb::KernelTypes::TensorList:
        if (const auto* it = ev->val_as_TensorList()->items()) nitems += it->size();
        break;
      case fb::KernelTypes::OptionalTensorList:
        if (const auto* it = ev->val_as_OptionalTensorList()->items()) nitems += it->size();
        break;
      default: break;
    }
  }
  m.tensors_.resize(ntensors);
  m.list_items_.resize(nitems);
  m.int_scratch_.resize(nints + 1);
  slots.reserve(ntensors);

  size_t item_pos = 0, int_pos = 0;
  for (uint32_t k = 0; k < nvalues; ++k) {
    const fb::EValue* ev = values->Get(k);
    EValue& v = m.values_[k];
    const std::string where = "value " + num(k);
    switch (ev->val_type()) {
      case fb::KernelTypes::NONE:
      case fb::KernelTypes::Null: v.tag = Tag::None; break;
      case fb::KernelTypes::Int: v.tag = Tag::Int; v.i = ev->val_as_Int()->int_val(); break;
      case fb::KernelTypes::Bool: v.tag = Tag::Bool; v.b = ev->val_as_Bool()->bool_val(); break;
      case fb::KernelTypes::Double: v.tag = Tag::Double; v.d = ev->val_as_Double()->double_val(); break;
      case fb::KernelTypes::String: {
        v.tag = Tag::String;
        const auto* s = ev->val_as_String()->string_val();
        v.str.data = s ? s->c_str() : "";
        v.str.size = s ? s->size() : 0;
        break;
      }
      case fb::KernelTypes::IntList: {
        const auto* items = ev->val_as_IntList()->items();
        size_t n = items ? items->size() : 0;
        v.tag = Tag::IntList;
        v.ilist.items = m.list_items_.data() + item_pos;
        v.ilist.scratch = m.int_scratch_.data() + int_pos;
        v.ilist.size = n;
        for (size_t j = 0; j < n; ++j) {
          // (read bytewise: 8-byte list items are not always 8-aligned, see check_tables)
          int64_t idx;
          std::memcpy(&idx, items->Data() + j * sizeof(int64_t), sizeof(idx));
          PTE_TRY(check_index(idx, where + " (int list item " + num(j) + ")"));
          m.list_items_[item_pos + j] = &m.values_[idx];
        }
        item_pos += n;
        int_pos += n;
        break;
      }
      case fb::KernelTypes::DoubleList: {
        const auto* items = ev->val_as_DoubleList()->items();
        v.tag = Tag::DoubleList;
        v.dlist.data = items ? items->data() : nullptr;
        v.dlist.size = items ? items->size() : 0;
        break;
      }
      case fb::KernelTypes::BoolList: {
        const auto* items = ev->val_as_BoolList()->items();
        v.tag = Tag::BoolList;
        v.blist.data = items ? items->data() : nullptr;
        v.blist.size = items ? items->size() : 0;
        break;
      }
      case fb::KernelTypes::TensorList:
      case fb::KernelTypes::OptionalTensorList: {
        bool optional = ev->val_type() == fb::KernelTypes::OptionalTensorList;
        const auto* items = optional ? ev->val_as_OptionalTensorList()->items() : ev->val_as_TensorList()->items();
        size_t n = items ? items->size() : 0;
        v.tag = optional ? Tag::OptionalTensorList : Tag::TensorList;
        v.tlist.items = m.list_items_.data() + item_pos;
        v.tlist.size = n;
        for (size_t j = 0; j < n; ++j) {
          int32_t idx = items->Get(static_cast<flatbuffers::uoffset_t>(j));
          if (optional && idx == -1) { m.list_items_[item_pos + j] = nullptr; continue; }
          PTE_TRY(check_index(idx, where + " (tensor list item " + num(j) + ")"));
          m.list_items_[item_pos + j] = &m.values_[idx];
        }
        item_pos += n;
        break;
      }
      case fb::KernelTypes::Tensor: {
        Status s = parse_tensor(k, ev->val_as_Tensor());
        if (!s) return s;
        break;
      }
      default:
        return fail(where + " has unknown type " + num(static_cast<int>(ev->val_type())));
    }
  }

  // List items must have the right kind (checked once all values exist).
  for (uint32_t k = 0; k < nvalues; ++k) {
    EValue& v = m.values_[k];
    if (v.tag == Tag::IntList) {
      for (size_t j = 0; j < v.ilist.size; ++j) {
        Tag t = v.ilist.items[j]->tag;
        if (t != Tag::Int && t != Tag::Double && t != Tag::Bool)
          return fail("value " + num(k) + " (int list item " + num(j) + ") refers to a " + tag_name(t) + ", not an Int");
      }
    } else if (v.tag == Tag::TensorList || v.tag == Tag::OptionalTensorList) {
      for (size_t j = 0; j < v.tlist.size; ++j) {
        EValue* item = v.tlist.items[j];
        if (!item) continue;
        if (item->tag == Tag::None && v.tag == Tag::OptionalTensorList) {
          m.list_items_[(v.tlist.items - m.list_items_.data()) + j] = nullptr;
        } else if (item->tag != Tag::Tensor) {
          return fail("value " + num(k) + " (tensor list item " + num(j) + ") refers to a " + tag_name(item->tag) + ", not a Tensor");
        }
      }
    }
  }
  return Status::ok();
}

Status MethodImpl::Load::parse_tensor(uint32_t k, const fb::Tensor* ft) {
  const std::string where = "value " + num(k) + " (tensor)";
  EValue& v = m.values_[k];
  Tensor& t = m.tensors_[slots.size()];
  Status s = decode_tensor_meta(ft, &t);
  if (!s) return s.context(m.prefix_ + ": " + where).with_default_code(ErrorCode::MalformedMethod);
  v.tag = Tag::Tensor;
  v.t = &t;
  slot_of[k] = static_cast<int32_t>(slots.size());
  Slot& sl = slots.emplace_back();
  sl.value = static_cast<int32_t>(k);
  sl.nbytes = t.nbytes();
  sl.data_idx = ft->data_buffer_idx();
  if (const auto* ai = ft->allocation_info()) {
    sl.mem_id = ai->memory_id();
    sl.offset = static_cast<uint64_t>(ai->memory_offset_low()) | (static_cast<uint64_t>(ai->memory_offset_high()) << 32);
    if (sl.mem_id == 0) return fail(where + " has memory_id 0 (memory ids are 1-based)");
  }
  const auto* extra = ft->extra_tensor_info();
  if (extra && extra->location() == fb::TensorDataLocation::EXTERNAL) {
    sl.external = true;
    if (!extra->fully_qualified_name() || extra->fully_qualified_name()->size() == 0)
      return fail(where + " is external but has no fully qualified name");
    sl.fqn = extra->fully_qualified_name()->string_view();
  }
  if (t.dynamism == Dynamism::DynamicUnbound)
    return fail(where + " " + shape_str(t) + " has an unbounded dynamic shape (not supported)");

  if (sl.external && sl.mem_id == 0) {
    // Constant in a .ptd (or the program's named data).
    Bytes b;
    const flat_tensor_flatbuffer::TensorLayout* layout = nullptr;
    bool found = program.external_tensor(sl.fqn, &b, &layout);
    if (!found) found = program.named_data(sl.fqn, &b);
    if (!found)
      return fail(ErrorCode::ExternalDataMissing, where + ": external tensor '" + std::string(sl.fqn) + "' is in no data file (pass its .ptd with --data)");
    if (layout) PTE_TRY(check_layout(where, t, layout));
    if (b.size < sl.nbytes)
      return fail(where + ": external tensor '" + std::string(sl.fqn) + "' has " + num(b.size) + " bytes, " + shape_str(t) +
                  " needs " + num(sl.nbytes));
    t.data = const_cast<uint8_t*>(b.data);
    t.capacity = sl.nbytes;
    sl.constant = true;
  } else if (sl.data_idx > 0 && sl.mem_id == 0) {
    const uint8_t* data = nullptr;
    Status cs = program.constant_data(sl.data_idx, sl.nbytes, &data);
    if (!cs) return cs.context(m.prefix_ + ": " + where).with_default_code(ErrorCode::MalformedMethod);
    t.data = const_cast<uint8_t*>(data);
    t.capacity = sl.nbytes;
    sl.constant = true;
    if (sl.nbytes > 0) {
      if (!const_lo || data < const_lo) const_lo = data;
      if (!const_hi || data + sl.nbytes > const_hi) const_hi = data + sl.nbytes;
    }
  }
  return Status::ok();
}

Status MethodImpl::Load::check_layout(const std::string& where, const Tensor& t, const flat_tensor_flatbuffer::TensorLayout* layout) const {
  auto mismatch = [&](const std::string& got) {
    return fail(where + ": external tensor '" + std::string(slots.back().fqn) + "' is " + got + " in the data file, the program expects " +
                shape_str(t));
  };
  int st = static_cast<int>(layout->scalar_type());
  bool sizes_ok = true;
  const auto* sz = layout->sizes();
  int n = sz ? static_cast<int>(sz->size()) : 0;
  if (n != t.dim) sizes_ok = false;
  for (int i = 0; sizes_ok && i < n; ++i) sizes_ok = sz->Get(i) == t.sizes[i];
  if (st != static_cast<int>(t.dtype) || !sizes_ok) {
    std::string got = dtype_valid(st) ? dtype_short_name(static_cast<DType>(st)) : "dtype " + num(st);
    got += "[";
    for (int i = 0; i < n; ++i) got += (i ? "," : "") + num(sz->Get(i));
    return mismatch(got + "]");
  }
  return Status::ok();
}

Status MethodImpl::Load::parse_io() {
  auto read = [&](const flatbuffers::Vector<int32_t>* idx, const char* what, std::vector<int32_t>* out,
                  std::vector<uint8_t>* mark) -> Status {
    if (!idx) return Status::ok();
    for (uint32_t k = 0; k < idx->size(); ++k) {
      int32_t v = idx->Get(k);
      PTE_TRY(check_index(v, std::string(what) + " " + num(k)));
      out->push_back(v);
      (*mark)[v] = 1;
    }
    return Status::ok();
  };
  PTE_TRY(read(plan->inputs(), "input", &m.inputs_, &is_input));
  PTE_TRY(read(plan->outputs(), "output", &m.outputs_, &is_output));
  m.input_set_.assign(m.inputs_.size(), 0);
  for (size_t k = 0; k < m.inputs_.size(); ++k) {
    int32_t s = slot_of[m.inputs_[k]];
    if (s >= 0 && slots[s].constant)
      return fail("input " + num(k) + " is a constant tensor");
    if (m.values_[m.inputs_[k]].tag != Tag::Tensor) m.input_set_[k] = 1;  // baked in at export
  }
  return Status::ok();
}

Status MethodImpl::Load::parse_instructions(std::vector<std::string>* unsupported) {
  const auto* ops = plan->operators();
  uint32_t nops = ops ? ops->size() : 0;
  m.op_names_.resize(nops);
  std::vector<const KernelDef*>& kernels = kernel_defs;
  kernels.assign(nops, nullptr);
  for (uint32_t k = 0; k < nops; ++k) {
    const auto* op = ops->Get(k);
    if (!op->name()) return fail("operator " + num(k) + " has no name");
    std::string name = op->name()->str();
    if (op->overload() && op->overload()->size() > 0) name += "." + op->overload()->str();
    m.op_names_[k] = name;
    kernels[k] = find_kernel(name.c_str());
  }
  const auto* dels = plan->delegates();
  uint32_t ndel = dels ? dels->size() : 0;

  std::vector<int64_t> op_first_missing(nops, -1);
  std::vector<int64_t> delegate_first_use(ndel, -1);
  const auto* chains = plan->chains();
  uint32_t nchains = chains ? chains->size() : 0;
  size_t total = 0, total_args = 0;
  for (uint32_t c = 0; c < nchains; ++c)
    if (const auto* ins = chains->Get(c)->instructions()) {
      total += ins->size();
      for (const auto* in : *ins) {
        if (const auto* kc = in->instr_args_as_KernelCall()) total_args += kc->args() ? kc->args()->size() : 0;
        if (const auto* dc = in->instr_args_as_DelegateCall()) total_args += dc->args() ? dc->args()->size() : 0;
      }
    }
  if (total > (1u << 30)) return fail("too many instructions (" + num(total) + ")");
  m.instrs_.reserve(total);
  m.args_.resize(total_args);
  size_t arg_pos = 0;

  for (uint32_t c = 0; c < nchains; ++c) {
    m.chain_begin_.push_back(static_cast<uint32_t>(m.instrs_.size()));
    const auto* ins = chains->Get(c)->instructions();
    uint32_t n = ins ? ins->size() : 0;
    uint32_t base = static_cast<uint32_t>(m.instrs_.size());
    for (uint32_t i = 0; i < n; ++i) {
      const fb::Instruction* fi = ins->Get(i);
      const std::string where = "instruction " + num(i) + (nchains > 1 ? " of chain " + num(c) : "");
      if (!fi->instr_args()) return fail(where + " has no arguments");
      Instr& in = m.instrs_.emplace_back();
      auto read_args = [&](const flatbuffers::Vector<int32_t>* a) -> Status {
        in.arg_begin = static_cast<uint32_t>(arg_pos);
        in.nargs = a ? a->size() : 0;
        for (uint32_t j = 0; j < in.nargs; ++j) {
          int32_t v = a->Get(j);
          PTE_TRY(check_index(v, where + " argument " + num(j)));
          m.args_[arg_pos++] = &m.values_[v];
          referenced[v] = 1;
          mark_list_items(v);
        }
        return Status::ok();
      };
      switch (fi->instr_args_type()) {
        case fb::InstructionArguments::KernelCall: {
          const auto* kc = fi->instr_args_as_KernelCall();
          in.kind = Instr::Kernel;
          if (kc->op_index() < 0 || static_cast<uint32_t>(kc->op_index()) >= nops)
            return fail(where + " calls operator " + num(kc->op_index()) + " of " + num(nops));
          in.index = static_cast<uint32_t>(kc->op_index());
          PTE_TRY(read_args(kc->args()));
          const KernelDef* kd = kernels[in.index];
          if (!kd) {
            if (op_first_missing[in.index] < 0) {
              op_first_missing[in.index] = i;
              unsupported->push_back("unsupported operator " + m.op_names_[in.index] + " (" + where + ")");
            }
            break;
          }
          if (kd->num_args >= 0 && static_cast<uint32_t>(kd->num_args) != in.nargs)
            return fail(where + " (" + m.op_names_[in.index] + ") passes " + num(in.nargs) + " arguments, the kernel takes " +
                        num(kd->num_args) + " (schema arguments + return slot)");
          in.fn = kd->fn;
          if (kd->id == OpId::et_view_default && in.nargs == 3) {
            EValue* outv = m.args_[in.arg_begin + 2];
            if (outv->tag == Tag::Tensor) is_view_out[outv - m.values_.data()] = 1;
          }
          break;
        }
        case fb::InstructionArguments::DelegateCall: {
          const auto* dc = fi->instr_args_as_DelegateCall();
          in.kind = Instr::Delegate;
          if (dc->delegate_index() < 0 || static_cast<uint32_t>(dc->delegate_index()) >= ndel)
            return fail(where + " calls delegate " + num(dc->delegate_index()) + " of " + num(ndel));
          in.index = static_cast<uint32_t>(dc->delegate_index());
          if (delegate_first_use[in.index] < 0) delegate_first_use[in.index] = i;
          PTE_TRY(read_args(dc->args()));
          break;
        }
        case fb::InstructionArguments::MoveCall: {
          const auto* mc = fi->instr_args_as_MoveCall();
          in.kind = Instr::Move;
          PTE_TRY(check_index(mc->move_from(), where + " (move from)"));
          PTE_TRY(check_index(mc->move_to(), where + " (move to)"));
          in.a = mc->move_from();
          in.b = mc->move_to();
          referenced[in.a] = referenced[in.b] = 1;
          break;
        }
        case fb::InstructionArguments::JumpFalseCall: {
          const auto* jf = fi->instr_args_as_JumpFalseCall();
          in.kind = Instr::JumpFalse;
          PTE_TRY(check_index(jf->cond_value_index(), where + " (jump condition)"));
          const EValue& cond = m.values_[jf->cond_value_index()];
          if (cond.tag != Tag::Bool && !(cond.tag == Tag::Tensor && cond.t->dtype == DType::Bool))
            return fail(where + ": jump condition is a " + tag_name(cond.tag) + ", not a Bool or bool tensor");
          int32_t dest = jf->destination_instruction();
          if (dest < 0 || static_cast<uint32_t>(dest) > n)
            return fail(where + " jumps to instruction " + num(dest) + " of " + num(n));
          in.a = jf->cond_value_index();
          in.b = static_cast<int32_t>(base + dest);
          referenced[in.a] = 1;
          break;
        }
        case fb::InstructionArguments::FreeCall: {
          const auto* fc = fi->instr_args_as_FreeCall();
          in.kind = Instr::Free;
          PTE_TRY(check_index(fc->value_index(), where + " (free)"));
          in.a = fc->value_index();
          break;
        }
        default:
          return fail(where + " has unknown kind " + num(static_cast<int>(fi->instr_args_type())));
      }
    }
  }
  m.chain_begin_.push_back(static_cast<uint32_t>(m.instrs_.size()));

  // Delegates: created in order; unsupported ones are reported with the missing operators.
  m.delegate_ids_.resize(ndel);
  m.backends_.resize(ndel);
  // One entry per unsupported backend id (a program may hold dozens of delegates of one backend).
  std::vector<std::string> delegate_errors, seen_ids;
  for (uint32_t d = 0; d < ndel; ++d) {
    const auto* del = dels->Get(d);
    std::string id = del->id() ? del->id()->str() : std::string();
    m.delegate_ids_[d] = id;
    if (backend_supported(id) || std::find(seen_ids.begin(), seen_ids.end(), id) != seen_ids.end()) continue;
    seen_ids.push_back(id);
    uint32_t count = 0;
    for (uint32_t e = d; e < ndel; ++e)
      if ((dels->Get(e)->id() ? dels->Get(e)->id()->str() : std::string()) == id) ++count;
    std::string use = delegate_first_use[d] >= 0 ? "instruction " + num(delegate_first_use[d]) : "never called";
    std::string name = id.empty() ? std::string("(no id)") : id;
    if (count == 1)
      delegate_errors.push_back("unsupported delegate " + name + " (delegate " + num(d) + ", " + use + ")");
    else
      delegate_errors.push_back("unsupported delegate " + name + " (" + num(count) + " delegates, the first is delegate " + num(d) + ", " + use + ")");
  }
  unsupported->insert(unsupported->begin(), delegate_errors.begin(), delegate_errors.end());
  return Status::ok();
}

void MethodImpl::Load::mark_list_items(int32_t v) {
  const EValue& e = m.values_[v];
  if (e.tag == Tag::TensorList || e.tag == Tag::OptionalTensorList) {
    for (size_t j = 0; j < e.tlist.size; ++j)
      if (e.tlist.items[j]) referenced[e.tlist.items[j] - m.values_.data()] = 1;
  }
}

}  // namespace pte
