// The KV cache of a loaded decoder method, as one object for every runner.
//
// Where it lives is found at attach time. Today: the method's persistent state
// (Method::state_tensors: mutable buffers that the program reads before writing, as
// transformers' and optimum-executorch's static-cache exports and ExecuTorch's LLM
// export keep their caches). Each tensor's position dimension is the one whose size
// is the context length. The runner tells the cache how many positions it filled;
// rewinding zeroes the positions given back, so a rewound cache holds exactly what it
// held before those positions were written.
//
// Not yet: caches passed as method inputs and returned as outputs, and sliding-window
// layers kept as ring buffers (their position is not the slot index).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pte/program.h"

namespace pte {

struct CacheTensor {
  size_t value = 0;        // index in the method's value table
  Tensor* tensor = nullptr;
  int position_dim = -1;   // the dimension indexed by position (-1: none found)
  size_t bytes = 0;
};

class KvCache {
 public:
  // `context_len`: positions the program's cache holds (get_max_context_len). A method
  // without persistent state gets an empty cache (positions are still counted).
  static Status attach(Method& method, int64_t context_len, std::unique_ptr<KvCache>* out);

  // "mutable buffers" or "none found"
  std::string where() const { return tensors_.empty() ? "none found" : "mutable buffers"; }
  const std::vector<CacheTensor>& tensors() const { return tensors_; }
  // Key/value pairs: tensors / 2 when they pair up (the exporters keep one K and one V
  // per layer).
  int layers() const { return static_cast<int>(tensors_.size() / 2); }
  size_t bytes() const;
  int64_t capacity() const { return capacity_; }
  int64_t length() const { return length_; }

  // The runner wrote positions [length, length + n).
  void advance(int64_t n) { length_ += n; }
  // Forget everything: length 0, contents zeroed.
  void reset();
  // Back to `pos` <= length: positions [pos, capacity) are zeroed.
  Status rewind(int64_t pos);

  // Empty when rewind / save / restore work; else why not (a state tensor without a
  // dimension of the context length: generation still runs, reset still works).
  const std::string& unsupported() const { return unsupported_; }

  // Contents of positions [0, length) of every tensor, in tensor order (empty when
  // unsupported()).
  std::vector<uint8_t> save() const;
  // Puts back what save() gave for `length` positions (the sizes must match).
  Status restore(const uint8_t* data, size_t size, int64_t length);
  // Bytes save() writes for `length` positions.
  size_t saved_bytes(int64_t length) const;

 private:
  // per tensor: bytes before the position dim (outer count) and per position (inner bytes)
  void geometry(const CacheTensor& c, size_t* outer, size_t* inner) const;
  std::vector<CacheTensor> tensors_;
  int64_t capacity_ = 0;
  int64_t length_ = 0;
  std::string unsupported_;
};

}  // namespace pte
