// pte-run tests: builds small synthetic .pte programs (one method) with the
// flatbuffers builder, to test the interpreter instruction by instruction without
// depending on exported files. Constants go to the legacy constant_buffer.
#pragma once
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "pte/program.h"
#include "schema/program_generated.h"

namespace pte::test {

namespace fbs = executorch_flatbuffer;

class ProgramBuilder {
 public:
  struct TensorSpec {
    DType dtype = DType::Float;
    std::vector<int32_t> sizes;
    Dynamism dynamism = Dynamism::Static;
    int mem_id = 0;            // 0: not planned
    uint64_t offset = 0;
    std::vector<uint8_t> constant;  // bytes of a constant tensor (no mem_id)
    std::vector<uint8_t> dim_order;
  };

  int null() { return push(fbs::KernelTypes::Null, fbs::CreateNull(b_).Union()); }
  int i(int64_t v) { return push(fbs::KernelTypes::Int, fbs::CreateInt(b_, v).Union()); }
  int b(bool v) { return push(fbs::KernelTypes::Bool, fbs::CreateBool(b_, v).Union()); }
  int d(double v) { return push(fbs::KernelTypes::Double, fbs::CreateDouble(b_, v).Union()); }
  int str(const std::string& s) { return push(fbs::KernelTypes::String, fbs::CreateStringDirect(b_, s.c_str()).Union()); }
  // A malformed value: a union type without its table (the verifier accepts it).
  int typed_but_empty(fbs::KernelTypes type) { return push(type, 0); }
  int int_list(const std::vector<int64_t>& value_indices) {
    return push(fbs::KernelTypes::IntList, fbs::CreateIntListDirect(b_, &value_indices).Union());
  }
  int double_list(const std::vector<double>& v) { return push(fbs::KernelTypes::DoubleList, fbs::CreateDoubleListDirect(b_, &v).Union()); }
  int tensor_list(const std::vector<int32_t>& value_indices, bool optional = false) {
    if (optional) return push(fbs::KernelTypes::OptionalTensorList, fbs::CreateOptionalTensorListDirect(b_, &value_indices).Union());
    return push(fbs::KernelTypes::TensorList, fbs::CreateTensorListDirect(b_, &value_indices).Union());
  }
  int tensor(const TensorSpec& s) {
    std::vector<uint8_t> order = s.dim_order;
    if (order.empty())
      for (size_t k = 0; k < s.sizes.size(); ++k) order.push_back(static_cast<uint8_t>(k));
    flatbuffers::Offset<fbs::AllocationDetails> alloc = 0;
    if (s.mem_id > 0)
      alloc = fbs::CreateAllocationDetails(b_, static_cast<uint32_t>(s.mem_id), static_cast<uint32_t>(s.offset & 0xffffffffu),
                                           static_cast<uint32_t>(s.offset >> 32));
    uint32_t buffer = 0;
    if (!s.constant.empty()) {
      buffer = static_cast<uint32_t>(constants_.size());
      constants_.push_back(s.constant);
    }
    auto t = fbs::CreateTensorDirect(b_, static_cast<fbs::ScalarType>(s.dtype), 0, &s.sizes, &order, false, buffer, alloc, 0,
                                     static_cast<fbs::TensorShapeDynamism>(s.dynamism));
    return push(fbs::KernelTypes::Tensor, t.Union());
  }
  // A float tensor planned in arena 1 at `offset`.
  int f32(std::vector<int32_t> sizes, uint64_t offset, Dynamism dyn = Dynamism::Static) {
    TensorSpec s;
    s.sizes = std::move(sizes);
    s.mem_id = 1;
    s.offset = offset;
    s.dynamism = dyn;
    return tensor(s);
  }
  template <class T>
  int constant(DType dt, std::vector<int32_t> sizes, const std::vector<T>& data) {
    TensorSpec s;
    s.dtype = dt;
    s.sizes = std::move(sizes);
    s.constant.resize(data.size() * sizeof(T));
    std::memcpy(s.constant.data(), data.data(), s.constant.size());
    return tensor(s);
  }

  int op(const std::string& name, const std::string& overload = "") {
    ops_.push_back(fbs::CreateOperatorDirect(b_, name.c_str(), overload.c_str()));
    return static_cast<int>(ops_.size() - 1);
  }
  int delegate(const std::string& id, const std::vector<uint8_t>& blob = {1, 2, 3}) {
    inline_.push_back(fbs::CreateBackendDelegateInlineDataDirect(b_, &blob));
    auto ref = fbs::CreateBackendDelegateDataReference(b_, fbs::DataLocation::INLINE, static_cast<uint32_t>(inline_.size() - 1));
    delegates_.push_back(fbs::CreateBackendDelegateDirect(b_, id.c_str(), ref));
    return static_cast<int>(delegates_.size() - 1);
  }
  void kernel(int op_index, const std::vector<int32_t>& args) {
    instr(fbs::InstructionArguments::KernelCall, fbs::CreateKernelCallDirect(b_, op_index, &args).Union());
  }
  void call_delegate(int index, const std::vector<int32_t>& args) {
    instr(fbs::InstructionArguments::DelegateCall, fbs::CreateDelegateCallDirect(b_, index, &args).Union());
  }
  void move(int from, int to) { instr(fbs::InstructionArguments::MoveCall, fbs::CreateMoveCall(b_, from, to).Union()); }
  void jump_false(int cond, int dest) {
    instr(fbs::InstructionArguments::JumpFalseCall, fbs::CreateJumpFalseCall(b_, cond, dest).Union());
  }
  // A malformed instruction: a union type without its table.
  void empty_instruction(fbs::InstructionArguments type) { instr(type, 0); }
  void free_value(int v) { instr(fbs::InstructionArguments::FreeCall, fbs::CreateFreeCall(b_, v).Union()); }
  size_t num_instructions() const { return instrs_.size(); }

  std::vector<int32_t> inputs, outputs;
  std::vector<int64_t> buffer_sizes = {0};

  // Finishes the program; the bytes stay owned by the builder (keep it alive).
  Status open(std::unique_ptr<Program>* out, const std::string& method = "forward", const std::string& name = "synthetic.pte") {
    std::vector<flatbuffers::Offset<fbs::Chain>> chains = {fbs::CreateChainDirect(b_, nullptr, nullptr, &instrs_)};
    auto plan = fbs::CreateExecutionPlanDirect(b_, method.c_str(), 0, &values_, &inputs, &outputs, &chains, &ops_, &delegates_,
                                               &buffer_sizes);
    std::vector<flatbuffers::Offset<fbs::ExecutionPlan>> plans = {plan};
    std::vector<flatbuffers::Offset<fbs::Buffer>> buffers;
    for (auto& c : constants_) buffers.push_back(fbs::CreateBufferDirect(b_, &c));
    auto prog = fbs::CreateProgramDirect(b_, 0, &plans, &buffers, &inline_);
    fbs::FinishProgramBuffer(b_, prog);
    bytes_.assign(b_.GetBufferPointer(), b_.GetBufferPointer() + b_.GetSize());
    return Program::open_buffer(bytes_.data(), bytes_.size(), name, {}, out);
  }
  // The program's bytes after open() (e.g. to write a .pte file).
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  int push(fbs::KernelTypes type, flatbuffers::Offset<void> v) {
    values_.push_back(fbs::CreateEValue(b_, type, v));
    return static_cast<int>(values_.size() - 1);
  }
  void instr(fbs::InstructionArguments type, flatbuffers::Offset<void> v) { instrs_.push_back(fbs::CreateInstruction(b_, type, v)); }

  flatbuffers::FlatBufferBuilder b_;
  std::vector<flatbuffers::Offset<fbs::EValue>> values_;
  std::vector<flatbuffers::Offset<fbs::Instruction>> instrs_;
  std::vector<flatbuffers::Offset<fbs::Operator>> ops_;
  std::vector<flatbuffers::Offset<fbs::BackendDelegate>> delegates_;
  std::vector<flatbuffers::Offset<fbs::BackendDelegateInlineData>> inline_;
  std::vector<std::vector<uint8_t>> constants_ = {{}};  // [0] is the reserved empty buffer
  std::vector<uint8_t> bytes_;
};

// A host tensor for set_input (owns its bytes).
struct HostTensor {
  Tensor t;
  std::vector<uint8_t> bytes;
  template <class T>
  HostTensor(DType dt, std::vector<int64_t> sizes, std::vector<T> values) {
    t.dtype = dt;
    t.dim = static_cast<int32_t>(sizes.size());
    for (int k = 0; k < t.dim; ++k) { t.sizes[k] = sizes[k]; t.dim_order[k] = static_cast<uint8_t>(k); }
    compute_strides(t);
    bytes.resize(values.size() * sizeof(T) + 8);
    std::memcpy(bytes.data(), values.data(), values.size() * sizeof(T));
    t.data = bytes.data();
    t.capacity = values.size() * sizeof(T);
  }
};

template <class T>
std::vector<T> tensor_values(const EValue& e) {
  std::vector<T> r;
  if (e.tag != Tag::Tensor || !e.t->data) return r;
  for (int64_t k = 0; k < e.t->numel(); ++k) r.push_back(static_cast<const T*>(e.t->data)[k]);
  return r;
}

inline std::vector<int64_t> tensor_shape(const EValue& e) {
  if (e.tag != Tag::Tensor) return {};
  return {e.t->sizes, e.t->sizes + e.t->dim};
}

}  // namespace pte::test
