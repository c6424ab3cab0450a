// pte-run: the load-time passes' shared analysis of which instruction reads and writes
// each value (see value_access.h).
#include "interpreter/passes/value_access.h"

namespace pte::passes {

void analyze_access(const std::vector<EValue>& values, const std::vector<Instr>& instrs, const std::vector<EValue*>& args,
                    ValueAccess* out) {
  const size_t nv = values.size(), ni = instrs.size();
  ValueAccess& acc = *out;
  acc.roles.assign(nv, 0);
  acc.writer.assign(nv, -1);
  acc.return_writer.assign(nv, -1);
  acc.readers.assign(nv, {});
  auto vid = [&](const EValue* e) { return static_cast<size_t>(e - values.data()); };
  auto is_list = [](const EValue* e) { return e->tag == Tag::TensorList || e->tag == Tag::OptionalTensorList; };
  // the value itself gets `r`, each item of a list value gets r << kItem
  auto mark = [&](const EValue* e, uint16_t r) {
    if (!e) return;
    acc.roles[vid(e)] |= r;
    if (is_list(e))
      for (size_t t = 0; t < e->tlist.size; ++t)
        if (e->tlist.items[t]) acc.roles[vid(e->tlist.items[t])] |= static_cast<uint16_t>(r << ValueAccess::kItem);
  };
  // calls f on the value, or on each item of a list value
  auto each = [&](const EValue* e, auto&& f) {
    if (!e) return;
    if (is_list(e)) {
      for (size_t t = 0; t < e->tlist.size; ++t)
        if (e->tlist.items[t]) f(vid(e->tlist.items[t]));
    } else {
      f(vid(e));
    }
  };

  for (const EValue& e : values)
    if (is_list(&e))
      for (size_t j = 0; j < e.tlist.size; ++j)
        if (e.tlist.items[j]) acc.roles[vid(e.tlist.items[j])] |= ValueAccess::InList;

  for (size_t i = 0; i < ni; ++i) {
    const Instr& in = instrs[i];
    const int32_t ii = static_cast<int32_t>(i);
    EValue* const* a = args.data() + in.arg_begin;
    auto read = [&](size_t v) { acc.readers[v].push_back(ii); };
    switch (in.kind) {
      case Instr::Move:
        mark(&values[in.a], ValueAccess::MoveFrom);
        mark(&values[in.b], ValueAccess::MoveTo);
        each(&values[in.a], read);
        break;
      case Instr::JumpFalse: each(&values[in.a], read); break;
      case Instr::Delegate:
        for (uint32_t k = 0; k < in.nargs; ++k) {
          mark(a[k], ValueAccess::DelegateArg);
          each(a[k], read);
        }
        break;
      case Instr::Kernel: {
        if (in.nargs == 0) break;
        const EValue* ret = a[in.nargs - 1];
        size_t r = vid(ret);
        acc.return_writer[r] = acc.return_writer[r] == -1 ? ii : -2;
        for (uint32_t k = 0; k < in.nargs; ++k) {
          bool repeated = false;
          for (uint32_t o = 0; o < in.nargs && !repeated; ++o) repeated = o != k && a[o] == a[k];
          mark(a[k], static_cast<uint16_t>((k + 1 == in.nargs ? ValueAccess::KernelReturn : ValueAccess::KernelArg) |
                                           (repeated ? ValueAccess::KernelRepeated : 0)));
          if (k + 1 == in.nargs || (repeated && a[k]->tag == Tag::Tensor))
            each(a[k], [&](size_t v) {
              if (acc.writer[v] != ii) acc.writer[v] = acc.writer[v] == -1 ? ii : -2;
            });
          if (a[k] != ret) each(a[k], read);
        }
        break;
      }
      case Instr::Free: break;
    }
  }
}

}  // namespace pte::passes
