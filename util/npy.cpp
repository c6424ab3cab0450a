// pte-run tools: .npy reader and writer (see npy.h).
#include "util/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pte::util {

namespace {

struct DescrRow {
  const char* descr;
  DType dtype;
};
// The first entry for a dtype is the one we write.
constexpr DescrRow kDescrs[] = {
    {"<f4", DType::Float},   {"<f8", DType::Double},  {"<f2", DType::Half},    {"<i8", DType::Int64},
    {"<i4", DType::Int32},   {"<i2", DType::Int16},   {"|i1", DType::Int8},    {"|u1", DType::UInt8},
    {"|b1", DType::Bool},    {"<u2", DType::UInt16},  {"<u4", DType::UInt32},  {"<u8", DType::UInt64},
    {"<V2", DType::BFloat16},
    // Accepted spellings of the same types.
    {"<i1", DType::Int8},    {"<u1", DType::UInt8},   {"<b1", DType::Bool},    {"|V2", DType::BFloat16},
    {"=f4", DType::Float},   {"=f8", DType::Double},  {"=f2", DType::Half},    {"=i8", DType::Int64},
    {"=i4", DType::Int32},   {"=i2", DType::Int16},   {"=u2", DType::UInt16},  {"=u4", DType::UInt32},
    {"=u8", DType::UInt64},  {"|i1", DType::Int8},    {"=i1", DType::Int8},    {"=u1", DType::UInt8},
    {"=b1", DType::Bool},    {"?", DType::Bool},
};

std::string num(uint64_t v) { return std::to_string(v); }

// A tiny reader for the header: a Python dict literal of strings, booleans and
// tuples of integers, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  HeaderParser(const char* p, size_t n) : p_(p), end_(p + n) {}

  void skip() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skip();
    return p_ < end_ && *p_ == c;
  }
  bool string(std::string* out) {
    skip();
    if (p_ >= end_ || (*p_ != '\'' && *p_ != '"')) return false;
    char q = *p_++;
    out->clear();
    while (p_ < end_ && *p_ != q) {
      if (*p_ == '\\') return false;  // numpy never escapes in these fields
      out->push_back(*p_++);
    }
    if (p_ >= end_) return false;
    ++p_;
    return true;
  }
  bool word(const char* w) {
    skip();
    size_t n = std::strlen(w);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, w, n) != 0) return false;
    p_ += n;
    return true;
  }
  bool integer(int64_t* out) {
    skip();
    const char* s = p_;
    uint64_t v = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      uint64_t d = static_cast<uint64_t>(*p_ - '0');
      if (v > (static_cast<uint64_t>(INT64_MAX) - d) / 10) return false;
      v = v * 10 + d;
      ++p_;
    }
    if (p_ < end_ && *p_ == 'L') ++p_;  // Python 2 longs
    *out = static_cast<int64_t>(v);
    return p_ != s;
  }
  bool at_end() {
    skip();
    return p_ == end_;
  }

 private:
  const char* p_;
  const char* end_;
};

}  // namespace

const char* npy_descr(DType dtype) {
  for (const auto& r : kDescrs)
    if (r.dtype == dtype) return r.descr;
  return nullptr;
}

Status npy_parse(const uint8_t* data, size_t size, const std::string& name, HostTensor* out) {
  auto bad = [&](const std::string& why) { return Status::error(name + ": " + why); };
  static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(data, kMagic, 6) != 0) return bad("not a .npy file (no \\x93NUMPY magic)");
  uint8_t major = data[6], minor = data[7];
  size_t header_len = 0, prefix = 0;
  if (major == 1) {
    header_len = static_cast<size_t>(data[8]) | static_cast<size_t>(data[9]) << 8;
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return bad("file too short for a version " + num(major) + " header");
    header_len = static_cast<size_t>(data[8]) | static_cast<size_t>(data[9]) << 8 | static_cast<size_t>(data[10]) << 16 |
                 static_cast<size_t>(data[11]) << 24;
    prefix = 12;
  } else {
    return bad("unsupported .npy format version " + num(major) + "." + num(minor) + " (this build reads 1.0, 2.0, 3.0)");
  }
  if (header_len > size - prefix)
    return bad("header of " + num(header_len) + " bytes exceeds the file (" + num(size) + " bytes): truncated?");
  HeaderParser p(reinterpret_cast<const char*>(data + prefix), header_len);
  bool have_descr = false, have_order = false, have_shape = false, fortran = false;
  std::string descr;
  std::vector<int64_t> shape;
  if (!p.eat('{')) return bad("malformed header (expected a dict literal)");
  while (!p.eat('}')) {
    std::string key;
    if (!p.string(&key) || !p.eat(':')) return bad("malformed header (expected 'key': value)");
    if (key == "descr") {
      if (p.peek('[')) return bad("structured dtypes are not supported");
      if (!p.string(&descr)) return bad("malformed header (descr is not a string)");
      have_descr = true;
    } else if (key == "fortran_order") {
      if (p.word("True")) fortran = true;
      else if (p.word("False")) fortran = false;
      else return bad("malformed header (fortran_order is not True/False)");
      have_order = true;
    } else if (key == "shape") {
      if (!p.eat('(')) return bad("malformed header (shape is not a tuple)");
      while (!p.eat(')')) {
        int64_t v;
        if (!p.integer(&v)) return bad("malformed header (shape entries must be non-negative integers)");
        shape.push_back(v);
        if (!p.eat(',') && !p.peek(')')) return bad("malformed header (shape tuple)");
      }
      have_shape = true;
    } else {
      return bad("unexpected header key '" + key + "'");
    }
    if (!p.eat(',') && !p.peek('}')) return bad("malformed header (expected ',' or '}')");
  }
  if (!p.at_end()) return bad("malformed header (text after the dict)");
  if (!have_descr || !have_order || !have_shape) return bad("header lacks one of 'descr', 'fortran_order', 'shape'");
  if (fortran) return bad("fortran_order=True arrays are not supported (save a C-contiguous array: np.ascontiguousarray)");
  const DescrRow* row = nullptr;
  for (const auto& r : kDescrs)
    if (descr == r.descr) row = &r;
  if (!row) {
    if (!descr.empty() && descr[0] == '>') return bad("big-endian dtype '" + descr + "' is not supported (use .astype('<" + descr.substr(1) + "'))");
    return bad("unsupported dtype '" + descr + "'");
  }
  if (shape.size() > static_cast<size_t>(kMaxDims)) return bad("rank " + num(shape.size()) + " exceeds " + num(kMaxDims));
  size_t es = dtype_size(row->dtype);
  uint64_t n = 1;
  for (int64_t s : shape) {
    if (s != 0 && n > (UINT64_MAX / es) / static_cast<uint64_t>(s)) return bad("shape is too large");
    n *= static_cast<uint64_t>(s);
  }
  uint64_t nbytes = n * es;
  size_t offset = prefix + header_len;
  size_t remain = size - offset;
  if (nbytes > remain)
    return bad(shape_string(row->dtype, shape.data(), shape.size()) + " needs " + num(nbytes) + " data bytes, the file has " + num(remain) +
               ": truncated?");
  if (nbytes < remain) return bad(num(remain - nbytes) + " unexpected bytes after the array data");
  out->dtype = row->dtype;
  out->shape = std::move(shape);
  out->bytes.assign(data + offset, data + offset + nbytes);
  return Status::ok();
}

Status npy_read(const std::string& path, HostTensor* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> buf;
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
  bool err = std::ferror(f);
  std::fclose(f);
  if (err) return Status::error(path + ": read error");
  return npy_parse(buf.data(), buf.size(), path, out);
}

std::vector<uint8_t> npy_encode(const HostTensor& t) {
  const char* descr = npy_descr(t.dtype);
  std::string h = "{'descr': '";
  h += descr ? descr : "|V1";
  h += "', 'fortran_order': False, 'shape': (";
  for (size_t k = 0; k < t.shape.size(); ++k) {
    h += num(static_cast<uint64_t>(t.shape[k]));
    if (t.shape.size() == 1 || k + 1 < t.shape.size()) h += ",";
    if (k + 1 < t.shape.size()) h += " ";
  }
  h += "), }";
  size_t prefix = 10;
  size_t total = prefix + h.size() + 1;
  if ((total + 63) / 64 * 64 - prefix > 65535) prefix = 12;
  total = prefix + h.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  h.append(padded - total, ' ');
  h += '\n';
  std::vector<uint8_t> out;
  out.reserve(padded + t.bytes.size());
  const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  out.insert(out.end(), magic, magic + 6);
  size_t hl = h.size();
  if (prefix == 10) {
    out.push_back(1);
    out.push_back(0);
    out.push_back(static_cast<uint8_t>(hl & 0xff));
    out.push_back(static_cast<uint8_t>(hl >> 8));
  } else {
    out.push_back(2);
    out.push_back(0);
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(hl >> (8 * k)));
  }
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), t.bytes.begin(), t.bytes.end());
  return out;
}

Status npy_write(const std::string& path, const HostTensor& t) {
  if (!npy_descr(t.dtype)) return Status::error(path + ": dtype " + dtype_name(t.dtype) + " has no .npy form");
  std::vector<uint8_t> bytes = npy_encode(t);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status::error(path + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) return Status::error(path + ": write error");
  return Status::ok();
}

}  // namespace pte::util
