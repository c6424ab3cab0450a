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
// Sliding-window layers kept as ring buffers (optimum-executorch's and ExecuTorch's
// CustomRingKVCache: a [B, 2*window, H, D] cache whose slot of position p is p % (2*window),
// beside an int64 [2*window] state tensor holding the position each slot holds, -1 for
// none) are found by that positions tensor. Rewind forgets the slots holding positions at
// or past the target (positions -1, contents zeroed) and is refused when the window the
// next token attends to is no longer in the ring; save/restore keep the ring tensors whole.
//
// Caches passed as method inputs and returned as outputs (ExecuTorch's static-attention
// Llama export; a transformers decoder exported with past_key_values as inputs): every
// input after the token ids and positions must be a static tensor with a dimension of the
// context length, paired in order with the outputs after the logits (input 2 + k with
// output 1 + k, same dtype and rank). An output of the input's shape is the whole updated
// cache (copied back after each call, nothing copied when it already is the cache's
// memory); an output whose position dimension is shorter holds the call's new positions
// only (written into the cache at the call's position, as the static-attention runtime
// does). The cache owns these tensors (allocated once, at attach, from the static shapes)
// and sets them as the inputs before every call (feed), then takes the outputs back
// (take). Loaded with input_candidates() as MethodOptions::inputs_by_pointer, the method
// reads them in place (nothing copied in); else each call copies them into the arena.
// Inputs that do not pair up are refused at attach with one line naming them. ExecuTorch's
// full static-attention I/O (masks and RoPE tables as inputs between the caches, a fixed
// padded input length) names its cache inputs and outputs in constant methods:
// cache/static_attention.h reads them, builds the other inputs and attaches this cache with
// the pairs given. Not yet: shift-pointer caches, per-head caches, caches with a dynamic length.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pte/program.h"

namespace pte {

enum class CacheKind {
  Full,           // position p at index p of position_dim
  Ring,           // a sliding-window ring: position p at slot p % slots of position_dim
  RingPositions,  // int64 [slots]: the position each ring slot holds (-1: empty)
};

struct CacheTensor {
  size_t value = 0;        // index in the method's value table
  Tensor* tensor = nullptr;
  int position_dim = -1;   // the dimension indexed by position / slot (-1: none found)
  size_t bytes = 0;
  CacheKind kind = CacheKind::Full;
  // Caches passed as method inputs (-1: a state tensor of the method):
  int input = -1;          // the method input it is fed as
  int output = -1;         // the output that returns its update
  bool slice = false;      // the output holds the call's new positions only (else the whole cache)
  bool by_pointer = false; // the method reads it where it is (else set_input copies it into the arena)
};

class KvCache {
 public:
  // `context_len`: positions the program's cache holds (get_max_context_len). A method
  // without persistent state gets an empty cache (positions are still counted). Inputs
  // after the first two (token ids, positions) are caches passed as inputs.
  static Status attach(Method& method, int64_t context_len, std::unique_ptr<KvCache>* out);
  // The same with the input-passed caches named: (input, output) pairs, the output holding
  // the whole updated cache or its new positions (ExecuTorch's static-attention export,
  // cache/static_attention.h, where the masks and RoPE tables come between them).
  static Status attach(Method& method, int64_t context_len, const std::vector<std::pair<size_t, size_t>>& inputs_outputs,
                       std::unique_ptr<KvCache>* out);
  // The inputs that may be a KV cache passed as inputs (tensors after the token ids and
  // positions): load the method with them as MethodOptions::inputs_by_pointer, so feeding
  // the cache copies nothing.
  static std::vector<size_t> input_candidates(const MethodInfo& info);

  // "mutable buffers", "method inputs" (both, joined by "and", when a program has both) or
  // "none found"
  std::string where() const;
  // Tensors fed as method inputs (0 when the cache lives in mutable buffers).
  size_t input_tensors() const;
  // Before each call: sets the input-passed caches as the method's inputs.
  Status feed(Method& method) const;
  // After a call that wrote positions [pos, pos + n): takes the updated caches (or their
  // new positions) from the method's outputs.
  Status take(Method& method, int64_t pos, int64_t n);
  const std::vector<CacheTensor>& tensors() const { return tensors_; }
  // Layers: tensors / 2 when they pair up (the exporters keep one K and one V per layer),
  // tensors / (2 * heads) for caches kept per head.
  int layers() const { return static_cast<int>((tensors_.size() - ring_positions_tensors()) / tensors_per_layer_); }
  // Caches kept per layer and head (ExecuTorch's split-MHA static attention): 2 * heads
  // tensors a layer (default 2: one K and one V).
  void set_tensors_per_layer(int n) { tensors_per_layer_ = n > 0 ? n : 2; }
  // Layers kept as sliding-window rings, their window (positions a token attends to) and
  // slots (ring size, twice the window in the exporters' rings). 0 when none.
  int ring_layers() const;
  int64_t window() const { return window_; }
  int64_t ring_slots() const { return ring_slots_; }
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
  size_t ring_positions_tensors() const;
  // zero slot `slot` of every ring tensor
  void clear_ring_slot(int64_t slot);
  static Status attach(Method& method, int64_t context_len, const std::vector<std::pair<size_t, size_t>>* io,
                       std::unique_ptr<KvCache>* out);
  // takes the caches passed as inputs: (input, output) pairs
  Status attach_inputs(Method& method, const std::vector<std::pair<size_t, size_t>>& pairs);
  Status refuse_inputs(const MethodInfo& mi, const std::string& why) const;
  std::vector<CacheTensor> tensors_;
  // the input-passed caches' storage (8-byte aligned) and tensors
  std::vector<std::vector<uint64_t>> storage_;
  std::vector<std::unique_ptr<Tensor>> owned_;
  int64_t capacity_ = 0;
  int64_t length_ = 0;
  std::string unsupported_;
  int64_t window_ = 0, ring_slots_ = 0;
  int tensors_per_layer_ = 2;
};

}  // namespace pte
