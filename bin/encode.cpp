// pte-run BERT.pte "text with [MASK]" [--top-k K] [--json]: fill-mask, entered from main when
// the program is an encoder with a masked-LM head; pte-run embed MODEL.pte "text"...:
// sentence embeddings (encoder/).
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bin/commands.h"
#include "encoder/encoder.h"
#include "util/json.h"
#include "util/npy.h"
#include "util/proc_stats.h"

namespace pte::cli {

namespace {

void fill_usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run BERT.pte \"Paris is the [MASK] of France.\" [options]   fill-mask (BERT family exports)\n"
               "  --top-k K               completions per mask token (default 5)\n"
               "  --json                  print the predictions as JSON\n"
               "  --tokenizer PATH        tokenizer.json or a folder holding it (default: next to the model)\n"
               "  --data FILE.ptd         external weights (repeatable)\n"
               "  --threads N             worker threads (default: physical cores)\n");
}

void embed_usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run embed MODEL.pte \"text\" [\"text\"...] [options]   sentence embeddings, one vector per text\n"
               "  --input-file FILE       read the texts from FILE, one a line (blank lines skipped)\n"
               "  --pooling mean|cls|last|max   (default: the model folder's 1_Pooling/config.json, else mean)\n"
               "  --normalize             L2-normalise each vector (default on when modules.json has a Normalize module)\n"
               "  --similarity            print the cosine similarity matrix instead of the vectors\n"
               "  --json                  print JSON ({\"embeddings\": [[...]], \"similarity\": ...})\n"
               "  --out F.npy             write the vectors as a float32 [N, H] .npy file\n"
               "  --stats                 print load time, texts/s, calls and batch size, peak RSS to stderr\n"
               "  --tokenizer PATH, --data FILE.ptd, --threads N   as for generation\n"
               "Texts are run as many at a time as the program's batch dimension takes (padded and masked);\n"
               "a program exported with batch 1 (optimum-executorch's) runs one text per call.\n");
}

bool parse_int(const char* s, long* out) {
  char* end = nullptr;
  errno = 0;
  *out = std::strtol(s, &end, 10);
  return s[0] && end && *end == 0 && errno == 0;
}

}  // namespace

bool is_encoder_file(const std::string& path) {
  std::unique_ptr<Program> p;
  if (!Program::open_file(path, {}, &p)) return false;
  return encoder_task(p->info()) != EncoderTask::None;
}

std::string encoder_task_text(const ProgramInfo& info) {
  switch (encoder_task(info)) {
    case EncoderTask::FillMask: return "fill-mask (encoder with a masked-LM head; pte-run MODEL.pte \"text with the mask token\")";
    case EncoderTask::Embedding: return "sentence embeddings (encoder; pte-run embed MODEL.pte \"text\"...)";
    default: return "";
  }
}

// Shared option parsing: returns -1 to continue, else an exit code.
struct EncodeArgs {
  EncoderOptions ro;
  std::vector<std::string> texts;
  std::string input_file, out_npy;
  int top_k = 5;
  bool json = false, similarity = false, normalize = false, stats = false;
  bool pooling_set = false;
  Pooling pooling = Pooling::Default;
};

static int parse_args(int argc, char** argv, bool embed, EncodeArgs* a) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pte-run: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    long n = 0;
    if (s == "-h" || s == "--help") { (embed ? embed_usage : fill_usage)(stdout); return 0; }
    else if (s == "--json") a->json = true;
    else if (s == "--tokenizer") { if (!(v = value("--tokenizer"))) return 2; a->ro.tokenizer_path = v; }
    else if (s == "--data") { if (!(v = value("--data"))) return 2; a->ro.data_files.push_back(v); }
    else if (s == "--threads") {
      if (!(v = value("--threads"))) return 2;
      if (!parse_int(v, &n) || n < 0 || n > 1024) { std::fprintf(stderr, "pte-run: --threads: '%s' is not a thread count\n", v); return 2; }
      a->ro.num_threads = static_cast<int>(n);
    } else if (!embed && s == "--top-k") {
      if (!(v = value("--top-k"))) return 2;
      if (!parse_int(v, &n) || n < 1 || n > 1000000) { std::fprintf(stderr, "pte-run: --top-k: '%s' is not a positive count\n", v); return 2; }
      a->top_k = static_cast<int>(n);
    } else if (embed && s == "--input-file") { if (!(v = value("--input-file"))) return 2; a->input_file = v; }
    else if (embed && s == "--out") { if (!(v = value("--out"))) return 2; a->out_npy = v; }
    else if (embed && s == "--pooling") {
      if (!(v = value("--pooling"))) return 2;
      if (!parse_pooling(v, &a->pooling)) { std::fprintf(stderr, "pte-run: --pooling must be mean, cls, last or max\n"); return 2; }
      a->pooling_set = true;
    } else if (embed && s == "--normalize") a->normalize = true;
    else if (embed && s == "--similarity") a->similarity = true;
    else if (embed && s == "--stats") a->stats = true;
    else if (s.size() > 1 && s[0] == '-' && s != "-") {
      std::fprintf(stderr, "pte-run: unknown option %s\n", s.c_str());
      (embed ? embed_usage : fill_usage)(stderr);
      return 2;
    } else if (a->ro.model_path.empty()) a->ro.model_path = s;
    else a->texts.push_back(s);
  }
  if (a->ro.model_path.empty()) { (embed ? embed_usage : fill_usage)(stderr); return 2; }
  return -1;
}

int cmd_fill_mask(int argc, char** argv) {
  EncodeArgs a;
  if (int rc = parse_args(argc, argv, false, &a); rc >= 0) return rc;
  if (a.texts.size() != 1) {
    std::fprintf(stderr, "pte-run: %s: give one text holding the mask token\n", a.ro.model_path.c_str());
    return 2;
  }
  std::unique_ptr<EncoderRunner> r;
  Status s = EncoderRunner::create(a.ro, &r);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  std::vector<MaskPrediction> preds;
  s = r->fill_mask(a.texts[0], a.top_k, &preds);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  if (a.json) {
    json::Value doc = json::Value::array();
    for (const auto& p : preds) {
      json::Value m = json::Value::object();
      m.set("position", json::Value(p.position));
      json::Value cs = json::Value::array();
      for (const auto& c : p.candidates) {
        json::Value o = json::Value::object();
        o.set("token", json::Value(static_cast<int64_t>(c.id)));
        o.set("token_str", json::Value(c.token));
        o.set("score", json::Value(static_cast<double>(c.score)));
        o.set("sequence", json::Value(c.sequence));
        cs.push(std::move(o));
      }
      m.set("candidates", std::move(cs));
      doc.push(std::move(m));
    }
    std::printf("%s\n", json::write(doc, 1).c_str());
    return 0;
  }
  for (size_t k = 0; k < preds.size(); ++k) {
    const auto& p = preds[k];
    if (preds.size() > 1) std::printf("%s %zu (token %d):\n", r->mask_token().c_str(), k + 1, p.position);
    for (const auto& c : p.candidates)
      std::printf("%s%.4f  %-16s %s\n", preds.size() > 1 ? "  " : "", c.score, c.token.c_str(), c.sequence.c_str());
  }
  return 0;
}

int cmd_embed(int argc, char** argv) {
  EncodeArgs a;
  if (int rc = parse_args(argc, argv, true, &a); rc >= 0) return rc;
  if (!a.input_file.empty()) {
    if (!a.texts.empty()) { std::fprintf(stderr, "pte-run: give texts or --input-file, not both\n"); return 2; }
    struct stat sb;
    std::ifstream f(a.input_file, std::ios::binary);
    if (!f || ::stat(a.input_file.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) {
      std::fprintf(stderr, "pte-run: %s: cannot read the input file\n", a.input_file.c_str());
      return 1;
    }
    std::string line;
    while (std::getline(f, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      a.texts.push_back(line);
    }
    if (a.texts.empty()) {
      std::fprintf(stderr, "pte-run: %s: no texts (the file is empty or blank)\n", a.input_file.c_str());
      return 1;
    }
  }
  if (a.texts.empty()) { std::fprintf(stderr, "pte-run: %s: give one or more texts or --input-file\n", a.ro.model_path.c_str()); return 2; }
  const double t0 = util::now_ms();
  std::unique_ptr<EncoderRunner> r;
  Status s = EncoderRunner::create(a.ro, &r);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  if (r->task() == EncoderTask::FillMask) {
    std::fprintf(stderr, "pte-run: %s returns masked-LM logits, not hidden states: export the encoder without its head "
                 "(AutoModel) for embeddings\n", a.ro.model_path.c_str());
    return 1;
  }
  const double t1 = util::now_ms();
  std::vector<std::vector<float>> vecs;
  const bool normalize = a.normalize || r->default_normalize();
  s = r->embed(a.texts, a.pooling, normalize, &vecs);
  if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  const double t2 = util::now_ms();
  if (!r->truncated().empty())
    std::fprintf(stderr, "pte-run: %zu text%s longer than the program's %lld tokens, truncated (the first from %d tokens)\n",
                 r->truncated().size(), r->truncated().size() == 1 ? "" : "s", (long long)r->max_tokens(),
                 r->truncated()[0].first);
  const size_t n = vecs.size(), h = vecs.empty() ? 0 : vecs[0].size();
  std::vector<std::vector<double>> sim;
  if (a.similarity) {
    sim.assign(n, std::vector<double>(n, 0));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        double d = 0, ni = 0, nj = 0;
        for (size_t k = 0; k < h; ++k) {
          d += static_cast<double>(vecs[i][k]) * vecs[j][k];
          ni += static_cast<double>(vecs[i][k]) * vecs[i][k];
          nj += static_cast<double>(vecs[j][k]) * vecs[j][k];
        }
        sim[i][j] = d / std::max(std::sqrt(ni) * std::sqrt(nj), 1e-12);
      }
  }
  if (!a.out_npy.empty()) {
    util::HostTensor t;
    t.dtype = DType::Float;
    t.shape = {static_cast<int64_t>(n), static_cast<int64_t>(h)};
    t.bytes.resize(n * h * 4);
    for (size_t i = 0; i < n; ++i) std::memcpy(t.bytes.data() + i * h * 4, vecs[i].data(), h * 4);
    s = util::npy_write(a.out_npy, t);
    if (!s) { std::fprintf(stderr, "pte-run: %s\n", s.message().c_str()); return 1; }
  }
  if (a.json) {
    json::Value doc = json::Value::object();
    doc.set("pooling", json::Value(pooling_name(a.pooling == Pooling::Default ? r->default_pooling() : a.pooling)));
    doc.set("normalized", json::Value(normalize));
    json::Value e = json::Value::array();
    for (const auto& v : vecs) {
      json::Value row = json::Value::array();
      for (float x : v) row.push(json::Value(static_cast<double>(x)));
      e.push(std::move(row));
    }
    doc.set("embeddings", std::move(e));
    if (a.similarity) {
      json::Value m = json::Value::array();
      for (const auto& row : sim) {
        json::Value jr = json::Value::array();
        for (double x : row) jr.push(json::Value(x));
        m.push(std::move(jr));
      }
      doc.set("similarity", std::move(m));
    }
    std::printf("%s\n", json::write(doc).c_str());
  } else if (a.similarity) {
    for (const auto& row : sim) {
      for (size_t j = 0; j < row.size(); ++j) std::printf("%s%.6f", j ? " " : "", row[j]);
      std::printf("\n");
    }
  } else if (a.out_npy.empty()) {
    for (const auto& v : vecs) {
      for (size_t j = 0; j < v.size(); ++j) std::printf("%s%.8g", j ? " " : "", v[j]);
      std::printf("\n");
    }
  }
  if (a.stats) {
    const double secs = (t2 - t1) / 1000.0;
    std::fprintf(stderr, "load %.1f ms | %zu texts in %.1f ms, %.1f texts/s | %lld calls of batch %lld (%s) | pooling %s%s | peak RSS %.1f MB\n",
                 t1 - t0, n, t2 - t1, secs > 0 ? n / secs : 0, (long long)((static_cast<int64_t>(n) + r->batch() - 1) / r->batch()), (long long)r->batch(),
                 r->batch() == 1 ? "one text per call" : "padded and masked", pooling_name(a.pooling == Pooling::Default ? r->default_pooling() : a.pooling),
                 normalize ? ", L2-normalised" : "", util::peak_rss_kb() / 1024.0);
  }
  return 0;
}

}  // namespace pte::cli
