// pte-run fuzzing: what one fuzz input does to the loader, shared by the libFuzzer
// target (fuzz_loader.cpp) and the regression replay in tests/loader_robustness_test.cpp.
//
// Input format: a program (.pte bytes), optionally followed by kPtdMarker and the
// bytes of one external data file (.ptd). The program is copied into an allocation
// of exactly its size (so ASan catches any read past its end), opened with
// Program::open_buffer, described (every field of info() is read, constant tensor
// bytes included) and every method is loaded. The .ptd half, when present, is
// handed to the loader as a file through a memfd.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pte/program.h"

namespace pte::fuzz {

inline constexpr std::string_view kPtdMarker = "\n--pte-run-ptd--\n";

struct Result {
  bool opened = false;
  size_t methods_loaded = 0;
  size_t load_failures = 0;
  // Set when a failing Status had an empty or multi-line message (a bug).
  std::string bad_message;
};

inline bool message_ok(const Status& s) {
  return !s.message().empty() && s.message().find('\n') == std::string::npos && s.message().find('\r') == std::string::npos;
}

// Reads every byte of every described value, so a dangling or out-of-range pointer
// in ProgramInfo is touched (ASan reports it).
inline size_t touch_info(const ProgramInfo& info) {
  size_t sum = info.segments.size() + info.path.size();
  for (const auto& m : info.methods) {
    sum += m.name.size() + m.operators.size() + m.delegates.size() + m.planned_buffers.size();
    for (const auto& op : m.operators) sum += op.name.size();
    for (const auto& d : m.delegates) sum += d.backend.size() + d.blob_bytes;
    for (const auto* list : {&m.inputs, &m.outputs})
      for (const auto& v : *list) {
        sum += v.string_value.size() + v.tensor.sizes.size() + v.tensor.dim_order.size();
        if (v.tag == Tag::Tensor && v.constant_data) {
          size_t bytes = dtype_size(v.tensor.dtype);
          for (int64_t d : v.tensor.sizes) bytes *= static_cast<size_t>(d);
          const auto* p = static_cast<const uint8_t*>(v.constant_data);
          for (size_t k = 0; k < bytes; ++k) sum += p[k];
        }
      }
  }
  return sum;
}

// A memfd holding `data`; "" when memfds are unavailable.
class MemFile {
 public:
  MemFile(const uint8_t* data, size_t n) {
    fd_ = ::memfd_create("pte-run-fuzz-ptd", MFD_CLOEXEC);
    if (fd_ < 0) return;
    size_t off = 0;
    while (off < n) {
      ssize_t w = ::write(fd_, data + off, n - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

inline Result exercise(const uint8_t* data, size_t size, bool load_methods = true) {
  Result r;
  std::string_view all(reinterpret_cast<const char*>(data), size);
  size_t split = all.rfind(kPtdMarker);
  size_t prog_n = split == std::string_view::npos ? size : split;
  std::unique_ptr<MemFile> ptd;
  OpenOptions options;
  if (split != std::string_view::npos) {
    size_t at = split + kPtdMarker.size();
    ptd = std::make_unique<MemFile>(data + at, size - at);
    if (!ptd->path().empty()) options.data_files.push_back(ptd->path());
  }
  // Exactly-sized copy (new[] is 16-aligned, so open_buffer does not copy again).
  std::unique_ptr<uint8_t[]> prog(new uint8_t[prog_n ? prog_n : 1]);
  if (prog_n) std::memcpy(prog.get(), data, prog_n);

  std::unique_ptr<Program> program;
  Status s = Program::open_buffer(prog.get(), prog_n, "fuzz.pte", options, &program);
  if (!s) {
    if (!message_ok(s)) r.bad_message = "open_buffer: '" + s.message() + "'";
    return r;
  }
  r.opened = true;
  volatile size_t sink = touch_info(program->info());
  (void)sink;
  if (!load_methods) return r;
  // One thread: a pool is not built from the file's content, and creating one per
  // load would dominate the time of a sweep.
  Program::MethodOptions mo;
  mo.num_threads = 1;
  for (const auto& m : program->info().methods) {
    std::unique_ptr<Method> method;
    Status ls = program->load_method(m.name, mo, &method);
    if (ls) {
      ++r.methods_loaded;
      if (!method && r.bad_message.empty()) r.bad_message = "load_method returned ok without a method";
      // Loadable with the file's plan: our lifetime re-planner must cope with it too.
      method.reset();
      Program::MethodOptions ro = mo;
      ro.replan_memory = true;
      Status rs = program->load_method(m.name, ro, &method);
      if (!rs && !message_ok(rs) && r.bad_message.empty()) r.bad_message = "load_method (re-planned): '" + rs.message() + "'";
    } else {
      ++r.load_failures;
      if (!message_ok(ls) && r.bad_message.empty()) r.bad_message = "load_method: '" + ls.message() + "'";
    }
  }
  return r;
}

}  // namespace pte::fuzz
