// pte-run tokenizers: llama2.c tokenizer.bin.
//
// File: int32 max_token_length, then for each token: float32 score, int32 byte
// length, the bytes (little-endian). Encoding follows llama2.c's run.c: optional
// BOS (id 1), a dummy-prefix " " token when the text is non-empty, one token per
// UTF-8 character (or its bytes as ids 3..258 when the character is not a token),
// then repeatedly merge the adjacent pair whose concatenation is the
// highest-scoring token (leftmost on ties) until no pair is a token.
#include <cstring>
#include <queue>
#include <unordered_map>

#include "tokenizer/impl.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

class Llama2c final : public Impl {
 public:
  Status load(std::string_view d) {
    auto rd32 = [&](size_t at, void* out) { std::memcpy(out, d.data() + at, 4); };
    if (d.size() < 4) return Status::error("too short for a llama2.c tokenizer.bin");
    int32_t maxlen;
    rd32(0, &maxlen);
    if (maxlen <= 0 || maxlen > 1 << 16) return Status::error("bad max_token_length " + std::to_string(maxlen));
    max_token_length_ = maxlen;
    size_t at = 4;
    while (at < d.size()) {
      if (d.size() - at < 8) return Status::error("truncated token record at byte " + std::to_string(at));
      float score;
      int32_t len;
      rd32(at, &score);
      rd32(at + 4, &len);
      at += 8;
      if (len < 0 || static_cast<size_t>(len) > d.size() - at)
        return Status::error("bad token length " + std::to_string(len) + " at byte " + std::to_string(at - 4));
      vocab_.emplace_back(d.substr(at, static_cast<size_t>(len)));
      scores_.push_back(score);
      at += static_cast<size_t>(len);
    }
    if (vocab_.size() < 259) return Status::error("a llama2.c tokenizer has at least 259 tokens (3 special + 256 bytes)");
    lookup_.reserve(vocab_.size() * 2);
    for (size_t i = 0; i < vocab_.size(); ++i) lookup_.emplace(vocab_[i], static_cast<int32_t>(i));  // first id wins
    bos_id = 1;
    eos_ids = {2};
    return Status::ok();
  }

  Status encode(std::string_view text, bool add_special, std::vector<int32_t>* ids) const override {
    ids->clear();
    std::vector<int32_t> t;
    if (add_special) t.push_back(1);
    if (!text.empty()) {
      int32_t space = find(" ");
      if (space < 0) return Status::error("tokenizer.bin has no \" \" token for the dummy prefix");
      t.push_back(space);
    }
    // One token per UTF-8 character (bytes grouped as run.c does), byte fallback otherwise.
    std::string buf;
    for (size_t i = 0; i < text.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(text[i]);
      if ((c & 0xC0) != 0x80) buf.clear();
      buf.push_back(static_cast<char>(c));
      bool next_cont = i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
      if (next_cont && buf.size() < 4) continue;
      int32_t id = find(buf);
      if (id >= 0) t.push_back(id);
      else
        for (unsigned char b : buf) t.push_back(static_cast<int32_t>(b) + 3);
      buf.clear();
    }
    merge(&t);
    *ids = std::move(t);
    return Status::ok();
  }

  std::string decode(const std::vector<int32_t>& ids, bool skip_special) const override {
    std::string bytes;
    int32_t prev = -1;
    for (int32_t id : ids) {
      if (id < 0 || static_cast<size_t>(id) >= vocab_.size()) continue;
      int32_t p = prev;
      prev = id;
      if (skip_special && is_special(id)) continue;
      const std::string& piece = vocab_[static_cast<size_t>(id)];
      size_t from = p == 1 && !piece.empty() && piece[0] == ' ' ? 1 : 0;
      int byte = byte_piece(piece);
      if (byte >= 0) bytes.push_back(static_cast<char>(byte));
      else bytes.append(piece, from, std::string::npos);
    }
    return utf8_lossy(bytes);
  }

  std::string id_to_token(int32_t id) const override {
    return id >= 0 && static_cast<size_t>(id) < vocab_.size() ? vocab_[static_cast<size_t>(id)] : std::string();
  }
  int32_t token_to_id(std::string_view token) const override { return find(token); }
  bool is_special(int32_t id) const override { return id >= 0 && id <= 2; }
  int32_t vocab_size() const override { return static_cast<int32_t>(vocab_.size()); }
  std::string kind() const override { return "llama2.c tokenizer.bin"; }

 private:
  int32_t find(std::string_view s) const {
    auto it = lookup_.find(std::string(s));
    return it == lookup_.end() ? -1 : it->second;
  }
  // run.c: sscanf(piece, "<0x%02hhX>", &byte) == 1
  static int byte_piece(const std::string& p) {
    if (p.size() < 4 || p.compare(0, 3, "<0x") != 0) return -1;
    auto h = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    };
    int a = h(p[3]);
    if (a < 0) return -1;
    if (p.size() > 4 && h(p[4]) >= 0) return a * 16 + h(p[4]);
    return a;
  }

  // Greedy best-score merges with a heap; same result as run.c's quadratic scan
  // (highest score first, leftmost on ties).
  void merge(std::vector<int32_t>* tp) const {
    auto& t = *tp;
    size_t n = t.size();
    if (n < 2) return;
    std::vector<int32_t> prev(n), next(n);
    std::vector<uint32_t> gen(n, 0);
    for (size_t i = 0; i < n; ++i) prev[i] = static_cast<int32_t>(i) - 1, next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
    struct E {
      float score;
      int32_t pos, id;
      uint32_t gl, gr;
      int32_t right;
      bool operator<(const E& o) const { return score != o.score ? score < o.score : pos > o.pos; }
    };
    std::priority_queue<E> q;
    std::string s;
    auto push = [&](int32_t i) {
      int32_t j = next[static_cast<size_t>(i)];
      if (i < 0 || j < 0) return;
      s = vocab_[static_cast<size_t>(t[static_cast<size_t>(i)])];
      s += vocab_[static_cast<size_t>(t[static_cast<size_t>(j)])];
      int32_t id = find(s);
      if (id < 0) return;
      float sc = scores_[static_cast<size_t>(id)];
      if (!(sc > -1e10f)) return;  // run.c starts its search at best_score = -1e10
      q.push({sc, i, id, gen[static_cast<size_t>(i)], gen[static_cast<size_t>(j)], j});
    };
    for (int32_t i = 0; i + 1 < static_cast<int32_t>(n); ++i) push(i);
    std::vector<bool> dead(n, false);
    while (!q.empty()) {
      E e = q.top();
      q.pop();
      size_t i = static_cast<size_t>(e.pos), j = static_cast<size_t>(e.right);
      if (dead[i] || dead[j] || next[i] != e.right || gen[i] != e.gl || gen[j] != e.gr) continue;
      t[i] = e.id;
      ++gen[i];
      dead[j] = true;
      next[i] = next[j];
      if (next[j] >= 0) prev[static_cast<size_t>(next[j])] = static_cast<int32_t>(i);
      if (prev[i] >= 0) push(prev[i]);
      push(static_cast<int32_t>(i));
    }
    std::vector<int32_t> out;
    for (size_t i = 0; i < n; ++i)
      if (!dead[i]) out.push_back(t[i]);
    t = std::move(out);
  }

  std::vector<std::string> vocab_;
  std::vector<float> scores_;
  std::unordered_map<std::string, int32_t> lookup_;
  int32_t max_token_length_ = 0;
};

}  // namespace

Status load_llama2c(const std::string& path, std::string_view data, std::unique_ptr<Impl>* out) {
  auto t = std::make_unique<Llama2c>();
  Status s = t->load(data);
  if (!s) return s.context(path);
  *out = std::move(t);
  return Status::ok();
}

}  // namespace pte::tok
