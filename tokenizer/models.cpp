// pte-run tokenizers: models (BPE, WordPiece, WordLevel, Unigram).
#include <cmath>
#include <cstdio>
#include <limits>
#include <queue>
#include <unordered_map>

#include "tokenizer/components.h"
#include "tokenizer/unicode.h"

namespace pte::tok {

namespace {

constexpr int64_t kMaxId = 1 << 24;  // ids above this are rejected (a corrupt file, not a vocabulary)

// Open-addressing hash table from token bytes to id (the vocabularies are large
// and loaded once; node-based maps make loading slow).
class StrMap {
 public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, -1);
    keys_.reserve(n);
    vals_.reserve(n);
  }
  // Inserts or overwrites (a repeated token keeps its last id, as the reference's maps do).
  void set(std::string_view k, int32_t v) {
    if (slots_.empty() || (keys_.size() + 1) * 2 > slots_.size()) grow();
    size_t i = probe(k);
    if (slots_[i] >= 0) {
      vals_[static_cast<size_t>(slots_[i])] = v;
      return;
    }
    slots_[i] = static_cast<int32_t>(keys_.size());
    keys_.emplace_back(k);
    vals_.push_back(v);
  }
  int32_t find(std::string_view k) const {
    if (slots_.empty()) return -1;
    int32_t s = slots_[probe(k)];
    return s < 0 ? -1 : vals_[static_cast<size_t>(s)];
  }
  size_t size() const { return keys_.size(); }
  const std::string& key(size_t i) const { return keys_[i]; }
  int32_t value(size_t i) const { return vals_[i]; }

 private:
  static size_t hash(std::string_view k) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : k) h = (h ^ c) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  size_t probe(std::string_view k) const {
    size_t mask = slots_.size() - 1, i = hash(k) & mask;
    while (slots_[i] >= 0 && keys_[static_cast<size_t>(slots_[i])] != k) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    size_t cap = slots_.empty() ? 16 : slots_.size() * 2;
    slots_.assign(cap, -1);
    for (size_t j = 0; j < keys_.size(); ++j) slots_[probe(keys_[j])] = static_cast<int32_t>(j);
  }
  std::vector<int32_t> slots_;
  std::vector<std::string> keys_;
  std::vector<int32_t> vals_;
};

// (left id, right id) -> (rank, merged id), open addressing.
class PairMap {
 public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    keys_.assign(cap, kEmpty);
    vals_.assign(cap, {0, 0});
    count_ = 0;
  }
  void set(uint64_t k, std::pair<uint32_t, int32_t> v) {
    if ((count_ + 1) * 2 > keys_.size()) rehash(keys_.empty() ? 16 : keys_.size() * 2);
    size_t i = probe(k);
    if (keys_[i] == kEmpty) keys_[i] = k, ++count_;
    vals_[i] = v;
  }
  const std::pair<uint32_t, int32_t>* find(uint64_t k) const {
    if (keys_.empty()) return nullptr;
    size_t i = probe(k);
    return keys_[i] == kEmpty ? nullptr : &vals_[i];
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  size_t probe(uint64_t k) const {
    size_t mask = keys_.size() - 1;
    size_t i = static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (keys_[i] != kEmpty && keys_[i] != k) i = (i + 1) & mask;
    return i;
  }
  void rehash(size_t cap) {
    std::vector<uint64_t> ok = std::move(keys_);
    std::vector<std::pair<uint32_t, int32_t>> ov = std::move(vals_);
    keys_.assign(cap, kEmpty);
    vals_.assign(cap, {0, 0});
    count_ = 0;
    for (size_t j = 0; j < ok.size(); ++j)
      if (ok[j] != kEmpty) set(ok[j], ov[j]);
  }
  std::vector<uint64_t> keys_;
  std::vector<std::pair<uint32_t, int32_t>> vals_;
  size_t count_ = 0;
};

// token <-> id tables shared by the models.
struct Vocab {
  StrMap ids;
  std::vector<const std::string*> tokens;  // by id; nullptr for holes
  int32_t max_id = -1;

  int32_t find(std::string_view t) const { return ids.find(t); }
  const std::string* token(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < tokens.size() ? tokens[static_cast<size_t>(id)] : nullptr;
  }
  void build_reverse() {
    tokens.assign(static_cast<size_t>(max_id + 1), nullptr);
    for (size_t i = 0; i < ids.size(); ++i) tokens[static_cast<size_t>(ids.value(i))] = &ids.key(i);
  }
};

// {"token": id, ...}
Status read_vocab_object(const json::Value* vp, const char* model, Vocab* out) {
  if (!vp || !vp->is_object()) return Status::error(std::string("model ") + model + ": \"vocab\" must be an object");
  const json::Value& v = *vp;
  out->ids.reserve(v.size());
  for (const auto& [tok, idv] : v.members()) {
    if (!idv.is_int() || idv.as_int() < 0 || idv.as_int() > kMaxId)
      return Status::error(std::string("model ") + model + ": vocab entry " + json::quote(tok) + " has a bad id");
    int32_t id = static_cast<int32_t>(idv.as_int());
    out->ids.set(tok, id);
    out->max_id = std::max(out->max_id, id);
  }
  out->build_reverse();
  return Status::ok();
}

const std::string* opt_string(const json::Value& v, const char* key) {
  const json::Value* x = v.find(key);
  return x && x->is_string() ? &x->as_string() : nullptr;
}

// UTF-8 character boundaries of a word.
void char_bounds(std::string_view w, std::vector<size_t>* starts) {
  starts->clear();
  for (size_t i = 0; i < w.size(); ++i)
    if ((static_cast<unsigned char>(w[i]) & 0xC0) != 0x80) starts->push_back(i);
  starts->push_back(w.size());
}

// ------------------------------------------------------------------ BPE

class Bpe final : public Model {
 public:
  Status load(const json::Value& v) {
    PTE_TRY(read_vocab_object(v.find("vocab"), "BPE", &vocab_));
    if (const std::string* s = opt_string(v, "unk_token")) unk_ = *s, has_unk_ = true;
    if (const std::string* s = opt_string(v, "continuing_subword_prefix")) prefix_ = *s;
    if (const std::string* s = opt_string(v, "end_of_word_suffix")) suffix_ = *s;
    PTE_TRY(json_bool(v, "fuse_unk", false, &fuse_unk_).context("model BPE"));
    PTE_TRY(json_bool(v, "byte_fallback", false, &byte_fallback_).context("model BPE"));
    PTE_TRY(json_bool(v, "ignore_merges", false, &ignore_merges_).context("model BPE"));
    if (const json::Value* d = v.find("dropout"); d && !d->is_null() && !d->is_number())
      return Status::error("model BPE: dropout must be a number or null");
    const json::Value* merges = v.find("merges", json::Type::Array);
    if (!merges) return Status::error("model BPE: missing \"merges\"");
    merges_.reserve(merges->size());
    uint32_t rank = 0;
    std::string merged;
    for (const auto& m : merges->items()) {
      std::string_view a, b;
      if (m.is_string()) {
        std::string_view s = m.as_string();
        if (s.substr(0, 8) == "#version") continue;
        size_t sp = s.find(' ');
        if (sp == std::string_view::npos || s.find(' ', sp + 1) != std::string_view::npos)
          return Status::error("model BPE: merge " + std::to_string(rank + 1) + " (" + json::quote(s) +
                               ") is not two tokens separated by one space");
        a = s.substr(0, sp);
        b = s.substr(sp + 1);
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        a = m[0].as_string();
        b = m[1].as_string();
      } else {
        return Status::error("model BPE: merge " + std::to_string(rank + 1) + " is not \"a b\" or [a, b]");
      }
      int32_t ia = vocab_.find(a), ib = vocab_.find(b);
      if (ia < 0) return Status::error("model BPE: merge token " + json::quote(a) + " is not in the vocabulary");
      if (ib < 0) return Status::error("model BPE: merge token " + json::quote(b) + " is not in the vocabulary");
      merged.assign(a);
      if (b.size() >= prefix_.size()) merged.append(b.substr(prefix_.size()));
      int32_t im = vocab_.find(merged);
      if (im < 0) return Status::error("model BPE: merged token " + json::quote(merged) + " is not in the vocabulary");
      merges_.set(key(ia, ib), {rank, im});  // a repeated pair keeps its last rank, as the reference
      ++rank;
    }
    if (byte_fallback_)
      for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        byte_ids_[b] = vocab_.find(name);
      }
    return Status::ok();
  }

  Status tokenize(std::string_view w, std::vector<int32_t>* ids) const override {
    if (ignore_merges_) {
      int32_t id = vocab_.find(w);
      if (id >= 0) {
        ids->push_back(id);
        return Status::ok();
      }
    }
    std::vector<Sym> syms;
    syms.reserve(w.size());
    std::vector<size_t> b;
    char_bounds(w, &b);
    int32_t unk_id = -1;
    uint32_t unk_len = 0;
    bool unk_pending = false;
    auto add = [&](int32_t id, uint32_t len) {
      int32_t n = static_cast<int32_t>(syms.size());
      if (n > 0) syms.back().next = n;
      syms.push_back({id, n - 1, -1, len});
    };
    std::string s;
    for (size_t k = 0; k + 1 < b.size(); ++k) {
      std::string_view ch = w.substr(b[k], b[k + 1] - b[k]);
      s.clear();
      if (k > 0) s += prefix_;
      s += ch;
      if (k + 2 == b.size()) s += suffix_;
      int32_t id = vocab_.find(s);
      if (id >= 0) {
        if (unk_pending) add(unk_id, unk_len), unk_pending = false;
        add(id, static_cast<uint32_t>(ch.size()));
        continue;
      }
      if (byte_fallback_) {
        bool all = true;
        for (unsigned char c : s) all = all && byte_ids_[c] >= 0;
        if (all) {
          for (unsigned char c : s) add(byte_ids_[c], 1);
          continue;
        }
      }
      if (has_unk_) {
        int32_t u = vocab_.find(unk_);
        if (u < 0) return Status::error("BPE: unk_token " + json::quote(unk_) + " is not in the vocabulary");
        if (unk_pending && fuse_unk_) {
          unk_len += static_cast<uint32_t>(ch.size());
        } else {
          if (unk_pending) add(unk_id, unk_len);
          unk_id = u, unk_len = static_cast<uint32_t>(ch.size()), unk_pending = true;
        }
      }
    }
    if (unk_pending) add(unk_id, unk_len);
    merge_all(&syms);
    for (const auto& x : syms)
      if (x.len) ids->push_back(x.id);
    return Status::ok();
  }

  int32_t token_to_id(std::string_view t) const override { return vocab_.find(t); }
  const std::string* id_to_token(int32_t id) const override { return vocab_.token(id); }
  size_t size() const override { return vocab_.ids.size(); }
  int32_t max_id() const override { return vocab_.max_id; }
  const char* type() const override { return "BPE"; }

 private:
  struct Sym {
    int32_t id, prev, next;
    uint32_t len;
  };
  struct Entry {
    uint32_t rank;
    int32_t pos, new_id;
    bool operator<(const Entry& o) const {  // priority_queue pops the largest: lowest rank, then leftmost
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  static uint64_t key(int32_t a, int32_t b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }
  const std::pair<uint32_t, int32_t>* merge(int32_t a, int32_t b) const {
    return merges_.find(key(a, b));
  }

  void merge_all(std::vector<Sym>* symp) const {
    auto& s = *symp;
    std::priority_queue<Entry> q;
    for (size_t i = 0; i + 1 < s.size(); ++i)
      if (auto* m = merge(s[i].id, s[i + 1].id)) q.push({m->first, static_cast<int32_t>(i), m->second});
    while (!q.empty()) {
      Entry top = q.top();
      q.pop();
      Sym& cur = s[static_cast<size_t>(top.pos)];
      if (cur.len == 0 || cur.next < 0) continue;
      Sym right = s[static_cast<size_t>(cur.next)];
      auto* m = merge(cur.id, right.id);
      if (!m || m->second != top.new_id) continue;  // stale entry
      cur.id = top.new_id;
      cur.len += right.len;
      s[static_cast<size_t>(cur.next)].len = 0;
      cur.next = right.next;
      if (right.next >= 0) s[static_cast<size_t>(right.next)].prev = top.pos;
      if (cur.prev >= 0)
        if (auto* p = merge(s[static_cast<size_t>(cur.prev)].id, cur.id)) q.push({p->first, cur.prev, p->second});
      if (cur.next >= 0)
        if (auto* n = merge(cur.id, s[static_cast<size_t>(cur.next)].id)) q.push({n->first, top.pos, n->second});
    }
  }

  Vocab vocab_;
  PairMap merges_;
  std::string unk_, prefix_, suffix_;
  bool has_unk_ = false, fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
  int32_t byte_ids_[256] = {};
};

// ------------------------------------------------------------------ WordPiece

class WordPiece final : public Model {
 public:
  Status load(const json::Value& v) {
    PTE_TRY(read_vocab_object(v.find("vocab"), "WordPiece", &vocab_));
    if (const std::string* s = opt_string(v, "unk_token")) unk_ = *s;
    if (const std::string* s = opt_string(v, "continuing_subword_prefix")) prefix_ = *s;
    if (const json::Value* m = v.find("max_input_chars_per_word"); m && m->is_int()) max_chars_ = m->as_int();
    return Status::ok();
  }
  Status tokenize(std::string_view w, std::vector<int32_t>* ids) const override {
    std::vector<size_t> b;
    char_bounds(w, &b);
    size_t nchars = b.size() - 1;
    auto unk = [&]() -> Status {
      int32_t u = vocab_.find(unk_);
      if (u < 0) return Status::error("WordPiece: unk_token " + json::quote(unk_) + " is not in the vocabulary");
      ids->push_back(u);
      return Status::ok();
    };
    if (static_cast<int64_t>(nchars) > max_chars_) return unk();
    std::vector<int32_t> sub;
    size_t start = 0;  // char index
    std::string s;
    while (start < nchars) {
      size_t end = nchars;
      int32_t found = -1;
      while (start < end) {
        s.clear();
        if (start > 0) s += prefix_;
        s.append(w.substr(b[start], b[end] - b[start]));
        found = vocab_.find(s);
        if (found >= 0) break;
        --end;
      }
      if (found < 0) return unk();
      sub.push_back(found);
      start = end;
    }
    ids->insert(ids->end(), sub.begin(), sub.end());
    return Status::ok();
  }
  int32_t token_to_id(std::string_view t) const override { return vocab_.find(t); }
  const std::string* id_to_token(int32_t id) const override { return vocab_.token(id); }
  size_t size() const override { return vocab_.ids.size(); }
  int32_t max_id() const override { return vocab_.max_id; }
  const char* type() const override { return "WordPiece"; }

 private:
  Vocab vocab_;
  std::string unk_ = "[UNK]", prefix_ = "##";
  int64_t max_chars_ = 100;
};

// ------------------------------------------------------------------ WordLevel

class WordLevel final : public Model {
 public:
  Status load(const json::Value& v) {
    PTE_TRY(read_vocab_object(v.find("vocab"), "WordLevel", &vocab_));
    if (const std::string* s = opt_string(v, "unk_token")) unk_ = *s;
    return Status::ok();
  }
  Status tokenize(std::string_view w, std::vector<int32_t>* ids) const override {
    int32_t id = vocab_.find(w);
    if (id < 0) id = vocab_.find(unk_);
    if (id < 0) return Status::error("WordLevel: unk_token " + json::quote(unk_) + " is not in the vocabulary");
    ids->push_back(id);
    return Status::ok();
  }
  int32_t token_to_id(std::string_view t) const override { return vocab_.find(t); }
  const std::string* id_to_token(int32_t id) const override { return vocab_.token(id); }
  size_t size() const override { return vocab_.ids.size(); }
  int32_t max_id() const override { return vocab_.max_id; }
  const char* type() const override { return "WordLevel"; }

 private:
  Vocab vocab_;
  std::string unk_ = "<unk>";
};

// ------------------------------------------------------------------ Unigram

class Unigram final : public Model {
 public:
  Status load(const json::Value& v) {
    const json::Value* voc = v.find("vocab", json::Type::Array);
    if (!voc) return Status::error("model Unigram: \"vocab\" must be a list of [token, score]");
    pieces_.reserve(voc->size());
    vocab_.ids.reserve(voc->size());
    min_score_ = std::numeric_limits<double>::infinity();
    for (const auto& e : voc->items()) {
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
        return Status::error("model Unigram: vocab entries must be [token, score]");
      int32_t id = static_cast<int32_t>(pieces_.size());
      pieces_.push_back({e[0].as_string(), e[1].as_double()});
      vocab_.ids.set(e[0].as_string(), id);  // a repeated token keeps its last id, as the reference
      max_len_ = std::max(max_len_, e[0].as_string().size());
      min_score_ = std::min(min_score_, e[1].as_double());
    }
    vocab_.max_id = static_cast<int32_t>(pieces_.size()) - 1;
    vocab_.tokens.resize(pieces_.size());
    for (size_t i = 0; i < pieces_.size(); ++i) vocab_.tokens[i] = &pieces_[i].first;
    if (const json::Value* u = v.find("unk_id"); u && u->is_int()) {
      if (pieces_.empty()) return Status::error("model Unigram: the vocabulary is empty but unk_id is set");
      if (u->as_int() < 0 || u->as_int() >= static_cast<int64_t>(pieces_.size()))
        return Status::error("model Unigram: unk_id is outside the vocabulary");
      unk_id_ = static_cast<int32_t>(u->as_int());
    }
    PTE_TRY(json_bool(v, "byte_fallback", false, &byte_fallback_).context("model Unigram"));
    return Status::ok();
  }

  Status tokenize(std::string_view s, std::vector<int32_t>* ids) const override {
    // Viterbi over byte positions (the reference's encode_optimized).
    struct Node {
      int32_t id = 0;
      double score = 0;
      long start = -1;
    };
    size_t n = s.size();
    std::vector<Node> best(n + 1);
    const double unk_score = min_score_ - 10.0;
    for (size_t at = 0; at < n;) {
      double base = best[at].score;
      size_t mb = static_cast<size_t>(utf8_len_lead(static_cast<unsigned char>(s[at])));
      bool single = false;
      for (size_t len = 1; len <= max_len_ && at + len <= n; ++len) {
        int32_t pid = vocab_.find(s.substr(at, len));
        if (pid < 0) continue;
        // The reference's trie holds every piece; lookups resolve to the last id of a token.
        Node& t = best[at + len];
        double cand = pieces_[static_cast<size_t>(pid)].second + base;
        if (t.start < 0 || cand > t.score) t = {pid, cand, static_cast<long>(at)};
        if (len == mb) single = true;
      }
      if (!single) {
        if (unk_id_ < 0) return Status::error("Unigram: a character has no piece and the model has no unk_id");
        Node& t = best[at + mb];
        double cand = unk_score + base;
        if (t.start < 0 || cand > t.score) t = {unk_id_, cand, static_cast<long>(at)};
      }
      at += mb;
    }
    // Backtrack; consecutive unknown pieces fuse into one.
    std::vector<std::pair<size_t, size_t>> parts;  // byte ranges, in reverse
    std::vector<bool> is_unk;
    for (size_t end = n; end > 0;) {
      const Node& nd = best[end];
      size_t st = static_cast<size_t>(nd.start);
      bool u = nd.id == unk_id_;
      if (u && !is_unk.empty() && is_unk.back()) parts.back().first = st;
      else parts.emplace_back(st, end), is_unk.push_back(u);
      end = st;
    }
    for (size_t k = parts.size(); k-- > 0;) {
      std::string_view piece = s.substr(parts[k].first, parts[k].second - parts[k].first);
      int32_t id = vocab_.find(piece);
      if (id >= 0) {
        ids->push_back(id);
        continue;
      }
      if (byte_fallback_) {
        std::vector<int32_t> bytes;
        bool all = true;
        for (unsigned char c : piece) {
          char name[8];
          std::snprintf(name, sizeof name, "<0x%02X>", c);
          int32_t b = vocab_.find(name);
          if (b < 0) {
            all = false;
            break;
          }
          bytes.push_back(b);
        }
        if (all) {
          ids->insert(ids->end(), bytes.begin(), bytes.end());
          continue;
        }
      }
      if (unk_id_ < 0) return Status::error("Unigram: unknown piece and the model has no unk_id");
      ids->push_back(unk_id_);
    }
    return Status::ok();
  }
  int32_t token_to_id(std::string_view t) const override { return vocab_.find(t); }
  const std::string* id_to_token(int32_t id) const override { return vocab_.token(id); }
  size_t size() const override { return pieces_.size(); }
  int32_t max_id() const override { return vocab_.max_id; }
  const char* type() const override { return "Unigram"; }

 private:
  static int utf8_len_lead(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }
  std::vector<std::pair<std::string, double>> pieces_;
  Vocab vocab_;
  size_t max_len_ = 0;
  double min_score_ = 0;
  int32_t unk_id_ = -1;
  bool byte_fallback_ = false;
};

}  // namespace

Status make_model(const json::Value& v, std::unique_ptr<Model>* out) {
  if (!v.is_object()) return Status::error("model must be an object");
  std::string t;
  if (const std::string* type = json_string(v, "type")) {
    t = *type;
  } else if (v.find("merges")) {
    t = "BPE";
  } else if (v.find("vocab", json::Type::Array)) {
    t = "Unigram";
  } else if (v.find("max_input_chars_per_word") || v.find("continuing_subword_prefix")) {
    t = "WordPiece";
  } else {
    t = "WordLevel";
  }
  if (t == "BPE") {
    auto m = std::make_unique<Bpe>();
    PTE_TRY(m->load(v));
    *out = std::move(m);
  } else if (t == "WordPiece") {
    auto m = std::make_unique<WordPiece>();
    PTE_TRY(m->load(v));
    *out = std::move(m);
  } else if (t == "WordLevel") {
    auto m = std::make_unique<WordLevel>();
    PTE_TRY(m->load(v));
    *out = std::move(m);
  } else if (t == "Unigram") {
    auto m = std::make_unique<Unigram>();
    PTE_TRY(m->load(v));
    *out = std::move(m);
  } else {
    return Status::error("model type " + json::quote(t) + " is not supported");
  }
  return Status::ok();
}

}  // namespace pte::tok
