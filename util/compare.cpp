// pte-run tools: comparing computed values with references (see compare.h).
#include "util/compare.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace pte::util {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

// One pair of floating values: returns true when within tolerance; adds to the error sums.
bool close(double a, double b, const CompareOptions& o, double* abs_err) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) {
    *abs_err = an && bn ? 0 : kInf;
    return an && bn;
  }
  if (std::isinf(a) || std::isinf(b)) {
    bool same = a == b;
    *abs_err = same ? 0 : kInf;
    return same;
  }
  *abs_err = std::fabs(a - b);
  return *abs_err <= o.atol + o.rtol * std::fabs(b);
}

}  // namespace

CompareResult compare_tensors(const HostTensor& a, const HostTensor& b, const CompareOptions& o) {
  CompareResult r;
  if (a.dtype != b.dtype || a.shape != b.shape) {
    r.message = "got " + shape_string(a) + ", expected " + shape_string(b);
    r.max_abs_err = kInf;
    r.nmse = kInf;
    return r;
  }
  size_t es = a.elem_size();
  int64_t n = a.numel();
  if (a.bytes.size() != static_cast<size_t>(n) * es || b.bytes.size() != static_cast<size_t>(n) * es) {
    r.message = "data size does not match " + shape_string(a);
    r.max_abs_err = kInf;
    return r;
  }
  bool floating = is_floating(a.dtype) && !(a.dtype == DType::BFloat16 && o.bf16_bytewise);
  double sum_d2 = 0, sum_b2 = 0;
  int64_t first_bad = -1;
  for (int64_t i = 0; i < n; ++i) {
    double av = element_as_double(a.dtype, a.bytes.data(), i);
    double bv = element_as_double(b.dtype, b.bytes.data(), i);
    double err;
    bool good;
    if (floating) {
      good = close(av, bv, o, &err);
    } else {
      good = std::memcmp(a.bytes.data() + i * es, b.bytes.data() + i * es, es) == 0;
      err = good ? 0 : (std::isnan(av) || std::isnan(bv) ? kInf : std::fabs(av - bv));
      if (!good && err == 0) err = kInf;  // differing bits that decode equal (e.g. NaN payloads)
    }
    if (err > r.max_abs_err || std::isnan(err)) r.max_abs_err = err;
    if (std::isfinite(av) && std::isfinite(bv)) {
      sum_d2 += (av - bv) * (av - bv);
      sum_b2 += bv * bv;
    } else if (err != 0) {
      sum_d2 = kInf;
    }
    if (!good) {
      ++r.mismatches;
      if (first_bad < 0) first_bad = i;
    }
  }
  r.nmse = sum_d2 == 0 ? 0 : sum_b2 == 0 ? kInf : sum_d2 / sum_b2;
  r.ok = r.mismatches == 0;
  if (!r.ok) {
    double av = element_as_double(a.dtype, a.bytes.data(), first_bad);
    double bv = element_as_double(b.dtype, b.bytes.data(), first_bad);
    r.message = std::to_string(r.mismatches) + " of " + std::to_string(n) + " elements differ; first at flat index " +
                std::to_string(first_bad) + ": got " + fmt(av) + ", expected " + fmt(bv);
  }
  return r;
}

std::string describe_value(const HostValue& v) {
  switch (v.tag) {
    case Tag::Tensor: return shape_string(v.tensor);
    case Tag::Int: return "int " + std::to_string(v.i);
    case Tag::Double: return "float " + fmt(v.d);
    case Tag::Bool: return v.b ? "bool true" : "bool false";
    case Tag::String: return "string \"" + v.s + "\"";
    case Tag::None: return "None";
    default: return tag_name(v.tag);
  }
}

CompareResult compare_values(const HostValue& a, const HostValue& b, const CompareOptions& o) {
  if (a.tag == Tag::Tensor && b.tag == Tag::Tensor) return compare_tensors(a.tensor, b.tensor, o);
  CompareResult r;
  if (a.tag != b.tag) {
    r.message = "got " + describe_value(a) + ", expected " + describe_value(b);
    r.max_abs_err = kInf;
    r.nmse = kInf;
    return r;
  }
  switch (a.tag) {
    case Tag::Int:
      r.ok = a.i == b.i;
      r.max_abs_err = std::fabs(static_cast<double>(a.i) - static_cast<double>(b.i));
      break;
    case Tag::Bool:
      r.ok = a.b == b.b;
      r.max_abs_err = r.ok ? 0 : 1;
      break;
    case Tag::Double:
      r.ok = close(a.d, b.d, o, &r.max_abs_err);
      break;
    case Tag::String: r.ok = a.s == b.s; r.max_abs_err = r.ok ? 0 : kInf; break;
    case Tag::None: r.ok = true; break;
    default: r.message = std::string("cannot compare values of type ") + tag_name(a.tag); return r;
  }
  if (a.tag == Tag::Int || a.tag == Tag::Double || a.tag == Tag::Bool) {
    double av = a.tag == Tag::Int ? static_cast<double>(a.i) : a.tag == Tag::Bool ? a.b : a.d;
    double bv = b.tag == Tag::Int ? static_cast<double>(b.i) : b.tag == Tag::Bool ? b.b : b.d;
    double d2 = (av - bv) * (av - bv);
    r.nmse = d2 == 0 ? 0 : bv == 0 ? kInf : d2 / (bv * bv);
  }
  if (!r.ok) {
    r.mismatches = 1;
    r.message = "got " + describe_value(a) + ", expected " + describe_value(b);
  }
  return r;
}

}  // namespace pte::util
