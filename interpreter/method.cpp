// pte-run: running a loaded method: inputs, the instruction loop, outputs (see method.h).
// Nothing on the execute() path allocates: errors are formatted into err_ and only
// turned into a Status at the boundary.
#include "interpreter/method.h"

#include <ctime>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "ops/util.h"

namespace pte {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

std::string fmt_double(double d) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.9g", d);
  return b;
}

std::string entry(const ValueInfo& v, bool show_value) {
  switch (v.tag) {
    case Tag::Tensor: {
      const TensorInfo& t = v.tensor;
      std::string s = std::string(dtype_short_name(t.dtype)) + "[";
      for (size_t k = 0; k < t.sizes.size(); ++k) {
        if (k) s += ",";
        if (t.dynamism != Dynamism::Static) s += "<=";
        s += num(t.sizes[k]);
      }
      s += "]";
      bool contiguous = true;
      for (size_t k = 0; k < t.dim_order.size(); ++k) contiguous = contiguous && t.dim_order[k] == k;
      if (!contiguous) {
        s += " dim_order=(";
        for (size_t k = 0; k < t.dim_order.size(); ++k) s += (k ? "," : "") + num(t.dim_order[k]);
        s += ")";
      }
      return s;
    }
    case Tag::Int: return show_value ? "int=" + num(v.int_value) : "int";
    case Tag::Double: return show_value ? "float=" + fmt_double(v.double_value) : "float";
    case Tag::Bool: return show_value ? std::string("bool=") + (v.bool_value ? "true" : "false") : "bool";
    case Tag::String: return show_value ? "str=\"" + v.string_value + "\"" : "str";
    case Tag::None: return "None";
    default: return tag_name(v.tag);
  }
}

bool valid_order(const Tensor& t) {
  unsigned seen = 0;
  for (int i = 0; i < t.dim; ++i) {
    if (t.dim_order[i] >= t.dim || (seen & (1u << t.dim_order[i]))) return false;
    seen |= 1u << t.dim_order[i];
  }
  return true;
}

bool same_order(const Tensor& a, const Tensor& b) {
  for (int i = 0; i < a.dim; ++i)
    if (a.dim_order[i] != b.dim_order[i]) return false;
  return true;
}

}  // namespace

std::string signature_string(const MethodInfo& m) {
  std::string s = m.name + "(";
  for (size_t k = 0; k < m.inputs.size(); ++k) s += (k ? ", " : "") + entry(m.inputs[k], true);
  s += ") -> (";
  for (size_t k = 0; k < m.outputs.size(); ++k) s += (k ? ", " : "") + entry(m.outputs[k], m.is_constant);
  return s + ")";
}

size_t file_plan_bytes(const MethodInfo& m) {
  size_t n = 0;
  for (int64_t b : m.planned_buffers) n += static_cast<size_t>(b);
  return n;
}

Status MethodImpl::error(ErrorCode code, const char* fmt, ...) const {
  int n = std::snprintf(err_, sizeof(err_), "%s: ", prefix_.c_str());
  if (n < 0 || static_cast<size_t>(n) >= sizeof(err_)) n = 0;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(err_ + n, sizeof(err_) - static_cast<size_t>(n), fmt, ap);
  va_end(ap);
  return Status::error(code, err_);
}

Status MethodImpl::input_mismatch(ErrorCode code, size_t index, const std::string& why) const {
  return Status::error(code, prefix_ + ": input " + num(static_cast<int64_t>(index)) + ": " + why + "; the method is " +
                       signature_string(info_));
}

// ---------------------------------------------------------------- inputs

Status MethodImpl::set_input(size_t index, const Tensor& value) {
  if (index >= inputs_.size())
    return Status::error(ErrorCode::InputIndex, prefix_ + ": input index " + num(static_cast<int64_t>(index)) + " out of range (the method takes " +
                         num(static_cast<int64_t>(inputs_.size())) + " inputs: " + signature_string(info_) + ")");
  EValue& v = values_[inputs_[index]];
  if (v.tag != Tag::Tensor) return input_mismatch(ErrorCode::InputKind, index, std::string("expected ") + entry(info_.inputs[index], true) + ", got a tensor");
  Tensor& t = *v.t;
  const TensorInfo& ti = info_.inputs[index].tensor;
  auto got = [&]() {
    std::string s = std::string(dtype_short_name(value.dtype)) + "[";
    for (int i = 0; i < value.dim; ++i) s += (i ? "," : "") + num(value.sizes[i]);
    return s + "]";
  };
  auto want = [&]() { return entry(info_.inputs[index], true); };
  if (value.dtype != t.dtype) return input_mismatch(ErrorCode::InputDtype, index, "expected " + want() + ", got " + got() + " (dtype differs)");
  if (value.dim != t.dim || value.dim != static_cast<int32_t>(ti.sizes.size()))
    return input_mismatch(ErrorCode::InputShape, index, "expected " + want() + ", got " + got() + " (rank differs)");
  for (int i = 0; i < value.dim; ++i) {
    int64_t bound = ti.sizes[static_cast<size_t>(i)];
    if (value.sizes[i] < 0) return input_mismatch(ErrorCode::InputShape, index, "got " + got() + " (negative size)");
    if (ti.dynamism == Dynamism::Static ? value.sizes[i] != bound : value.sizes[i] > bound)
      return input_mismatch(ErrorCode::InputShape, index, "expected " + want() + ", got " + got() +
                                       (ti.dynamism == Dynamism::Static ? " (static shape)" : " (over the dynamic bound)"));
  }
  Tensor src = value;
  if (!valid_order(src))
    for (int i = 0; i < src.dim; ++i) src.dim_order[i] = static_cast<uint8_t>(i);
  compute_strides(src);
  size_t nbytes = src.nbytes();
  if (nbytes > 0 && !src.data) return input_mismatch(ErrorCode::InputData, index, "the tensor has no data");

  if (value_planned_[inputs_[index]]) {
    if (!resize_tensor(t, src.sizes, src.dim)) return input_mismatch(ErrorCode::InputShape, index, "cannot resize to " + got());
    if (nbytes > t.capacity) return input_mismatch(ErrorCode::InputShape, index, got() + " exceeds the planned " + num(static_cast<int64_t>(t.capacity)) + " bytes");
    if (same_order(src, t)) {
      if (nbytes) std::memmove(t.data, src.data, nbytes);
    } else {
      size_t es = dtype_size(t.dtype);
      int64_t n = t.numel();
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(static_cast<uint8_t*>(t.data) + strided_offset(t, i) * es,
                    static_cast<const uint8_t*>(src.data) + strided_offset(src, i) * es, es);
    }
  } else {
    if (!same_order(src, t))
      return input_mismatch(ErrorCode::InputShape, index, "the input is bound by pointer and must be in the method's dim order");
    Tensor saved = t;
    t.data = nullptr;  // resize_tensor checks capacity only for tensors with data
    if (!resize_tensor(t, src.sizes, src.dim)) {
      t = saved;
      return input_mismatch(ErrorCode::InputShape, index, "cannot resize to " + got());
    }
    t.data = src.data;
    t.capacity = value.capacity > nbytes ? value.capacity : nbytes;
  }
  input_set_[index] = 1;
  return Status::ok();
}

Status MethodImpl::set_input(size_t index, const EValue& value) {
  if (value.tag == Tag::Tensor) {
    if (!value.t) return Status::error(ErrorCode::InputKind, prefix_ + ": input " + num(static_cast<int64_t>(index)) + ": tensor value without a tensor");
    return set_input(index, *value.t);
  }
  if (index >= inputs_.size())
    return Status::error(ErrorCode::InputIndex, prefix_ + ": input index " + num(static_cast<int64_t>(index)) + " out of range (the method takes " +
                         num(static_cast<int64_t>(inputs_.size())) + " inputs: " + signature_string(info_) + ")");
  const EValue& want = values_[inputs_[index]];
  const ValueInfo& vi = info_.inputs[index];
  auto mismatch = [&](const std::string& got) {
    return input_mismatch(ErrorCode::InputKind, index, "expected " + entry(vi, true) + " (baked in at export), got " + got);
  };
  auto got_str = [&]() -> std::string {
    switch (value.tag) {
      case Tag::Int: return "int=" + num(value.i);
      case Tag::Double: return "float=" + fmt_double(value.d);
      case Tag::Bool: return std::string("bool=") + (value.b ? "true" : "false");
      case Tag::String: return "str=\"" + std::string(value.string()) + "\"";
      default: return tag_name(value.tag);
    }
  };
  switch (want.tag) {
    case Tag::Tensor: return mismatch(got_str());
    case Tag::None:
      if (value.tag != Tag::None) return mismatch(got_str());
      break;
    case Tag::Int:
      if (value.tag != Tag::Int || value.i != want.i) return mismatch(got_str());
      break;
    case Tag::Bool:
      if (value.tag != Tag::Bool || value.b != want.b) return mismatch(got_str());
      break;
    case Tag::Double: {
      if (value.tag != Tag::Double && value.tag != Tag::Int) return mismatch(got_str());
      double g = value.tag == Tag::Double ? value.d : static_cast<double>(value.i);
      if (!(std::fabs(g - want.d) <= 1e-4 + 1e-5 * std::fabs(want.d))) return mismatch(got_str());
      break;
    }
    case Tag::String:
      if (value.tag != Tag::String || value.string() != want.string()) return mismatch(got_str());
      break;
    default:
      return mismatch(got_str() + " (inputs of this kind cannot be set)");
  }
  input_set_[index] = 1;
  return Status::ok();
}

// ---------------------------------------------------------------- execution

bool MethodImpl::inputs_have_data(const Instr& in) const {
  for (uint32_t k = 0; k < in.nchecks; ++k) {
    const EValue* e = checks_[in.check_begin + k];
    if (e->tag == Tag::Tensor && !e->t->data && e->t->numel() > 0) {
      std::snprintf(err_scratch_, sizeof(err_scratch_), "input value %td (a %s tensor) has no data: nothing wrote it before this call",
                    e - values_.data(), dtype_name(e->t->dtype));
      return false;
    }
  }
  return true;
}

namespace {
int64_t clock_ns(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

uint64_t MethodImpl::input_signature() const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the input tensors' sizes
  for (int32_t v : inputs_) {
    const EValue& e = values_[v];
    if (e.tag != Tag::Tensor) continue;
    for (int d = 0; d < e.t->dim; ++d) h = (h ^ static_cast<uint64_t>(e.t->sizes[d])) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
  }
  return h;
}

Status MethodImpl::execute() {
  // Share work with helper threads, or run alone: the method's own measurements decide
  // (interpreter/thread_policy.h), once per call.
  if (!threadpool_ || !adaptive_threads_) return execute_calls();
  const bool share = thread_policy_.share(input_signature());
  ctx_.threadpool = share ? threadpool_ : nullptr;
  ctx_.claim_threads = share ? claim_threads_ : 1;
  // the thread's CPU clock (a system call) only for calls long enough to share work
  const bool cpu = last_wall_ns_ >= 200'000;
  const int64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = cpu ? clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
  Status st = execute_calls();
  const int64_t c1 = cpu ? clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0, w1 = clock_ns(CLOCK_MONOTONIC);
  last_wall_ns_ = w1 - w0;
  if (st.is_ok()) thread_policy_.record(w1 - w0, cpu ? c1 - c0 : -1);
  ctx_.threadpool = threadpool_;
  ctx_.claim_threads = claim_threads_;
  return st;
}

Status MethodImpl::execute_calls() {
  for (size_t k = 0; k < inputs_.size(); ++k)
    if (!input_set_[k])
      return error(ErrorCode::InputNotSet, "input %zu was never set (the method is %s)", k, signature_string(info_).c_str());

  uint64_t executed = 0;
  const size_t nchains = chain_begin_.empty() ? 0 : chain_begin_.size() - 1;
  for (size_t c = 0; c < nchains; ++c) {
    const uint32_t begin = chain_begin_[c], end = chain_begin_[c + 1];
    uint32_t pc = begin;
    while (pc < end) {
      if (++executed > kMaxExecutedInstructions)
        return error(ErrorCode::InstructionLimit, "stopped after %llu instructions (a jump loop that never ends?)",
                     static_cast<unsigned long long>(kMaxExecutedInstructions));
      const Instr& in = instrs_[pc];
      const uint32_t local = pc - begin;
      switch (in.kind) {
        case Instr::Kernel: {
          if (in.nchecks && !inputs_have_data(in))
            return error(ErrorCode::KernelFailed, "instruction %u (%s): %s", local, op_names_[in.index].c_str(), err_scratch_);
          ctx_.reset();
          ctx_.op_state = in.state;
          bool ok;
          if (profiling_) [[unlikely]] {
            auto t0 = std::chrono::steady_clock::now();
            ok = in.fn(ctx_, args_.data() + in.arg_begin);
            prof_ms_[pc] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            ++prof_calls_[pc];
          } else {
            ok = in.fn(ctx_, args_.data() + in.arg_begin);
          }
          if (!ok || ctx_.failed())
            return error(ErrorCode::KernelFailed, "instruction %u (%s): %s", local, op_names_[in.index].c_str(),
                         ctx_.failed() ? ctx_.message() : "the kernel failed without a message");
          if (observer_ && !observe(c, local, in)) [[unlikely]]
            return error(ErrorCode::Stopped, "instruction %u (%s): stopped by the observer", local, op_names_[in.index].c_str());
          ++pc;
          break;
        }
        case Instr::Delegate: {
          if (in.nchecks && !inputs_have_data(in))
            return error(ErrorCode::DelegateExecuteFailed, "instruction %u (delegate %u, %s): %s", local, in.index, delegate_ids_[in.index].c_str(), err_scratch_);
          ctx_.reset();
          auto t0 = profiling_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
          bool ok = backends_[in.index]->execute(ctx_, args_.data() + in.arg_begin, in.nargs);
          if (profiling_) [[unlikely]] {
            prof_ms_[pc] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            ++prof_calls_[pc];
          }
          if (!ok || ctx_.failed())
            return error(ErrorCode::DelegateExecuteFailed, "instruction %u (delegate %u, %s): %s", local, in.index, delegate_ids_[in.index].c_str(),
                         ctx_.failed() ? ctx_.message() : "the backend failed without a message");
          if (observer_ && !observe(c, local, in)) [[unlikely]]
            return error(ErrorCode::Stopped, "instruction %u (delegate %u, %s): stopped by the observer", local, in.index,
                         delegate_ids_[in.index].c_str());
          ++pc;
          break;
        }
        case Instr::Move:
          values_[in.b] = values_[in.a];
          ++pc;
          break;
        case Instr::JumpFalse: {
          const EValue& cond = values_[in.a];
          bool truth;
          if (cond.tag == Tag::Bool) {
            truth = cond.b;
          } else if (cond.tag == Tag::Tensor && cond.t->dtype == DType::Bool) {
            truth = true;
            const Tensor& t = *cond.t;
            int64_t n = t.numel();
            if (n > 0 && !t.data) return error(ErrorCode::KernelFailed, "instruction %u (jump): the condition tensor has no data", local);
            for (int64_t i = 0; i < n && truth; ++i) truth = static_cast<const uint8_t*>(t.data)[strided_offset(t, i)] != 0;
          } else {
            return error(ErrorCode::KernelFailed, "instruction %u (jump): the condition is a %s, not a Bool", local,
                         cond.tag == Tag::Tensor ? dtype_name(cond.t->dtype) : tag_name(cond.tag));
          }
          pc = truth ? pc + 1 : static_cast<uint32_t>(in.b);
          break;
        }
        case Instr::Free:
          ++pc;  // planned memory is never freed
          break;
      }
    }
  }
  return Status::ok();
}

bool MethodImpl::observe(size_t chain, uint32_t local, const Instr& in) {
  InstructionEvent e;
  e.chain = chain;
  e.instruction = local;
  e.delegate = in.kind == Instr::Delegate;
  e.name = e.delegate ? delegate_ids_[in.index].c_str() : op_names_[in.index].c_str();
  e.args = args_.data() + in.arg_begin;
  e.nargs = in.nargs;
  return observer_(observer_user_, e);
}

void MethodImpl::set_profiling(bool on) {
  profiling_ = on;
  prof_ms_.assign(instrs_.size(), 0.0);
  prof_calls_.assign(instrs_.size(), 0);
  for (auto& b : backends_)
    if (b) b->set_profiling(on);
}

std::vector<OpTiming> MethodImpl::profile() const {
  std::vector<OpTiming> out;
  for (size_t pc = 0; pc < prof_calls_.size() && pc < instrs_.size(); ++pc) {
    if (!prof_calls_[pc]) continue;
    const Instr& in = instrs_[pc];
    add_op_timing(&out, in.kind == Instr::Kernel ? op_names_[in.index] : "delegate " + delegate_ids_[in.index], prof_ms_[pc],
                  prof_calls_[pc]);
  }
  // inside the delegates (part of their entries above; the names never meet those):
  // "XnnpackBackend > XNNFullyConnected qdint8 1536x576"
  std::vector<OpTiming> nodes;
  for (size_t d = 0; d < backends_.size(); ++d) {
    if (!backends_[d]) continue;
    nodes.clear();
    backends_[d]->profile(&nodes);
    for (const auto& n : nodes) add_op_timing(&out, delegate_ids_[d] + " > " + n.name, n.total_ms, n.calls);
  }
  return out;
}

const EValue& MethodImpl::output(size_t index) const {
  static const EValue kNone;
  if (index >= outputs_.size()) return kNone;
  return values_[outputs_[index]];
}

}  // namespace pte
