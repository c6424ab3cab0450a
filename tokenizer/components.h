// pte-run tokenizers: the pipeline stages of a Hugging Face tokenizer.json.
//
//   text -> added tokens split out -> normalizer -> pre-tokenizer -> model -> post-processor
//   ids  -> tokens -> decoder -> text
//
// Each stage is built from its JSON object by a make_* function that returns a
// clear error for an unknown or malformed component. Behaviour follows the
// reference library (huggingface/tokenizers) component by component.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pte/status.h"
#include "tokenizer/regex.h"
#include "util/json.h"

namespace pte::tok {

// A piece of the input on its way through the pipeline: the reference's
// NormalizedString reduced to what changes token ids. `align` holds, for each code
// point, the byte offset in the original text of the character it comes from;
// `shift` is where the piece starts in the original text (Metaspace's
// prepend_scheme "first" looks at it).
struct Piece {
  std::u32string text;
  std::vector<uint32_t> align;
  uint32_t shift = 0;
  int32_t token = -1;  // >= 0: already a token (an added token)
};
using Pieces = std::vector<Piece>;

// [a, b) of p, as the reference's NormalizedString::slice.
Piece slice_piece(const Piece& p, size_t a, size_t b);

// Pattern matches covering the whole text: (start, end, is_match) in order.
struct Match {
  size_t start, end;
  bool is_match;
};
// Regex pattern (the reference's Pattern for a regex): every match, gaps between.
void find_matches(const Regex& re, std::u32string_view text, std::vector<Match>* out);
// Character predicate pattern: every matching character is its own match.
template <class Pred>
void find_matches_pred(Pred pred, std::u32string_view text, std::vector<Match>* out) {
  out->clear();
  if (text.empty()) {
    out->push_back({0, 0, false});
    return;
  }
  size_t last = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (pred(text[i])) {
      if (last < i) out->push_back({last, i, false});
      out->push_back({i, i + 1, true});
      last = i + 1;
    }
  }
  if (last < text.size()) out->push_back({last, text.size(), false});
}

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };
Status parse_split_behavior(const json::Value& v, SplitBehavior* out);
// Splits p at `matches` per `behavior`; appends the non-empty parts to out.
void split_piece(const Piece& p, const std::vector<Match>& matches, SplitBehavior behavior, Pieces* out);

// ------------------------------------------------------------------ stages

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(Piece* p) const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits every piece that is not a token yet; drops empty pieces.
  virtual void pre_tokenize(Pieces* pieces) const = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  // Tokenizes one pre-tokenized word (UTF-8, non-empty) and appends the ids.
  virtual Status tokenize(std::string_view word, std::vector<int32_t>* ids) const = 0;
  virtual int32_t token_to_id(std::string_view token) const = 0;  // -1 when absent
  virtual const std::string* id_to_token(int32_t id) const = 0;  // nullptr when absent
  virtual size_t size() const = 0;                              // number of entries (reference get_vocab_size)
  virtual int32_t max_id() const = 0;
  virtual const char* type() const = 0;
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  virtual void process(std::vector<int32_t>* ids, bool add_special_tokens) const = 0;
  virtual size_t added_tokens() const = 0;  // for truncation
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>* tokens) const = 0;
};

// Builders. `what` names the JSON field for messages ("normalizer", ...).
Status make_normalizer(const json::Value& v, std::unique_ptr<Normalizer>* out);
Status make_pre_tokenizer(const json::Value& v, std::unique_ptr<PreTokenizer>* out);
Status make_model(const json::Value& v, std::unique_ptr<Model>* out);
Status make_post_processor(const json::Value& v, std::unique_ptr<PostProcessor>* out);
Status make_decoder(const json::Value& v, std::unique_ptr<Decoder>* out);

// Shared helpers for the builders.
const std::string* json_string(const json::Value& obj, std::string_view key);
Status json_bool(const json::Value& obj, std::string_view key, bool dflt, bool* out);
Status compile_pattern(const json::Value& pattern, const char* what, Regex* out);  // {"String": s} | {"Regex": r}

// The GPT-2 byte <-> unicode mapping used by ByteLevel.
char32_t byte_to_char(uint8_t b);
int char_to_byte(char32_t c);  // -1 when c is not a byte-level character

}  // namespace pte::tok
