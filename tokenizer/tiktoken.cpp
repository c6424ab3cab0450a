// pte-run tokenizers: tiktoken files ("base64-token rank" per line).
//
// Encoding follows OpenAI's tiktoken with allowed_special="all": special tokens
// written in the text are split out first; each stretch between them is split by
// the pattern and every piece is looked up whole, else byte-pair merged by rank
// (repeatedly join the adjacent pair whose bytes have the lowest rank, leftmost on
// ties). Special tokens are numbered after the ranks, as Llama 3 does.
#include <queue>
#include <unordered_map>

#include "tokenizer/impl.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::vector<std::string> llama3_specials() {
  std::vector<std::string> s = {"<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                                "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
                                "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>",
                                "<|python_tag|>"};
  for (int i = 2; s.size() < 256; ++i) s.push_back("<|reserved_special_token_" + std::to_string(i) + "|>");
  return s;
}

bool base64_decode(std::string_view in, std::string* out) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  size_t i = 0;
  for (; i < in.size() && in[i] != '='; ++i) {
    int v = val(in[i]);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  for (; i < in.size(); ++i)
    if (in[i] != '=') return false;
  return true;
}

class Tiktoken final : public Impl {
 public:
  Status load(std::string_view d, const TokenizerOptions& opt) {
    size_t line_no = 0;
    std::string tok;
    for (size_t at = 0; at < d.size();) {
      size_t nl = d.find('\n', at);
      if (nl == std::string_view::npos) nl = d.size();
      std::string_view line = d.substr(at, nl - at);
      at = nl + 1;
      ++line_no;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      if (line.empty()) continue;
      size_t sp = line.find(' ');
      if (sp == std::string_view::npos) return Status::error("line " + std::to_string(line_no) + ": expected \"<base64> <rank>\"");
      if (!base64_decode(line.substr(0, sp), &tok))
        return Status::error("line " + std::to_string(line_no) + ": bad base64 token");
      std::string_view r = line.substr(sp + 1);
      int64_t rank = 0;
      if (r.empty() || r.size() > 9) return Status::error("line " + std::to_string(line_no) + ": bad rank");
      for (char c : r) {
        if (c < '0' || c > '9') return Status::error("line " + std::to_string(line_no) + ": bad rank");
        rank = rank * 10 + (c - '0');
      }
      ranks_[tok] = static_cast<int32_t>(rank);
    }
    if (ranks_.empty()) return Status::error("no tokens");
    for (int b = 0; b < 256; ++b)
      if (!ranks_.count(std::string(1, static_cast<char>(b))))
        return Status::error("the single byte " + std::to_string(b) + " has no rank (every byte needs one)");
    for (const auto& [t, r] : ranks_) {
      if (static_cast<size_t>(r) >= by_rank_.size()) by_rank_.resize(static_cast<size_t>(r) + 1);
      by_rank_[static_cast<size_t>(r)] = t;
    }
    std::string err;
    const std::string pattern = opt.tiktoken_pattern.empty() ? kLlama3Pattern : opt.tiktoken_pattern;
    if (!Regex::compile(pattern, &re_, &err)) return Status::error("tiktoken pattern: " + err);
    std::vector<std::string> specials = opt.tiktoken_special_tokens.empty() ? llama3_specials() : opt.tiktoken_special_tokens;
    int32_t base = static_cast<int32_t>(ranks_.size());
    for (size_t i = 0; i < specials.size(); ++i) {
      int32_t id = base + static_cast<int32_t>(i);
      special_ids_[specials[i]] = id;
      special_by_id_[id] = specials[i];
      std::u32string u;
      if (!utf8_decode(specials[i], &u, nullptr)) return Status::error("special token is not valid UTF-8");
      special_u32_.emplace_back(std::move(u), id);
    }
    auto id_of = [&](const char* s) {
      auto it = special_ids_.find(s);
      return it == special_ids_.end() ? -1 : it->second;
    };
    bos_id = id_of("<|begin_of_text|>");
    for (const char* e : {"<|end_of_text|>", "<|eot_id|>", "<|eom_id|>"})
      if (id_of(e) >= 0) eos_ids.push_back(id_of(e));
    return Status::ok();
  }

  Status encode(std::string_view text, bool add_special, std::vector<int32_t>* ids) const override {
    ids->clear();
    std::u32string t;
    if (!utf8_decode(text, &t, nullptr)) return Status::error("text is not valid UTF-8");
    if (add_special && bos_id >= 0) ids->push_back(bos_id);
    std::vector<std::pair<size_t, size_t>> m;
    std::string piece;
    size_t start = 0;
    for (;;) {
      size_t ss = t.size(), se = t.size();
      int32_t sid = -1;
      find_special(t, start, &ss, &se, &sid);
      std::u32string_view seg(t.data() + start, ss - start);
      re_.find_all(seg, &m);
      for (auto [a, b] : m) {
        if (a == b) continue;
        piece = to_utf8(seg.substr(a, b - a));
        auto it = ranks_.find(piece);
        if (it != ranks_.end()) ids->push_back(it->second);
        else byte_pair_encode(piece, ids);
      }
      if (sid < 0) break;
      ids->push_back(sid);
      start = se;
    }
    return Status::ok();
  }

  std::string decode(const std::vector<int32_t>& ids, bool skip_special) const override {
    std::string bytes;
    for (int32_t id : ids) {
      auto sp = special_by_id_.find(id);
      if (sp != special_by_id_.end()) {
        if (!skip_special) bytes += sp->second;
        continue;
      }
      if (id >= 0 && static_cast<size_t>(id) < by_rank_.size()) bytes += by_rank_[static_cast<size_t>(id)];
    }
    return utf8_lossy(bytes);
  }

  std::string id_to_token(int32_t id) const override {
    auto sp = special_by_id_.find(id);
    if (sp != special_by_id_.end()) return sp->second;
    return id >= 0 && static_cast<size_t>(id) < by_rank_.size() ? by_rank_[static_cast<size_t>(id)] : std::string();
  }
  int32_t token_to_id(std::string_view token) const override {
    auto sp = special_ids_.find(std::string(token));
    if (sp != special_ids_.end()) return sp->second;
    auto it = ranks_.find(std::string(token));
    return it == ranks_.end() ? -1 : it->second;
  }
  bool is_special(int32_t id) const override { return special_by_id_.count(id) != 0; }
  int32_t vocab_size() const override {
    int32_t m = static_cast<int32_t>(by_rank_.size()) - 1;
    for (const auto& [id, s] : special_by_id_) m = std::max(m, id);
    return m + 1;
  }
  std::string kind() const override { return "tiktoken"; }

 private:
  // Leftmost (then longest) special token at or after `from`.
  void find_special(const std::u32string& t, size_t from, size_t* s, size_t* e, int32_t* id) const {
    for (size_t i = from; i < t.size(); ++i) {
      size_t best = 0;
      for (const auto& [sp, sid] : special_u32_)
        if (sp.size() > best && t.compare(i, sp.size(), sp) == 0) best = sp.size(), *id = sid;
      if (best) {
        *s = i;
        *e = i + best;
        return;
      }
    }
  }

  int32_t rank(std::string_view b) const {
    auto it = ranks_.find(std::string(b));
    return it == ranks_.end() ? -1 : it->second;
  }

  void byte_pair_encode(const std::string& piece, std::vector<int32_t>* ids) const {
    size_t n = piece.size();
    std::vector<size_t> start(n), len(n, 1);
    std::vector<int32_t> next(n), prev(n);
    std::vector<uint32_t> gen(n, 0);
    for (size_t i = 0; i < n; ++i) {
      start[i] = i;
      prev[i] = static_cast<int32_t>(i) - 1;
      next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
    }
    struct E {
      int32_t rank;
      int32_t pos, right;
      uint32_t gl, gr;
      bool operator<(const E& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<E> q;
    auto push = [&](int32_t i) {
      if (i < 0) return;
      int32_t j = next[static_cast<size_t>(i)];
      if (j < 0) return;
      int32_t r = rank(std::string_view(piece).substr(start[static_cast<size_t>(i)],
                                                         len[static_cast<size_t>(i)] + len[static_cast<size_t>(j)]));
      if (r >= 0) q.push({r, i, j, gen[static_cast<size_t>(i)], gen[static_cast<size_t>(j)]});
    };
    for (int32_t i = 0; i + 1 < static_cast<int32_t>(n); ++i) push(i);
    std::vector<bool> dead(n, false);
    while (!q.empty()) {
      E e = q.top();
      q.pop();
      size_t i = static_cast<size_t>(e.pos), j = static_cast<size_t>(e.right);
      if (dead[i] || dead[j] || next[i] != e.right || gen[i] != e.gl || gen[j] != e.gr) continue;
      len[i] += len[j];
      ++gen[i];
      dead[j] = true;
      next[i] = next[j];
      if (next[j] >= 0) prev[static_cast<size_t>(next[j])] = static_cast<int32_t>(i);
      push(prev[i]);
      push(static_cast<int32_t>(i));
    }
    for (size_t i = 0; i < n; ++i) {
      if (dead[i]) continue;
      int32_t r = rank(std::string_view(piece).substr(start[i], len[i]));
      ids->push_back(r);  // every single byte has a rank in a complete tiktoken file
    }
  }

  std::unordered_map<std::string, int32_t> ranks_;
  std::vector<std::string> by_rank_;
  std::unordered_map<std::string, int32_t> special_ids_;
  std::unordered_map<int32_t, std::string> special_by_id_;
  std::vector<std::pair<std::u32string, int32_t>> special_u32_;
  Regex re_;
};

}  // namespace

Status load_tiktoken(const std::string& path, std::string_view data, const TokenizerOptions& options,
                     std::unique_ptr<Impl>* out) {
  auto t = std::make_unique<Tiktoken>();
  Status s = t->load(data, options);
  if (!s) return s.context(path);
  *out = std::move(t);
  return Status::ok();
}

}  // namespace pte::tok
