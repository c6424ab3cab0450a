// pte-run tests: build tensors and EValues by hand and call one kernel, as the
// interpreter would (schema args, then the return slot).
#pragma once
#include <cstring>
#include <deque>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "ops/kernel.h"
#include "ops/util.h"

namespace pte::test {

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float; }
template <> constexpr DType dtype_of<double>() { return DType::Double; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<int16_t>() { return DType::Int16; }
template <> constexpr DType dtype_of<int8_t>() { return DType::Int8; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtype_of<bool>() { return DType::Bool; }
template <> constexpr DType dtype_of<Half>() { return DType::Half; }
template <> constexpr DType dtype_of<BFloat16>() { return DType::BFloat16; }

// Owns every tensor, buffer and EValue it hands out (stable addresses).
class Harness {
 public:
  // A tensor with data; `capacity_elems` > numel leaves room for dynamic resizes.
  template <class T>
  EValue* tensor(std::vector<int64_t> sizes, std::vector<T> values, Dynamism dyn = Dynamism::Static,
                 std::vector<uint8_t> dim_order = {}) {
    Tensor& t = tensors_.emplace_back();
    t.dtype = dtype_of<T>();
    t.dim = static_cast<int32_t>(sizes.size());
    for (int i = 0; i < t.dim; ++i) {
      t.sizes[i] = sizes[i];
      t.dim_order[i] = dim_order.empty() ? static_cast<uint8_t>(i) : dim_order[i];
    }
    compute_strides(t);
    int64_t n = t.numel();
    size_t bytes = std::max<size_t>(values.size(), static_cast<size_t>(n)) * sizeof(T);
    auto& buf = buffers_.emplace_back(bytes + 64, 0);
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < values.size(); ++i) buf[i] = values[i];
    } else if (!values.empty()) {
      std::memcpy(buf.data(), values.data(), values.size() * sizeof(T));
    }
    t.data = buf.data();
    t.capacity = bytes;
    t.dynamism = dyn;
    EValue& e = values_.emplace_back();
    e.tag = Tag::Tensor;
    e.t = &t;
    return &e;
  }
  // An output tensor of `capacity` elements, dynamically bounded, initial sizes given.
  template <class T>
  EValue* out(std::vector<int64_t> sizes, int64_t capacity_elems = -1) {
    int64_t n = 1;
    for (auto s : sizes) n *= s;
    if (capacity_elems < 0) capacity_elems = n;
    EValue* e = tensor<T>(sizes, std::vector<T>(static_cast<size_t>(capacity_elems)), Dynamism::DynamicBound);
    return e;
  }
  EValue* i(int64_t v) { EValue& e = values_.emplace_back(); e.tag = Tag::Int; e.i = v; return &e; }
  EValue* d(double v) { EValue& e = values_.emplace_back(); e.tag = Tag::Double; e.d = v; return &e; }
  EValue* b(bool v) { EValue& e = values_.emplace_back(); e.tag = Tag::Bool; e.b = v; return &e; }
  EValue* none() { return &values_.emplace_back(); }
  EValue* str(const std::string& s) {
    strings_.push_back(s);
    EValue& e = values_.emplace_back();
    e.tag = Tag::String;
    e.str.data = strings_.back().data();
    e.str.size = strings_.back().size();
    return &e;
  }
  EValue* ints(std::vector<int64_t> v) {
    auto& items = ptr_lists_.emplace_back();
    for (int64_t x : v) items.push_back(i(x));
    auto& scratch = int_scratch_.emplace_back(v.size() + 1);
    EValue& e = values_.emplace_back();
    e.tag = Tag::IntList;
    e.ilist = {items.data(), scratch.data(), v.size()};
    return &e;
  }
  EValue* doubles(std::vector<double> v) {
    auto& store = double_lists_.emplace_back(std::move(v));
    EValue& e = values_.emplace_back();
    e.tag = Tag::DoubleList;
    e.dlist.data = store.data();
    e.dlist.size = store.size();
    return &e;
  }
  EValue* bools(std::vector<bool> v) {
    auto& store = bool_lists_.emplace_back(v.begin(), v.end());
    EValue& e = values_.emplace_back();
    e.tag = Tag::BoolList;
    e.blist.data = store.data();
    e.blist.size = store.size();
    return &e;
  }
  // A TensorList (or OptionalTensorList when `optional`; null items are None).
  EValue* list(std::vector<EValue*> items, bool optional = false) {
    auto& store = ptr_lists_.emplace_back(items.begin(), items.end());
    EValue& e = values_.emplace_back();
    e.tag = optional ? Tag::OptionalTensorList : Tag::TensorList;
    e.tlist.items = store.data();
    e.tlist.size = store.size();
    return &e;
  }

  // Calls kernel `name` with args (the return slot is appended: it repeats the last arg).
  bool call(const char* name, std::vector<EValue*> args, bool add_return_slot = true) {
    const KernelDef* k = find_kernel(name);
    if (!k) { message = std::string("no kernel ") + name; return false; }
    if (add_return_slot) args.push_back(args.back());
    if (k->num_args >= 0 && static_cast<size_t>(k->num_args) != args.size()) {
      message = std::string(name) + ": expected " + std::to_string(k->num_args) + " args, got " + std::to_string(args.size());
      return false;
    }
    ctx.reset();
    ctx.set_scratch_arena(scratch_.data(), scratch_.size());
    bool ok = k->fn(ctx, args.data());
    message = ctx.message();
    return ok && !ctx.failed();
  }

  // Calls a kernel function no file names (one a load-time pass sets) with args as they are.
  bool call_fn(KernelFn fn, std::vector<EValue*> args) {
    ctx.reset();
    ctx.set_scratch_arena(scratch_.data(), scratch_.size());
    bool ok = fn(ctx, args.data());
    message = ctx.message();
    return ok && !ctx.failed();
  }

  // Kernel `name`'s load-time step on args (return slot appended): the function it picks
  // (the kernel's own fn when it has no prepare step), or null with `message` set.
  KernelFn prepare(const char* name, std::vector<EValue*>& args) {
    const KernelDef* k = find_kernel(name);
    if (!k) { message = std::string("no kernel ") + name; return nullptr; }
    if (args.size() + 1 == static_cast<size_t>(k->num_args)) args.push_back(args.back());
    ctx.reset();
    KernelFn fn = k->prepare ? k->prepare(ctx, args.data()) : k->fn;
    message = ctx.message();
    return fn;
  }
  // Runs `fn` on args as given (with their return slot).
  bool run(KernelFn fn, std::vector<EValue*>& args) {
    ctx.reset();
    ctx.set_scratch_arena(scratch_.data(), scratch_.size());
    bool ok = fn(ctx, args.data());
    message = ctx.message();
    return ok && !ctx.failed();
  }

  template <class T>
  static std::vector<T> values(const EValue* e) {
    const Tensor& t = *e->t;
    std::vector<T> r(static_cast<size_t>(t.numel()));
    for (int64_t k = 0; k < t.numel(); ++k) r[k] = static_cast<const T*>(t.data)[strided_offset(t, k)];
    return r;
  }
  static std::vector<int64_t> shape(const EValue* e) { return {e->t->sizes, e->t->sizes + e->t->dim}; }

  KernelContext ctx;
  std::string message;

 private:
  std::deque<Tensor> tensors_;
  std::deque<std::vector<uint8_t>> buffers_;
  std::deque<EValue> values_;
  std::deque<std::string> strings_;
  std::deque<std::vector<EValue*>> ptr_lists_;
  std::deque<std::vector<int64_t>> int_scratch_;
  std::deque<std::vector<double>> double_lists_;
  std::deque<std::vector<uint8_t>> bool_lists_;
  std::vector<uint8_t> scratch_ = std::vector<uint8_t>(1 << 20);
};

// n floats uniform in [lo, hi), reproducible from `seed` (kernel comparisons on random data).
inline std::vector<float> uniform_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace pte::test
