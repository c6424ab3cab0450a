// The inputs of ExecuTorch's static-attention Llama export, built per call.
//
// That export (examples/models/llama/static_attention.py, attention "static_mha", the
// "smart_mask" cache style, as examples/apple/coreml/llama/export_static_llm_coreml.py
// writes it as a single method) runs a fixed number of tokens per call (IN, padded) and
// takes everything a KV cache program usually computes itself as inputs:
//   forward(tokens i32|i64[1,IN], masks f32[1,IN,IN+C]..., freqs_cos [IN,R], freqs_sin [IN,R],
//           k caches [1,KV,C,D]..., v caches [1,KV,C,D]...)
//     -> (logits [1,IN,V], new keys [1,KV,IN,D]..., new values [1,KV,IN,D]...)
// (the order of the inputs is whatever torch.export's flattening gave; the program says it).
// The program describes this I/O in constant methods, which are what we read:
//   forward_input_len IN; kv_cache_specs i64[L,5] = [k_in, k_out, v_in, v_out, C] per layer;
//   mask_specs i64[M,2] = [input, C]; freqs_cos / freqs_sin [context, R] (the RoPE tables);
//   freqs_cos_input_index / freqs_sin_input_index i64[1].
// Per call writing positions [pos, pos + n), n <= IN: the tokens padded with 0 to IN; each
// mask row i allows cache slots [0, pos) and the call's own columns j <= i (others -inf);
// the RoPE rows pos .. pos + IN - 1. The caches are the KV cache component's (kv_cache.h,
// fed in place); after the call it writes the first n new keys and values at slot pos
// (smart_mask: slot p holds position p), so rewind, save and restore work as for any cache
// passed as inputs. The logits row of the last real token is n - 1. The cache holds C
// positions; a program whose inputs or constant methods do not fit this is refused at load
// with one line. Caches kept per layer ([1,KV,C,D], "static_mha") or per layer and KV head
// ([1,C,D], split MHA, "static"; n_heads_per_cache heads a layer) both run. Refused: sliding-
// window layers (a second cache length), the two-method prefill/decode export (its constants
// are named decode_* / prefill_*; it also takes last_valid_token_pos). Not detectable, so
// not run correctly: the "shift_pointer" cache style (the constants do not name the style;
// that export writes "smart_mask").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cache/kv_cache.h"
#include "pte/program.h"

namespace pte {

class StaticAttention {
 public:
  // True when the program has the constant methods of the static-attention export for
  // method `method` ("forward"): forward_input_len and kv_cache_specs.
  static bool present(const ProgramInfo& info, const std::string& method);
  // Non-empty when the program is a form of the static-attention export pte-run does not
  // run (the two-method prefill/decode one): why, in one line.
  static std::string other_form(const ProgramInfo& info);
  // The cache inputs kv_cache_specs names (for MethodOptions::inputs_by_pointer); empty
  // when absent or unreadable.
  static std::vector<size_t> cache_inputs(const ProgramInfo& info, const std::string& method);
  // Reads and checks the constant methods against the loaded method's signature.
  static Status attach(const ProgramInfo& info, Method& method, std::unique_ptr<StaticAttention>* out);
  // The KV cache of a loaded method, found as the runner finds it: through the
  // static-attention constant methods when present (capacity: their cache length), else
  // KvCache::attach with `context_len`. `capacity` gets the positions the cache holds.
  static Status attach_cache(const ProgramInfo& info, Method& method, int64_t context_len, std::unique_ptr<KvCache>* out,
                             int64_t* capacity);

  int64_t input_len() const { return input_len_; }
  int64_t cache_len() const { return cache_len_; }
  // (input, output) of every cache tensor: the keys of each layer, then the values
  const std::vector<std::pair<size_t, size_t>>& cache_io() const { return cache_io_; }
  // The KV cache of these inputs (KvCache::attach with cache_io(), its layers counted per
  // head for split-MHA caches).
  Status attach_kv(Method& method, std::unique_ptr<KvCache>* out) const;
  // Sets the tokens, masks and RoPE rows for a call writing positions [pos, pos + n).
  Status set_inputs(Method& method, const int32_t* ids, int64_t n, int64_t pos);

 private:
  struct Buffer {
    size_t input = 0;
    std::vector<uint64_t> storage;  // 8-byte aligned
    Tensor tensor;
  };
  Status make_buffer(const MethodInfo& mi, size_t input, Buffer* b);
  int64_t input_len_ = 0, cache_len_ = 0;
  int tensors_per_layer_ = 2;  // 2 * KV heads for caches kept per head
  std::vector<std::pair<size_t, size_t>> cache_io_;
  Buffer tokens_, cos_, sin_;
  std::vector<Buffer> masks_;
  // the RoPE tables in the file (rows of row_bytes_), dtype of the freqs inputs
  const uint8_t* cos_table_ = nullptr;
  const uint8_t* sin_table_ = nullptr;
  int64_t table_rows_ = 0;
  size_t row_bytes_ = 0;
};

}  // namespace pte
