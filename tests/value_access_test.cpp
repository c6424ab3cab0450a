// pte-run: the load-time passes' shared analysis (interpreter/passes/value_access.h) on a
// hand-made instruction list: roles, the single writer, return-slot writers, readers.
#include <doctest/doctest.h>

#include "interpreter/passes/value_access.h"

using namespace pte;
using VA = passes::ValueAccess;

TEST_CASE("value access: roles, writers and readers of a small instruction list") {
  // values: 0..4 tensors, 5 a tensor list [0, 1], 6 an int
  std::vector<Tensor> tensors(5);
  std::vector<EValue> values(7);
  for (int k = 0; k < 5; ++k) values[k].tag = Tag::Tensor, values[k].t = &tensors[k];
  EValue* items[2] = {&values[0], &values[1]};
  values[5].tag = Tag::TensorList;
  values[5].tlist.items = items;
  values[5].tlist.size = 2;
  values[6].tag = Tag::Int;
  std::vector<EValue*> args;
  std::vector<Instr> instrs;
  auto kernel = [&](std::vector<int> a) {
    Instr& in = instrs.emplace_back();
    in.kind = Instr::Kernel;
    in.arg_begin = static_cast<uint32_t>(args.size());
    in.nargs = static_cast<uint32_t>(a.size());
    for (int v : a) args.push_back(&values[v]);
    return in;
  };
  kernel({0, 6, 2, 2});                                        // 0: x0, int -> out 2 (out arg = return slot)
  Instr& d = instrs.emplace_back();                            // 1: delegate(2, list 5)
  d.kind = Instr::Delegate, d.arg_begin = static_cast<uint32_t>(args.size()), d.nargs = 2;
  args.push_back(&values[2]), args.push_back(&values[5]);
  kernel({2, 2, 3});                                           // 2: 2 given twice -> 3
  Instr& mv = instrs.emplace_back();                           // 3: move 3 -> 4
  mv.kind = Instr::Move, mv.a = 3, mv.b = 4;
  Instr& j = instrs.emplace_back();                            // 4: jump on 4
  j.kind = Instr::JumpFalse, j.a = 4, j.b = 0;
  kernel({5, 3});                                              // 5: list 5 -> 3

  VA acc;
  passes::analyze_access(values, instrs, args, &acc);
  CHECK(acc.roles[0] == (VA::InList | VA::KernelArg | (VA::DelegateArg << VA::kItem) | (VA::KernelArg << VA::kItem)));
  CHECK(acc.roles[1] == (VA::InList | (VA::DelegateArg << VA::kItem) | (VA::KernelArg << VA::kItem)));
  CHECK(acc.roles[2] == (VA::KernelArg | VA::KernelReturn | VA::KernelRepeated | VA::DelegateArg));
  CHECK(acc.roles[3] == (VA::KernelReturn | VA::MoveFrom));
  CHECK(acc.roles[4] == VA::MoveTo);
  CHECK(acc.roles[5] == (VA::DelegateArg | VA::KernelArg));
  CHECK(acc.has(0, VA::either(VA::DelegateArg)));
  CHECK_FALSE(acc.has(4, VA::either(VA::KernelReturn)));

  // writer: instruction 0 writes 2 (return slot and the out argument it repeats: once);
  // instruction 2 writes 2 again (given twice) and 3; instruction 5 writes 3 too
  CHECK(acc.writer[2] == -2);
  CHECK(acc.writer[3] == -2);
  CHECK(acc.writer[0] == -1);
  CHECK(acc.writer[4] == -1);  // a Move is not a kernel
  CHECK(acc.return_writer[2] == 0);
  CHECK(acc.return_writer[3] == -2);
  CHECK(acc.return_writer[5] == -1);

  // readers: not a kernel's return slot nor its repeated out argument; list items counted
  CHECK(acc.readers[0] == std::vector<int32_t>{0, 1, 5});
  CHECK(acc.readers[1] == std::vector<int32_t>{1, 5});
  CHECK(acc.readers[2] == std::vector<int32_t>{1, 2, 2});
  CHECK(acc.readers[3] == std::vector<int32_t>{3});
  CHECK(acc.readers[4] == std::vector<int32_t>{4});
  CHECK(acc.readers[5].empty());  // a list is read through its items
  CHECK(acc.readers[6] == std::vector<int32_t>{0});
}
