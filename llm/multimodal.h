// pte-run: decoders that take embeddings, as optimum-executorch exports image+text and
// audio+text models (task "image-text-to-text", e.g. Gemma3 with its vision tower):
//   token_embedding(input_ids i64[1,S])                       -> f32[1,S,H]
//   text_decoder(inputs_embeds f32[1,S,H], cache_position i64[S]) -> logits [1,S,V]
//   vision_encoder(input_features f32[1,3,h,w])               -> f32[1,N,H]  (or audio_encoder)
// with the KV cache in the decoder's mutable buffers and constant methods (get_max_seq_len,
// vision_token_id / audio_token_id, ...). TextRunner (runner.h) drives the decoder; this part
// turns token ids into the decoder's input rows, and in a prompt with media gives the media
// tokens the encoder's rows instead (transformers' masked_scatter of the image features).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pte/program.h"
#include "pte/tokenizer.h"

namespace pte {

// One image (or audio clip) through the encoder: `tokens` rows of the decoder's width.
struct MediaEmbedding {
  std::vector<float> rows;
  int64_t tokens = 0;
};

struct MultimodalInfo {
  std::string modality;        // "vision" or "audio"; empty: no encoder (text only)
  std::string encoder_method;  // vision_encoder / audio_encoder
  int64_t media_token_id = -1; // the prompt's placeholder token (vision_token_id / audio_token_id)
  std::vector<int64_t> encoder_input_sizes;  // the encoder's input 0 (upper bounds when dynamic)
  int64_t item_tokens = 0;     // tokens per item when the encoder's output length is fixed, else 0
  int64_t hidden = 0;          // H
  int64_t max_chunk = 0;       // token_embedding's longest input
};

class EmbeddingFront {
 public:
  // The program has token_embedding and text_decoder methods.
  static bool present(const ProgramInfo& info);
  // The decoder method it feeds.
  static const char* decoder_method() { return "text_decoder"; }
  static Status create(Program& program, const Program::MethodOptions& options, std::unique_ptr<EmbeddingFront>* out);

  const MultimodalInfo& info() const { return info_; }

  // Runs the encoder on one input (its sizes; float32 data of that many elements).
  Status encode(const float* data, const std::vector<int64_t>& sizes, MediaEmbedding* out);

  // The decoder's input rows for ids[0..n) into out (n x H floats). When `media` is given,
  // each media token takes the next of its rows (*used counts them) instead of its embedding.
  Status embed(const int32_t* ids, int64_t n, const std::vector<float>* media, int64_t* used, float* out);

  // The prompt text with each media placeholder expanded to the encoder's token count, as
  // the model's processor does: Gemma3 style (the chat template writes the begin-of-image
  // token; it becomes "\n\n" boi image*N eoi "\n\n"), else the media token itself written by
  // the template becomes N of it. `boi` / `eoi` are empty when the model has none.
  static Status expand_placeholders(const std::string& text, const std::vector<int64_t>& tokens_per_item,
                                    const std::string& media_token, const std::string& boi, const std::string& eoi,
                                    std::string* out);

 private:
  MultimodalInfo info_;
  std::unique_ptr<Method> embedding_, encoder_;
  std::vector<int64_t> ids_buf_;
};

}  // namespace pte
