// pte-run: loading a method: values, memory, delegates and instructions (see method.h
// and ../shared/docs/pte-format.md §2.1-2.8). Every index in the plan is checked here
// so that execution can trust them.
#include <pthreadpool.h>

#include <cpuinfo.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "interpreter/method.h"
#include "interpreter/tensor_meta.h"
#include "ops/linalg/matmul.h"
#include "ops/prim/copy_view.h"

namespace pte {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

std::string shape_str(const Tensor& t) {
  std::string s = std::string(dtype_short_name(t.dtype)) + "[";
  for (int i = 0; i < t.dim; ++i) s += (i ? "," : "") + num(t.sizes[i]);
  return s + "]";
}

int physical_cores() {
  static std::once_flag once;
  static int cores = 1;
  std::call_once(once, [] {
    if (cpuinfo_initialize()) cores = static_cast<int>(cpuinfo_get_cores_count());
    if (cores < 1) cores = 1;
  });
  return cores;
}

// What the loader remembers about each tensor value until memory is assigned.
struct Slot {
  int32_t value = -1;
  uint32_t mem_id = 0;        // 1-based arena in the file's plan; 0 = not planned
  uint64_t offset = 0;
  uint32_t data_idx = 0;      // data_buffer_idx
  bool external = false;      // extra_tensor_info.location == EXTERNAL
  std::string_view fqn;
  size_t nbytes = 0;          // at the (upper-bound) serialized sizes
  bool constant = false;      // data in the file (no arena slot)
  bool needs_memory = false;  // gets an arena slot
};

}  // namespace

struct MethodImpl::Load {
  Load(MethodImpl& mi, const LoadedProgram& p, const fb::ExecutionPlan* pl, const Program::MethodOptions& o)
      : m(mi), program(p), plan(pl), options(o) {}
  MethodImpl& m;
  const LoadedProgram& program;
  const fb::ExecutionPlan* plan;
  const Program::MethodOptions& options;
  uint32_t nvalues = 0;
  std::vector<Slot> slots;             // one per tensor value
  std::vector<int32_t> slot_of;        // value -> slot, -1 for non-tensors
  std::vector<uint8_t> is_input, is_output, is_view_out, referenced;
  std::vector<uint8_t> const_view;     // folded permute_copy outputs: views of constants (fold_constant_permutes)
  // Program::memory_needed: plan_memory stops after sizing, with the bytes here.
  size_t* measure = nullptr;
  size_t carved = 0;                   // bytes taken from options.memory so far

  Status fail(const std::string& what) const { return Status::error(ErrorCode::MalformedMethod, m.prefix_ + ": " + what); }
  Status fail(ErrorCode code, const std::string& what) const { return Status::error(code, m.prefix_ + ": " + what); }

  // ---------------------------------------------------------------- values

  Status check_index(int64_t v, const std::string& what) const {
    if (v < 0 || v >= static_cast<int64_t>(nvalues))
      return fail(what + " refers to value " + num(v) + " of " + num(nvalues));
    return Status::ok();
  }

  Status parse_values() {
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

  Status parse_tensor(uint32_t k, const fb::Tensor* ft) {
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
    }
    return Status::ok();
  }

  Status check_layout(const std::string& where, const Tensor& t, const flat_tensor_flatbuffer::TensorLayout* layout) const {
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

  Status parse_io() {
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

  // ---------------------------------------------------------------- instructions

  Status parse_instructions(std::vector<std::string>* unsupported) {
    const auto* ops = plan->operators();
    uint32_t nops = ops ? ops->size() : 0;
    m.op_names_.resize(nops);
    std::vector<const KernelDef*> kernels(nops, nullptr);
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
            if (m.op_names_[in.index] == "executorch_prim::et_view.default" && in.nargs == 3) {
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

  void mark_list_items(int32_t v) {
    const EValue& e = m.values_[v];
    if (e.tag == Tag::TensorList || e.tag == Tag::OptionalTensorList) {
      for (size_t j = 0; j < e.tlist.size; ++j)
        if (e.tlist.items[j]) referenced[e.tlist.items[j] - m.values_.data()] = 1;
    }
  }

  // A small method runs on the calling thread unless threads were asked for: with every
  // tensor under 16K elements and at most 1 MiB of weights and delegate data in the file, no
  // kernel reaches its threading threshold (the GEMM's: 2e6 multiply-adds), and creating a
  // pool costs 2-4 ms on the 2-core VM (a tiny program's load was 0.5-8 ms, mostly that).
  bool small_method() const {
    const ProgramInfo& pi = program.info();
    uint64_t data = pi.constant_bytes + pi.named_data_bytes + pi.external_bytes;
    for (const SegmentInfo& sg : pi.segments) data += sg.size;
    if (data > (1u << 20)) return false;
    for (const EValue& e : m.values_)
      if (e.tag == Tag::Tensor && e.t && e.t->numel() >= 16384) return false;
    return true;
  }

  Status create_backends() {
    const auto* dels = plan->delegates();
    uint32_t ndel = dels ? dels->size() : 0;
    if (ndel) m.backend_workspace_ = std::make_unique<BackendWorkspace>();
    for (uint32_t d = 0; d < ndel; ++d) {
      const auto* del = dels->Get(d);
      BackendInit init;
      init.workspace = m.backend_workspace_.get();
      init.id = m.delegate_ids_[d];
      Status s = program.delegate_blob(del, &init.blob);
      if (!s) return s.context(m.prefix_ + ": delegate " + num(d) + " (" + m.delegate_ids_[d] + ")").with_default_code(ErrorCode::MalformedMethod);
      if (const auto* specs = del->compile_specs())
        for (const auto* cs : *specs) {
          CompileSpecRef r;
          if (cs->key()) r.key = cs->key()->string_view();
          if (cs->value()) r.value = {cs->value()->data(), cs->value()->size()};
          init.compile_specs.push_back(r);
        }
      init.program = &program;
      init.method = m.info_.name;
      init.delegate_index = static_cast<int>(d);
      init.threadpool = m.threadpool_;
      init.num_threads = m.threadpool_ ? static_cast<int>(pthreadpool_get_threads_count(m.threadpool_)) : 1;
      if (static_cast<int32_t>(d) == last_row_delegate) init.last_row_only_output = last_row_arg;
      init.xnnpack = options.xnnpack;
      s = create_backend(init, &m.backends_[d]);
      if (!s) return s.context(m.prefix_ + ": delegate " + num(d) + " (" + m.delegate_ids_[d] + ")").with_default_code(ErrorCode::Delegate);
      if (!m.backends_[d]) return fail(ErrorCode::Delegate, "delegate " + num(d) + " (" + m.delegate_ids_[d] + ") created no instance");
      std::vector<MatmulPath> paths;
      m.backends_[d]->matmul_paths(&paths);
      for (MatmulPath& p : paths) {
        p.where = "delegate " + num(d) + " " + p.where;
        m.matmul_paths_.push_back(std::move(p));
      }
    }
    return Status::ok();
  }

  // ---------------------------------------------------------------- memory

  size_t scratch_bytes() const {
    if (m.instrs_.empty()) return 0;
    return options.scratch_bytes > 0 ? options.scratch_bytes : kDefaultScratchBytes;
  }

  // The planned buffers and the scratch arena need `need` bytes (each 64-byte aligned):
  // recorded when measuring, checked against the caller's block when one is given.
  Status check_memory(uint64_t need) {
    if (measure) {
      *measure = static_cast<size_t>(need);
      return Status::ok();
    }
    if (!options.memory) return Status::ok();
    const uint64_t skew = planner::align_up(reinterpret_cast<uintptr_t>(options.memory)) - reinterpret_cast<uintptr_t>(options.memory);
    if (need + skew > options.memory_bytes)
      return fail(ErrorCode::MemoryTooSmall, "the caller's memory holds " + num(static_cast<int64_t>(options.memory_bytes)) + " bytes but the plan needs " +
                  num(static_cast<int64_t>(need)) + (skew ? " (+" + num(static_cast<int64_t>(skew)) + " to align the block to 64 bytes)" : "") +
                  " (Program::memory_needed)");
    return Status::ok();
  }

  // One arena: from the caller's block (checked to fit by check_memory) or our own allocation.
  bool take(planner::Arena& a, size_t size) {
    if (!options.memory) return a.allocate(size);
    uint8_t* base = static_cast<uint8_t*>(options.memory);
    const size_t start = planner::align_up(reinterpret_cast<uintptr_t>(base) + carved) - reinterpret_cast<uintptr_t>(base);
    if (start > options.memory_bytes || size > options.memory_bytes - start) return false;
    a.borrow(base + start, size);
    carved = start + size;
    return true;
  }

  Status plan_memory() {
    const auto* sizes = plan->non_const_buffer_sizes();
    uint32_t narenas = sizes && sizes->size() > 0 ? sizes->size() - 1 : 0;

    bool incomplete = false;
    for (Slot& s : slots) {
      if (s.constant) continue;
      if (s.mem_id != 0) {
        if (s.mem_id > narenas)
          return fail("value " + num(s.value) + " (tensor) is planned in arena " + num(s.mem_id) + " but the plan has " + num(narenas));
        int64_t size = sizes->Get(s.mem_id);
        if (size < 0) return fail("planned buffer " + num(s.mem_id) + " has a negative size");
        if (s.offset > static_cast<uint64_t>(size) || s.nbytes > static_cast<uint64_t>(size) - s.offset)
          return fail("value " + num(s.value) + " (tensor " + shape_str(*m.values_[s.value].t) + ", " + num(s.nbytes) + " bytes at offset " +
                      num(static_cast<int64_t>(s.offset)) + ") lies outside planned buffer " + num(s.mem_id) + " (" + num(size) + " bytes)");
        s.needs_memory = true;
        continue;
      }
      if (s.data_idx > 0) continue;  // handled above as constant
      if (is_input[s.value] || is_view_out[s.value] || s.nbytes == 0) continue;
      if (!referenced[s.value] && !is_output[s.value]) continue;
      s.needs_memory = true;  // written by a kernel but the file gave it no memory
      incomplete = true;
    }

    m.replanned_ = options.replan_memory || incomplete;
    if (!m.replanned_) {
      // Only the arenas some tensor lives in get memory: a damaged plan may list
      // thousands of buffers of any size (each a heap block zero-filled, or a mapping),
      // so what is allocated is bounded by the tensors the plan places, not by the
      // plan's list. Sizes still count in arena_bytes() as the file states them.
      std::vector<uint8_t> used(narenas, 0);
      for (const Slot& s : slots)
        if (s.needs_memory) used[s.mem_id - 1] = 1;
      uint64_t need = planner::align_up(scratch_bytes());
      for (uint32_t a = 0; a < narenas; ++a) {
        const int64_t want = sizes->Get(a + 1);
        // (a 32-bit size_t would wrap a larger size to a small block the checked offsets overrun)
        if (used[a] && (want < 0 || static_cast<uint64_t>(want) > static_cast<uint64_t>(PTRDIFF_MAX)))
          return fail(ErrorCode::AllocationFailed, "planned buffer " + num(a + 1) + " (" + num(want) + " bytes) does not fit this machine's address space");
        if (used[a]) need += planner::align_up(static_cast<uint64_t>(want));
      }
      PTE_TRY(check_memory(need));
      if (measure) return Status::ok();
      m.arenas_.resize(narenas);
      for (uint32_t a = 0; a < narenas; ++a) {
        size_t size = static_cast<size_t>(sizes->Get(a + 1));
        m.arena_bytes_ += size;
        if (!used[a]) continue;
        if (!take(m.arenas_[a], size)) return fail(ErrorCode::AllocationFailed, "cannot allocate planned buffer " + num(a + 1) + " (" + num(size) + " bytes)");
      }
      for (const Slot& s : slots) {
        if (!s.needs_memory) continue;
        Tensor& t = *m.values_[s.value].t;
        t.data = m.arenas_[s.mem_id - 1].data() + s.offset;
        t.capacity = s.nbytes;
        m.value_planned_[s.value] = 1;
      }
    } else {
      planner::PlanInput pin;
      pin.num_instructions = static_cast<int32_t>(m.instrs_.size());
      pin.tensors.resize(slots.size());
      for (size_t k = 0; k < slots.size(); ++k) {
        const Slot& s = slots[k];
        planner::PlanTensor& pt = pin.tensors[k];
        pt.bytes = s.nbytes;
        // et_view outputs take their source's memory at run time: no slot of their own.
        pt.needs_memory = s.needs_memory && !is_view_out[s.value];
        pt.whole = is_input[s.value] || (s.mem_id != 0 && (s.data_idx > 0 || s.external));
        pt.to_end = is_output[s.value] != 0;
        if (s.mem_id != 0) pt.file_key = (static_cast<int64_t>(s.mem_id) << 40) | static_cast<int64_t>(s.offset);
      }
      collect_events(&pin);
      planner::PlanResult r = planner::replan(pin);
      PTE_TRY(check_memory(uint64_t{planner::align_up(r.arena_bytes)} + planner::align_up(scratch_bytes())));
      if (measure) return Status::ok();
      m.arenas_.resize(1);
      if (!take(m.arenas_[0], r.arena_bytes)) return fail(ErrorCode::AllocationFailed, "cannot allocate the re-planned arena (" + num(r.arena_bytes) + " bytes)");
      m.arena_bytes_ = r.arena_bytes;
      for (size_t k = 0; k < slots.size(); ++k) {
        const Slot& s = slots[k];
        if (!s.needs_memory) continue;
        Tensor& t = *m.values_[s.value].t;
        if (r.offsets[k] < 0) continue;  // never used: no memory
        t.data = m.arenas_[0].data() + r.offsets[k];
        t.capacity = s.nbytes;
        m.value_planned_[s.value] = 1;
      }
    }

    // Initial contents: mutable buffers with data, planned external tensors.
    for (const Slot& s : slots) {
      if (!s.needs_memory || s.mem_id == 0) continue;
      Tensor& t = *m.values_[s.value].t;
      if (!t.data) continue;
      if (s.external) {
        Bytes b;
        const flat_tensor_flatbuffer::TensorLayout* layout = nullptr;
        bool found = program.external_tensor(s.fqn, &b, &layout);
        if (!found) found = program.named_data(s.fqn, &b);
        if (!found) return fail(ErrorCode::ExternalDataMissing, "value " + num(s.value) + ": external tensor '" + std::string(s.fqn) + "' is in no data file (pass its .ptd with --data)");
        if (b.size < s.nbytes) return fail("value " + num(s.value) + ": external tensor '" + std::string(s.fqn) + "' has " + num(b.size) + " bytes, needs " + num(s.nbytes));
        std::memcpy(t.data, b.data, s.nbytes);
      } else if (s.data_idx > 0) {
        const uint8_t* init = nullptr;
        Status st = program.mutable_initial_data(s.data_idx, s.nbytes, &init);
        if (!st) return st.context(m.prefix_ + ": value " + num(s.value)).with_default_code(ErrorCode::MalformedMethod);
        std::memcpy(t.data, init, s.nbytes);
      }
    }
    return Status::ok();
  }

  // Kernels may not write into constants (mapped read-only); kernel and delegate inputs
  // that have no memory yet (et_view outputs, values filled by a MoveCall) are checked
  // before each call so a malformed program fails cleanly instead of reading null.
  // MethodOptions::inputs_by_pointer: planned inputs the caller binds by pointer (memory it
  // owns across calls, e.g. a KV cache passed as inputs), so set_input copies nothing; their
  // arena slot goes unused. An input stays planned when a planned value that is read (by an
  // instruction, or as an output) but that no instruction writes shares its slot: a static
  // view of the input folded into the plan would read the unused slot.
  void unplan_inputs() {
    if (options.inputs_by_pointer.empty()) return;
    const size_t nv = m.values_.size();
    std::vector<uint8_t> written(nv, 0), read(nv, 0);
    auto vid = [&](const EValue* e) { return static_cast<size_t>(e - m.values_.data()); };
    auto mark = [&](std::vector<uint8_t>& to, const EValue* e) {
      if (!e) return;
      if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList) {
        for (size_t t = 0; t < e->tlist.size; ++t)
          if (e->tlist.items[t]) to[vid(e->tlist.items[t])] = 1;
      } else {
        to[vid(e)] = 1;
      }
    };
    for (const Instr& in : m.instrs_) {
      EValue** a = m.args_.data() + in.arg_begin;
      if (in.kind == Instr::Move) mark(written, &m.values_[in.b]), mark(read, &m.values_[in.a]);
      if (in.kind == Instr::Delegate)
        for (uint32_t k = 0; k < in.nargs; ++k) mark(written, a[k]), mark(read, a[k]);
      if (in.kind != Instr::Kernel || in.nargs == 0) continue;
      mark(written, a[in.nargs - 1]);
      for (uint32_t k = 0; k + 1 < in.nargs; ++k) {
        mark(read, a[k]);
        for (uint32_t o = k + 1; o < in.nargs; ++o)
          if (a[o] == a[k]) mark(written, a[k]);
      }
    }
    for (int32_t v : m.outputs_)
      if (v >= 0 && static_cast<size_t>(v) < nv) read[static_cast<size_t>(v)] = 1;
    for (size_t idx : options.inputs_by_pointer) {
      if (idx >= m.inputs_.size()) continue;
      const size_t v = static_cast<size_t>(m.inputs_[idx]);
      if (!m.value_planned_[v] || m.values_[v].tag != Tag::Tensor || !m.values_[v].t->data) continue;
      Tensor& t = *m.values_[v].t;
      const char* lo = static_cast<const char*>(t.data);
      const char* hi = lo + t.capacity;
      bool folded_view = false;
      for (size_t u = 0; u < nv && !folded_view; ++u) {
        if (u == v || !m.value_planned_[u] || m.values_[u].tag != Tag::Tensor || written[u] || !read[u] || is_input[u]) continue;
        const Tensor& w = *m.values_[u].t;
        const char* wl = static_cast<const char*>(w.data);
        folded_view = w.data && w.capacity && wl < hi && wl + w.capacity > lo;
      }
      if (folded_view) continue;
      t.data = nullptr;
      t.capacity = 0;
      m.value_planned_[v] = 0;
    }
  }

  Status check_writes_and_data() {
    auto is_constant = [&](const EValue* e) {
      if (!e || e->tag != Tag::Tensor) return false;
      int32_t s = slot_of[e - m.values_.data()];
      return s >= 0 && slots[s].constant;
    };
    auto needs_check = [&](const EValue* e) { return e && e->tag == Tag::Tensor && !e->t->data && e->t->nbytes() > 0; };
    for (size_t i = 0; i < m.instrs_.size(); ++i) {
      Instr& in = m.instrs_[i];
      if (in.kind != Instr::Kernel && in.kind != Instr::Delegate) continue;
      EValue** a = m.args_.data() + in.arg_begin;
      uint32_t local = static_cast<uint32_t>(i);
      for (size_t c = 0; c + 1 < m.chain_begin_.size(); ++c)
        if (i >= m.chain_begin_[c]) local = static_cast<uint32_t>(i - m.chain_begin_[c]);
      if (in.kind == Instr::Kernel && in.nargs > 0) {
        const EValue* ret = a[in.nargs - 1];
        bool bad = is_constant(ret);
        if (ret->tag == Tag::TensorList)
          for (size_t j = 0; j < ret->tlist.size; ++j) bad = bad || is_constant(ret->tlist.items[j]);
        if (bad)
          return fail("instruction " + num(local) + " (" + m.op_names_[in.index] + ") writes into a constant tensor (value " +
                      num(ret - m.values_.data()) + ")");
      }
      in.check_begin = static_cast<uint32_t>(m.checks_.size());
      uint32_t n_inputs = in.kind == Instr::Kernel && in.nargs > 0 ? in.nargs - 1 : in.nargs;
      for (uint32_t j = 0; j < n_inputs; ++j) {
        const EValue* e = a[j];
        if (needs_check(e)) m.checks_.push_back(e);
        if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList)
          for (size_t k = 0; k < e->tlist.size; ++k)
            if (needs_check(e->tlist.items[k])) m.checks_.push_back(e->tlist.items[k]);
      }
      in.nchecks = static_cast<uint32_t>(m.checks_.size()) - in.check_begin;
    }
    return Status::ok();
  }

  // Zero-copy weights: `permute_copy(constant) -> t` whose only readers are matrix
  // multiplies (which take any strides) becomes a strided view of the mapped constant
  // and the instruction is dropped. The exporter writes linear layers as
  // permute_copy(W) + mm, so without this every call would copy every weight.
  void fold_constant_permutes() {
    const size_t nv = m.values_.size();
    std::vector<int32_t> writer(nv, -1);
    std::vector<uint8_t> bad(nv, 0);  // read by something that may assume a contiguous layout
    auto allowed = [&](const std::string& op, uint32_t pos) {
      if (op == "aten::mm.out" || op == "aten::bmm.out" || op == "aten::linear.out") return pos <= 1;
      if (op == "aten::addmm.out") return pos == 1 || pos == 2;
      return false;
    };
    for (const EValue& e : m.values_)
      if (e.tag == Tag::TensorList || e.tag == Tag::OptionalTensorList)
        for (size_t j = 0; j < e.tlist.size; ++j)
          if (e.tlist.items[j]) bad[e.tlist.items[j] - m.values_.data()] = 1;
    for (size_t i = 0; i < m.instrs_.size(); ++i) {
      const Instr& in = m.instrs_[i];
      if (in.kind == Instr::Move) {
        bad[in.a] = bad[in.b] = 1;
        continue;
      }
      if (in.kind != Instr::Kernel && in.kind != Instr::Delegate) continue;
      EValue** a = m.args_.data() + in.arg_begin;
      const bool permute = in.kind == Instr::Kernel && m.op_names_[in.index] == "aten::permute_copy.out" && in.nargs == 4;
      for (uint32_t j = 0; j < in.nargs; ++j) {
        size_t v = static_cast<size_t>(a[j] - m.values_.data());
        if (permute && (j == 2 || j == 3)) {
          writer[v] = writer[v] == -1 || writer[v] == static_cast<int32_t>(i) ? static_cast<int32_t>(i) : -2;
          continue;
        }
        if (in.kind == Instr::Delegate || !allowed(m.op_names_[in.index], j)) bad[v] = 1;
      }
    }
    for (size_t i = 0; i < m.instrs_.size(); ++i) {
      Instr& in = m.instrs_[i];
      if (in.kind != Instr::Kernel || in.nargs != 4 || m.op_names_[in.index] != "aten::permute_copy.out") continue;
      EValue** a = m.args_.data() + in.arg_begin;
      if (a[0]->tag != Tag::Tensor || a[2]->tag != Tag::Tensor || a[2] != a[3] || a[1]->tag != Tag::IntList) continue;
      const size_t src_v = static_cast<size_t>(a[0] - m.values_.data()), v = static_cast<size_t>(a[2] - m.values_.data());
      const int32_t src_slot = slot_of[src_v];
      if (src_slot < 0 || !slots[src_slot].constant || bad[v] || writer[v] != static_cast<int32_t>(i) || is_output[v] ||
          is_input[v])
        continue;
      const Tensor& x = *a[0]->t;
      Tensor& t = *a[2]->t;
      size_t nd = 0;
      const int64_t* dims = a[1]->int_list(&nd);
      if (!dims || static_cast<int32_t>(nd) != x.dim || t.dim != x.dim || t.dtype != x.dtype || !x.data) continue;
      bool ok = true;
      int64_t perm[kMaxDims];
      uint32_t seen = 0;
      for (size_t d = 0; d < nd && ok; ++d) {
        int64_t p = dims[d] < 0 ? dims[d] + x.dim : dims[d];
        ok = p >= 0 && p < x.dim && !(seen & (1u << p)) && t.sizes[d] == x.sizes[p];
        if (ok) seen |= 1u << p, perm[d] = p;
      }
      if (!ok) continue;
      // The output's dim order: its dims from the outermost (largest stride) in.
      uint8_t order[kMaxDims];
      for (int d = 0; d < x.dim; ++d) order[d] = static_cast<uint8_t>(d);
      std::stable_sort(order, order + x.dim, [&](uint8_t p, uint8_t q) { return x.strides[perm[p]] > x.strides[perm[q]]; });
      Tensor view = t;
      for (int d = 0; d < x.dim; ++d) view.dim_order[d] = order[d];
      compute_strides(view);
      bool same = true;
      for (int d = 0; d < x.dim; ++d) same = same && (view.sizes[d] <= 1 || view.strides[d] == x.strides[perm[d]]);
      if (!same) continue;  // a layout dim orders cannot express
      view.data = x.data;
      view.capacity = x.capacity;
      view.dynamism = Dynamism::Static;
      t = view;
      if (const_view.size() != nv) const_view.assign(nv, 0);
      const_view[v] = 1;
      in.kind = Instr::Free;  // a no-op
      in.a = static_cast<int32_t>(v);
      in.nchecks = 0;
    }
  }

  // Copies that only re-label bytes become views: unsqueeze_copy, clone, alias_copy and an
  // expand_copy to the input's own static sizes write the input's bytes in the same order.
  // Two ways to drop the copy, each checked against the memory plan as it stands:
  //  - out takes src's memory (as et_view's output does) if nothing writes that memory
  //    while out, or a view of it, is still read;
  //  - else src's producer writes straight into out's memory if src is read by the copy
  //    alone and nothing touches out's memory between the producer and the copy.
  // Values the exporter planned inside out's memory with no instruction writing them
  // (static view_copy folded into the plan) read the same bytes: they move with out.
  // The portable Llama export runs six such copies per layer over the KV cache at every
  // step (unsqueeze and clone of each cache, identity expands before both bmm).
  void fold_copy_views() {
    const size_t nv = m.values_.size(), ni = m.instrs_.size();
    for (size_t i = 0; i < ni; ++i)
      if (m.instrs_[i].kind == Instr::JumpFalse && static_cast<size_t>(m.instrs_[i].b) <= i) return;  // loops
    const bool debug = std::getenv("PTE_DEBUG_COPY_VIEWS") != nullptr;  // one line per copy on stderr
    auto vid = [&](const EValue* e) { return static_cast<size_t>(e - m.values_.data()); };
    std::vector<uint8_t> pinned(nv, 0);  // in a tensor list, moved, an input or output: keep as is
    for (const EValue& e : m.values_)
      if (e.tag == Tag::TensorList || e.tag == Tag::OptionalTensorList)
        for (size_t j = 0; j < e.tlist.size; ++j)
          if (e.tlist.items[j]) pinned[vid(e.tlist.items[j])] = 1;
    for (size_t v = 0; v < nv; ++v) pinned[v] |= is_input[v] | is_output[v];
    // A kernel writes its return slot (the last argument) and its out arguments: with
    // several results each out argument appears again among the return slots, so an
    // argument given twice counts as written too (an input given twice only makes this
    // more careful).
    auto written_arg = [&](const Instr& q, uint32_t k) {
      EValue** b = m.args_.data() + q.arg_begin;
      if (k + 1 == q.nargs) return true;
      for (uint32_t o = 0; o < q.nargs; ++o)
        if (o != k && b[o] == b[k] && b[k]->tag == Tag::Tensor) return true;
      return false;
    };
    std::vector<int32_t> writer(nv, -1);  // the one kernel writing a value (-2: several)
    for (size_t i = 0; i < ni; ++i) {
      const Instr& in = m.instrs_[i];
      if (in.kind == Instr::Move) pinned[in.a] = pinned[in.b] = 1;
      if (in.kind != Instr::Kernel || in.nargs == 0) continue;
      for (uint32_t k = 0; k < in.nargs; ++k) {
        const EValue* e = m.args_[in.arg_begin + k];
        if (!written_arg(in, k)) continue;
        auto mark = [&](size_t v) {
          if (writer[v] != static_cast<int32_t>(i)) writer[v] = writer[v] == -1 ? static_cast<int32_t>(i) : -2;
        };
        if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList) {
          for (size_t t = 0; t < e->tlist.size; ++t)
            if (e->tlist.items[t]) mark(vid(e->tlist.items[t]));
        } else {
          mark(vid(e));
        }
      }
    }
    std::vector<uint8_t> repoints(ni, 0);  // et_view and the folds: they move no bytes
    for (size_t i = 0; i < ni; ++i)
      repoints[i] = m.instrs_[i].kind == Instr::Kernel && m.op_names_[m.instrs_[i].index] == "executorch_prim::et_view.default";
    auto constant = [&](size_t v) { return slot_of[v] >= 0 && slots[slot_of[v]].constant; };
    using Range = std::pair<const char*, const char*>;
    auto range_of = [](const Tensor& t) {
      return Range(static_cast<const char*>(t.data), static_cast<const char*>(t.data) + t.capacity);
    };
    auto overlaps = [&](const EValue* e, Range r) {
      if (!e || e->tag != Tag::Tensor || e->t->capacity == 0 || !e->t->data) return false;
      const Range q = range_of(*e->t);
      return q.first < r.second && q.second > r.first;
    };
    // Tensors of instruction j that touch memory r: written (the return slot; every
    // argument of a delegate) or, with reads, any argument. An unplanned one (no memory
    // yet: an input or a view) counts as touching it.
    auto touches = [&](size_t j, Range r, bool reads, size_t skip) {
      const Instr& q = m.instrs_[j];
      if (q.kind == Instr::Move) return overlaps(&m.values_[q.b], r) || (reads && overlaps(&m.values_[q.a], r));
      if (q.kind != Instr::Kernel && q.kind != Instr::Delegate) return false;
      if (q.kind == Instr::Kernel && repoints[j] && !reads) return false;
      EValue** b = m.args_.data() + q.arg_begin;
      for (uint32_t k = 0; k < q.nargs; ++k) {
        if (q.kind == Instr::Kernel && !reads && !written_arg(q, k)) continue;
        const EValue* e = b[k];
        auto hit = [&](const EValue* t) {
          if (!t || t->tag != Tag::Tensor || vid(t) == skip || t->t->nbytes() == 0) return false;
          return !t->t->data || overlaps(t, r);
        };
        if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList) {
          for (size_t t = 0; t < e->tlist.size; ++t)
            if (hit(e->tlist.items[t])) return true;
        } else if (hit(e)) {
          return true;
        }
      }
      return false;
    };
    // which instructions read each value (in order)
    std::vector<std::vector<int32_t>> readers(nv);
    for (size_t j = 0; j < ni; ++j) {
      const Instr& q = m.instrs_[j];
      auto mark = [&](const EValue* e) {
        if (!e) return;
        if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList) {
          for (size_t t = 0; t < e->tlist.size; ++t)
            if (e->tlist.items[t]) readers[vid(e->tlist.items[t])].push_back(static_cast<int32_t>(j));
        } else {
          readers[vid(e)].push_back(static_cast<int32_t>(j));
        }
      };
      if (q.kind == Instr::Move || q.kind == Instr::JumpFalse) mark(&m.values_[q.a]);
      if (q.kind != Instr::Kernel && q.kind != Instr::Delegate) continue;
      for (uint32_t k = 0; k < q.nargs; ++k)  // (not a kernel's return slot, nor the out argument it repeats)
        if (q.kind == Instr::Delegate || m.args_[q.arg_begin + k] != m.args_[q.arg_begin + q.nargs - 1])
          mark(m.args_[q.arg_begin + k]);
    }
    // planned values no instruction writes: static views the exporter folded into the plan
    // (and inputs); the only candidates planned_views looks at
    std::vector<size_t> unwritten;
    for (size_t v = 0; v < nv; ++v)
      if (m.values_[v].tag == Tag::Tensor && writer[v] == -1 && m.value_planned_[v] && m.values_[v].t->capacity > 0)
        unwritten.push_back(v);
    // Values planned inside r (the memory `self` gets at instruction `from`) that no
    // instruction writes and that are read before the next write into r: views of self.
    // False if such a view is not wholly inside r or is also read after that write.
    auto planned_views = [&](size_t self, Range r, size_t from, std::vector<size_t>* views) {
      size_t until = 0;  // the next write into r, found when a candidate needs it
      for (size_t v : unwritten) {
        const EValue& e = m.values_[v];
        if (v == self || !overlaps(&e, r)) continue;
        if (until == 0) {
          until = ni;
          for (size_t j = from + 1; j < ni && until == ni; ++j)
            if (touches(j, r, false, SIZE_MAX)) until = j;
        }
        bool in_segment = false, after = false;
        for (int32_t j : readers[v]) {
          in_segment = in_segment || (j > static_cast<int32_t>(from) && j <= static_cast<int32_t>(until));
          after = after || j > static_cast<int32_t>(until);
        }
        if (!in_segment) continue;
        const Range q = range_of(*e.t);
        if (q.first < r.first || q.second > r.second || pinned[v] || after) return false;
        views->push_back(v);
      }
      return true;
    };
    // The last instruction reading any of `vals` or a view of them (et_view and folded
    // copies of them count as readers, and their outputs' readers too); false if such a
    // view is pinned.
    auto last_reader = [&](std::vector<size_t> vals, size_t from, size_t* last) {
      *last = from;
      for (size_t k = 0; k < vals.size(); ++k)
        for (int32_t j : readers[vals[k]]) {
          *last = std::max(*last, static_cast<size_t>(j));
          const Instr& q = m.instrs_[j];
          if (q.kind != Instr::Kernel || !repoints[j]) continue;
          const size_t w = vid(m.args_[q.arg_begin + q.nargs - 1]);
          if (pinned[w]) return false;
          if (std::find(vals.begin(), vals.end(), w) == vals.end()) vals.push_back(w);
        }
      return true;
    };
    auto read_after = [&](size_t v, size_t i) {
      return std::any_of(readers[v].begin(), readers[v].end(), [&](int32_t j) { return static_cast<size_t>(j) > i; });
    };
    auto move_views = [&](const std::vector<size_t>& views, const char* from, char* to) {
      for (size_t v : views) {
        Tensor& t = *m.values_[v].t;
        t.data = to + (static_cast<const char*>(t.data) - from);
      }
    };
    for (size_t i = 0; i < ni; ++i) {
      Instr& in = m.instrs_[i];
      if (in.kind != Instr::Kernel || !in.fn) continue;
      const std::string& op = m.op_names_[in.index];
      if (op == "aten::index_put.out" && in.nargs == 6) {
        index_put_into_self(i, debug, pinned, writer, range_of, touches, planned_views, last_reader, read_after, move_views);
        continue;
      }
      KernelFn fn = nullptr;
      uint32_t nargs = 0;  // the arguments, then the out argument and the return slot (one value)
      if (op == "aten::unsqueeze_copy.out") fn = unsqueeze_as_view, nargs = 4;
      else if (op == "aten::clone.out") fn = clone_as_view, nargs = 4;
      else if (op == "aten::alias_copy.out") fn = alias_copy_as_view, nargs = 3;
      else if (op == "aten::expand_copy.out") fn = expand_copy_as_view, nargs = 5;
      if (!fn || in.nargs != nargs) continue;
      EValue** a = m.args_.data() + in.arg_begin;
      if (a[0]->tag != Tag::Tensor || a[nargs - 1]->tag != Tag::Tensor || a[nargs - 2] != a[nargs - 1]) continue;
      const size_t src = vid(a[0]), out = vid(a[nargs - 1]);
      Tensor& x = *a[0]->t;
      Tensor& y = *a[nargs - 1]->t;
      auto no = [&](const char* why) {
        if (debug) std::fprintf(stderr, "copy view: instruction %zu %s kept: %s\n", i, op.c_str(), why);
      };
      if (x.dtype != y.dtype || !x.contiguous_order() || !y.contiguous_order() || !m.value_planned_[src] ||
          !m.value_planned_[out]) {
        no("layout, or memory not in the arena");
        continue;
      }
      if (pinned[out] || pinned[src] || writer[out] != static_cast<int32_t>(i) || constant(src)) { no("pinned"); continue; }
      if (op == "aten::expand_copy.out") {
        bool same = x.dynamism == Dynamism::Static && y.dynamism == Dynamism::Static && x.dim == y.dim;
        for (int d = 0; same && d < x.dim; ++d) same = x.sizes[d] == y.sizes[d];
        if (!same) { no("a real expand"); continue; }
      }
      const Range yr = range_of(y), xr = range_of(x);
      std::vector<size_t> yviews;
      if (!planned_views(out, yr, i, &yviews)) { no("a planned view outside out"); continue; }
      // 1. out takes src's memory: nothing writes it until the last reader of out (or its views)
      bool done = false;
      if (x.capacity >= y.capacity) {
        std::vector<size_t> vals = yviews;
        vals.push_back(out);
        size_t last = i;
        bool ok = last_reader(vals, i, &last);
        for (size_t j = i + 1; ok && j <= last; ++j) ok = !touches(j, xr, false, SIZE_MAX);
        if (ok) {
          move_views(yviews, static_cast<const char*>(y.data), static_cast<char*>(x.data));
          y.data = x.data;
          done = true;
        }
      }
      // 2. src's producer writes into out's memory: src has no other reader, no planned
      //    view, and nothing touches out's memory from the producer to the copy
      const int32_t w = writer[src];
      if (!done && w >= 0 && m.instrs_[w].kind == Instr::Kernel && !repoints[w] && y.capacity >= x.capacity) {
        bool ok = std::all_of(readers[src].begin(), readers[src].end(), [&](int32_t j) { return static_cast<size_t>(j) == i; });
        std::vector<size_t> xviews;
        ok = ok && planned_views(src, xr, static_cast<size_t>(w), &xviews) && xviews.empty();
        for (size_t j = static_cast<size_t>(w); ok && j < i; ++j)
          ok = !touches(j, yr, true, j == static_cast<size_t>(w) ? src : SIZE_MAX);
        if (ok) {
          x.data = y.data;
          x.capacity = y.capacity;
          done = true;
        }
      }
      if (!done) { no("its memory is in use"); continue; }
      in.fn = fn;
      repoints[i] = 1;
      ++m.copies_as_views_;
      if (debug) std::fprintf(stderr, "copy view: instruction %zu %s is a view\n", i, op.c_str());
    }
  }

  // A KV-cache update of the HF exports: T = index_put(B, indices, values) copies the whole
  // cache buffer B, writes the new rows, attention reads T, and copy_(B, T) at the end of
  // the method writes it all back. When nothing else reads B after the index_put and
  // nothing else writes B's memory while T is read, T takes B's memory: index_put then
  // only writes the rows and the copy_ is one of B onto itself (both kernels skip copying
  // a tensor onto itself).
  template <class Range, class Touches, class Views, class LastReader, class ReadAfter, class Move>
  void index_put_into_self(size_t i, bool debug, const std::vector<uint8_t>& pinned, const std::vector<int32_t>& writer,
                           Range range_of, Touches touches, Views planned_views, LastReader last_reader,
                           ReadAfter read_after, Move move_views) {
    auto vid = [&](const EValue* e) { return static_cast<size_t>(e - m.values_.data()); };
    EValue** a = m.args_.data() + m.instrs_[i].arg_begin;
    auto no = [&](const char* why) {
      if (debug) std::fprintf(stderr, "copy view: instruction %zu aten::index_put.out kept: %s\n", i, why);
    };
    if (a[0]->tag != Tag::Tensor || a[5]->tag != Tag::Tensor || a[4] != a[5]) return no("arguments");
    const size_t buf = vid(a[0]), out = vid(a[5]);
    Tensor& b = *a[0]->t;
    Tensor& t = *a[5]->t;
    if (b.dtype != t.dtype || !b.contiguous_order() || !t.contiguous_order() || !m.value_planned_[buf] ||
        !m.value_planned_[out] || pinned[buf] || pinned[out] || writer[out] != static_cast<int32_t>(i) ||
        b.capacity < t.capacity || b.dynamism != Dynamism::Static)
      return no("layout, memory or pinned");
    // nothing reads B after this; only copy_(B, T) writes it
    if (read_after(buf, i)) return no("the buffer is read after it");
    auto writeback = [&](size_t j) {
      const Instr& q = m.instrs_[j];
      if (q.kind != Instr::Kernel || q.nargs != 4 || m.op_names_[q.index] != "aten::copy_") return false;
      EValue** c = m.args_.data() + q.arg_begin;
      return c[0] == a[0] && c[1] == a[5] && c[3] == a[0];
    };
    const auto br = range_of(b), tr = range_of(t);
    std::vector<size_t> bviews, tviews;
    if (!planned_views(buf, br, i, &bviews) || !bviews.empty()) return no("a planned view of the buffer");
    if (!planned_views(out, tr, i, &tviews)) return no("a planned view outside out");
    std::vector<size_t> vals = tviews;
    vals.push_back(out);
    size_t last = i;
    if (!last_reader(vals, i, &last)) return no("a view of out is pinned");
    for (size_t j = i + 1; j <= last; ++j)
      if (!writeback(j) && touches(j, br, false, SIZE_MAX)) return no("the buffer's memory is written while out is read");
    move_views(tviews, static_cast<const char*>(t.data), static_cast<char*>(b.data));
    t.data = b.data;
    ++m.copies_as_views_;
    if (debug) std::fprintf(stderr, "copy view: instruction %zu aten::index_put.out writes into its buffer\n", i);
  }

  // MethodOptions::last_row_of_output_only: output 0 = view*(mm(a, w)) -> the mm
  // computes only its last row. Views (et_view, view_copy) keep the row-major order,
  // so the last row of the mm is the last row of the output.
  void last_row_logits() {
    if (m.outputs_.empty()) return;
    std::vector<int32_t> writer(m.values_.size(), -1);
    for (size_t i = 0; i < m.instrs_.size(); ++i) {
      const Instr& in = m.instrs_[i];
      if (in.kind != Instr::Kernel || in.nargs == 0) continue;
      EValue* ret = m.args_[in.arg_begin + in.nargs - 1];
      size_t v = static_cast<size_t>(ret - m.values_.data());
      writer[v] = writer[v] == -1 ? static_cast<int32_t>(i) : -2;
    }
    int32_t v = m.outputs_[0];
    for (int hops = 0; hops < 8 && v >= 0 && writer[v] >= 0; ++hops) {
      Instr& in = m.instrs_[writer[v]];
      const std::string& op = m.op_names_[in.index];
      EValue** a = m.args_.data() + in.arg_begin;
      if ((op == "executorch_prim::et_view.default" || op == "aten::view_copy.out") && in.nargs >= 3 &&
          a[0]->tag == Tag::Tensor) {
        v = static_cast<int32_t>(a[0] - m.values_.data());
        continue;
      }
      if (op == "aten::mm.out" && in.nargs == 4 && in.fn) in.fn = mm_last_row_out;
      return;
    }
    // written by a delegate (called once): tell the backend at creation (BackendInit)
    if (v < 0 || writer[v] != -1) return;
    int32_t call = -1, arg = -1;
    for (size_t i = 0; i < m.instrs_.size(); ++i) {
      const Instr& in = m.instrs_[i];
      if (in.kind != Instr::Delegate) continue;
      for (uint32_t j = 0; j < in.nargs; ++j)
        if (m.args_[in.arg_begin + j] == &m.values_[v]) {
          if (call >= 0) return;  // in two calls
          call = static_cast<int32_t>(i), arg = static_cast<int32_t>(j);
        }
    }
    if (call < 0) return;
    for (size_t i = 0; i < m.instrs_.size(); ++i)
      if (m.instrs_[i].kind == Instr::Delegate && static_cast<int32_t>(i) != call && m.instrs_[i].index == m.instrs_[call].index) return;
    last_row_delegate = static_cast<int32_t>(m.instrs_[call].index), last_row_arg = arg;
  }
  int32_t last_row_delegate = -1, last_row_arg = -1;  // set by last_row_logits

  // MethodOptions::xnnpack: fp32 linear / mm / addmm instructions whose weights are
  // constant (in the file, or folded views of it) may run on the XNNPACK library's fully
  // connected operator, created here with the weights packed once (xnn_library_matmul.h).
  // Every candidate gets a MatmulPath, whichever path it takes.
  Status attach_library_matmuls() {
    const size_t nv = m.values_.size();
    std::vector<uint8_t> moved(nv, 0);  // a Move may re-point the value
    for (const Instr& in : m.instrs_)
      if (in.kind == Instr::Move) moved[in.b] = 1;
    auto is_constant = [&](const EValue* e) {
      if (!e || e->tag != Tag::Tensor) return false;
      const size_t v = static_cast<size_t>(e - m.values_.data());
      if (v >= nv || moved[v]) return false;
      const int32_t s = slot_of[v];
      return (s >= 0 && slots[s].constant) || (v < const_view.size() && const_view[v]);
    };
    for (size_t c = 0; c + 1 < m.chain_begin_.size(); ++c)
      for (uint32_t i = m.chain_begin_[c]; i < m.chain_begin_[c + 1]; ++i) {
        Instr& in = m.instrs_[i];
        linalg::xnnlib::MatmulKind kind;
        if (in.kind != Instr::Kernel || !in.fn || !linalg::xnnlib::matmul_kind(m.op_names_[in.index], &kind)) continue;
        bool candidate = false;
        MatmulPath path;
        std::unique_ptr<linalg::xnnlib::LibMatmul> lm;
        PTE_TRY(linalg::xnnlib::attach(kind, m.args_.data() + in.arg_begin, in.fn, in.fn == mm_last_row_out,
                                       is_constant, options.xnnpack, &candidate, &path, &lm)
                    .context(m.prefix_ + ": instruction " + num(i - m.chain_begin_[c]) + " (" + m.op_names_[in.index] + ")"));
        if (!candidate) continue;
        path.where = "instruction " + num(i - m.chain_begin_[c]) + (m.chain_begin_.size() > 2 ? " of chain " + num(c) : "");
        path.op = m.op_names_[in.index];
        m.matmul_paths_.push_back(path);
        if (lm) {
          in.fn = linalg::xnnlib::lib_matmul_out;
          in.state = lm.get();
          m.lib_matmuls_.push_back(std::move(lm));
        }
      }
    return Status::ok();
  }

  // Which tensors each instruction reads and writes, for the re-planner.
  // Persistent state (mutable buffers such as KV caches): tensors with memory that
  // are not inputs or outputs, that some kernel writes, and whose first access is a
  // read (an in-place update such as index_put_ reads its target: that counts). The
  // exporter emits the graph's placeholders first (parameters, buffers, then the user
  // inputs), so only values before the first input qualify: a kernel's second output
  // (native_layer_norm.out's mean, ...) is not told apart from a read here.
  void find_state() {
    int32_t first_input = static_cast<int32_t>(m.values_.size());
    for (int32_t v : m.inputs_) first_input = std::min(first_input, v);
    std::vector<int8_t> first(slots.size(), 0);  // 0 unseen, 1 read first, 2 written first
    std::vector<uint8_t> written(slots.size(), 0);
    auto slot = [&](const EValue* e) -> int32_t {
      if (!e || e->tag != Tag::Tensor) return -1;
      return slot_of[e - m.values_.data()];
    };
    auto touch = [&](const EValue* e, bool def) {
      if (!e) return;
      auto one = [&](int32_t k) {
        if (k < 0) return;
        if (!first[k]) first[k] = def ? 2 : 1;
        if (def) written[k] = 1;
      };
      if (e->tag == Tag::Tensor) one(slot(e));
      else if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList)
        for (size_t j = 0; j < e->tlist.size; ++j) one(slot(e->tlist.items[j]));
    };
    for (const Instr& in : m.instrs_) {
      EValue** a = m.args_.data() + in.arg_begin;
      if (in.kind == Instr::Kernel) {
        for (uint32_t j = 0; j + 1 < in.nargs; ++j) touch(a[j], false);
        if (in.nargs > 0) touch(a[in.nargs - 1], true);
        // llama::update_cache[_with_indices].out write their cache argument in place
        if (in.nargs > 2 && in.index < m.op_names_.size() && m.op_names_[in.index].rfind("llama::update_cache", 0) == 0)
          touch(a[1], true);
      } else if (in.kind == Instr::Delegate) {
        for (uint32_t j = 0; j < in.nargs; ++j) touch(a[j], true);
      } else if (in.kind == Instr::Move) {
        touch(&m.values_[in.a], false);
        touch(&m.values_[in.b], true);
      } else if (in.kind == Instr::JumpFalse) {
        touch(&m.values_[in.a], false);
      }
    }
    for (size_t k = 0; k < slots.size(); ++k) {
      const Slot& s = slots[k];
      if (first[k] != 1 || !written[k] || !s.needs_memory || s.constant) continue;
      if (is_input[s.value] || is_output[s.value] || s.value >= first_input) continue;
      if (!m.values_[s.value].t->data) continue;
      m.state_values_.push_back(s.value);
    }
  }

  void collect_events(planner::PlanInput* pin) {
    auto slot = [&](const EValue* e) -> int32_t {
      if (!e || e->tag != Tag::Tensor) return -1;
      return slot_of[e - m.values_.data()];
    };
    std::vector<std::pair<int32_t, bool>> seen;  // (slot, def) for one instruction
    auto add = [&](int32_t s, bool def) {
      if (s < 0) return;
      for (auto& p : seen)
        if (p.first == s) { p.second = p.second || def; return; }
      seen.emplace_back(s, def);
    };
    auto add_value = [&](const EValue* e, bool def) {
      if (!e) return;
      if (e->tag == Tag::Tensor) add(slot(e), def);
      else if (e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList)
        for (size_t j = 0; j < e->tlist.size; ++j) add(slot(e->tlist.items[j]), def);
    };
    for (size_t i = 0; i < m.instrs_.size(); ++i) {
      const Instr& in = m.instrs_[i];
      seen.clear();
      EValue** a = m.args_.data() + in.arg_begin;
      switch (in.kind) {
        case Instr::Kernel:
          if (in.nargs > 0) add_value(a[in.nargs - 1], true);  // the return slot is written
          for (uint32_t j = 0; j + 1 < in.nargs; ++j) add_value(a[j], false);
          if (m.op_names_[in.index] == "executorch_prim::et_view.default" && in.nargs == 3 && slot(a[0]) >= 0 && slot(a[2]) >= 0)
            pin->aliases.emplace_back(slot(a[0]), slot(a[2]));
          break;
        case Instr::Delegate:
          // Inputs were written earlier; a first appearance is an output.
          for (uint32_t j = 0; j < in.nargs; ++j) add_value(a[j], true);
          break;
        case Instr::Move: {
          const EValue* from = &m.values_[in.a];
          const EValue* to = &m.values_[in.b];
          add_value(from, false);
          add_value(to, true);
          if (slot(from) >= 0 && slot(to) >= 0) {
            pin->aliases.emplace_back(slot(from), slot(to));
            pin->aliases.emplace_back(slot(to), slot(from));
          }
          break;
        }
        case Instr::JumpFalse:
          add_value(&m.values_[in.a], false);
          if (static_cast<size_t>(in.b) <= i) pin->backward_jumps.emplace_back(in.b, static_cast<int32_t>(i));
          break;
        case Instr::Free: break;
      }
      for (auto [s, def] : seen) pin->events.push_back({static_cast<int32_t>(i), s, def});
    }
  }
};

Status MethodImpl::load(const LoadedProgram& program, int plan_index, const Program::MethodOptions& options,
                        std::unique_ptr<MethodImpl>* out, size_t* measure) {
  std::unique_ptr<MethodImpl> mp(new MethodImpl());
  MethodImpl& m = *mp;
  const fb::ExecutionPlan* plan = program.root()->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(plan_index));
  m.program_ = &program;
  m.info_ = program.info().methods[static_cast<size_t>(plan_index)];
  m.prefix_ = program.info().path + ": method " + m.info_.name;

  Load L{m, program, plan, options};
  PTE_TRY(L.parse_values());
  PTE_TRY(L.parse_io());
  std::vector<std::string> unsupported;
  PTE_TRY(L.parse_instructions(&unsupported));
  if (!unsupported.empty()) {
    std::string msg;
    for (size_t k = 0; k < unsupported.size(); ++k) msg += (k ? ", " : "") + unsupported[k];
    // any missing operator names the failure; delegates alone are UnsupportedDelegate
    bool ops = false;
    for (const std::string& u : unsupported) ops |= u.rfind("unsupported operator", 0) == 0;
    return L.fail(ops ? ErrorCode::UnsupportedOperator : ErrorCode::UnsupportedDelegate, msg);
  }
  L.measure = measure;
  PTE_TRY(L.plan_memory());
  if (measure) return Status::ok();
  L.unplan_inputs();
  PTE_TRY(L.check_writes_and_data());
  L.find_state();
  L.fold_constant_permutes();
  if (options.copies_as_views) L.fold_copy_views();
  if (options.last_row_of_output_only) L.last_row_logits();
  PTE_TRY(L.attach_library_matmuls());

  // Threads and scratch before the backends, which may keep the pool.
  int threads = options.num_threads > 0 ? options.num_threads : L.small_method() ? 1 : physical_cores();
  if (threads > 1 && !m.instrs_.empty()) {
    m.threadpool_ = pthreadpool_create(static_cast<size_t>(threads));
    if (!m.threadpool_) return L.fail(ErrorCode::AllocationFailed, "cannot create a thread pool of " + num(threads) + " threads");
  }
  const size_t scratch = L.scratch_bytes();
  if (!L.take(m.scratch_, scratch)) return L.fail(ErrorCode::AllocationFailed, "cannot allocate " + num(scratch) + " bytes of kernel scratch");
  m.ctx_.set_scratch_arena(m.scratch_.data(), scratch);
  m.ctx_.threadpool = m.threadpool_;
  m.ctx_.claim_threads = m.threadpool_ ? threads : 1;
  m.adaptive_threads_ = options.adaptive_threads;
  (void)online_cpus();
  PTE_TRY(L.create_backends());
  *out = std::move(mp);
  return Status::ok();
}

MethodImpl::~MethodImpl() {
  backends_.clear();
  if (threadpool_) pthreadpool_destroy(threadpool_);
}

Status LoadedProgram::method_index(const std::string& name, int* index) const {
  *index = find_plan(name);
  if (*index >= 0) return Status::ok();
  std::string names;
  for (const MethodInfo& mi : info_.methods) names += (names.empty() ? "" : ", ") + mi.name;
  return Status::error(ErrorCode::UnknownMethod, info_.path + ": no method named '" + name + "' (methods: " + names + ")");
}

Status LoadedProgram::load_method(const std::string& name, const MethodOptions& options, std::unique_ptr<Method>* out) {
  int idx = 0;
  PTE_TRY(method_index(name, &idx));
  std::unique_ptr<MethodImpl> m;
  Status s = MethodImpl::load(*this, idx, options, &m);
  if (!s) return s.with_default_code(ErrorCode::MethodLoad);
  *out = std::move(m);
  return Status::ok();
}

Status LoadedProgram::memory_needed(const std::string& name, const MethodOptions& options, size_t* bytes) const {
  int idx = 0;
  PTE_TRY(method_index(name, &idx));
  MethodOptions o = options;
  o.memory = nullptr;
  o.memory_bytes = 0;
  size_t need = 0;
  std::unique_ptr<MethodImpl> m;
  Status s = MethodImpl::load(*this, idx, o, &m, &need);
  if (!s) return s.with_default_code(ErrorCode::MethodLoad);
  *bytes = need;
  return Status::ok();
}

}  // namespace pte
