// pte-run VIT.pte cat.jpg [more.png...] [--top-k K] [--json]: image classification, entered
// from main when the program is an image classifier (image/).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bin/commands.h"
#include "image/classifier.h"
#include "util/json.h"
#include "util/proc_stats.h"

namespace pte::cli {

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run MODEL.pte IMAGE [IMAGE...] [options]   image classification (ViT, ConvNeXt, ResNet, ... exports)\n"
               "  --top-k K                    labels per image (default 5)\n"
               "  --json                       print [{\"image\", \"predictions\": [{\"id\", \"label\", \"score\"}]}]\n"
               "  --preprocessor-config FILE   (default: preprocessor_config.json beside the model)\n"
               "  --max-pixels N               refuse images whose header claims more pixels (default %llu)\n"
               "  --stats                      print load time, images/s and peak RSS to stderr\n"
               "  --data FILE.ptd, --threads N as for generation\n"
               "PNG and JPEG images; labels from config.json's id2label beside the model (ids without one).\n",
               static_cast<unsigned long long>(image::kDefaultMaxPixels));
}

bool parse_count(const char* s, long long lo, long long hi, long long* out) {
  char* end = nullptr;
  errno = 0;
  *out = std::strtoll(s, &end, 10);
  return s[0] && end && *end == 0 && errno == 0 && *out >= lo && *out <= hi;
}

}  // namespace

bool is_image_classifier_file(const std::string& path) {
  std::unique_ptr<Program> p;
  if (!Program::open_file(path, {}, &p)) return false;
  return image::is_image_classifier(p->info());
}

std::string image_task_text(const ProgramInfo& info) {
  return image::is_image_classifier(info) ? "image classification (pte-run MODEL.pte IMAGE)" : "";
}

int cmd_classify(int argc, char** argv) {
  image::ClassifierOptions o;
  std::vector<std::string> images;
  long long top_k = 5, n = 0;
  bool json_out = false, stats = false;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pte-run: %s needs a value\n", s.c_str());
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    if (s == "-h" || s == "--help") { usage(stdout); return 0; }
    else if (s == "--json") json_out = true;
    else if (s == "--stats") stats = true;
    else if (s == "--top-k") {
      if (!(v = value())) return 2;
      if (!parse_count(v, 1, 1 << 24, &top_k)) { std::fprintf(stderr, "pte-run: --top-k: '%s' is not a positive count\n", v); return 2; }
    } else if (s == "--max-pixels") {
      if (!(v = value())) return 2;
      if (!parse_count(v, 1, 1LL << 40, &n)) { std::fprintf(stderr, "pte-run: --max-pixels: '%s' is not a positive count\n", v); return 2; }
      o.decode.max_pixels = static_cast<uint64_t>(n);
    } else if (s == "--preprocessor-config") { if (!(v = value())) return 2; o.preprocessor_path = v; }
    else if (s == "--data") { if (!(v = value())) return 2; o.data_files.push_back(v); }
    else if (s == "--threads") {
      if (!(v = value())) return 2;
      if (!parse_count(v, 0, 1024, &n)) { std::fprintf(stderr, "pte-run: --threads: '%s' is not a thread count\n", v); return 2; }
      o.num_threads = static_cast<int>(n);
    } else if (s.size() > 1 && s[0] == '-') {
      std::fprintf(stderr, "pte-run: unknown option %s\n", s.c_str());
      usage(stderr);
      return 2;
    } else if (o.model_path.empty()) o.model_path = s;
    else images.push_back(s);
  }
  if (o.model_path.empty() || images.empty()) { usage(stderr); return 2; }
  const double t0 = util::now_ms();
  std::unique_ptr<image::ImageClassifier> c;
  Status st = image::ImageClassifier::create(o, &c);
  if (!st) { std::fprintf(stderr, "pte-run: %s\n", st.message().c_str()); return 1; }
  const double t1 = util::now_ms();
  json::Value doc = json::Value::array();
  for (const auto& path : images) {
    std::vector<image::Prediction> preds;
    st = c->classify_file(path, static_cast<int>(top_k), &preds);
    if (!st) { std::fprintf(stderr, "pte-run: %s\n", st.message().c_str()); return 1; }
    if (json_out) {
      json::Value item = json::Value::object();
      item.set("image", json::Value(path));
      json::Value ps = json::Value::array();
      for (const auto& p : preds) {
        json::Value e = json::Value::object();
        e.set("id", json::Value(p.id));
        e.set("label", json::Value(p.label));
        e.set("score", json::Value(p.score));
        ps.push(std::move(e));
      }
      item.set("predictions", std::move(ps));
      doc.push(std::move(item));
      continue;
    }
    if (images.size() > 1) std::printf("%s\n", path.c_str());
    for (const auto& p : preds) std::printf("%s%.4f  %s\n", images.size() > 1 ? "  " : "", p.score, p.label.c_str());
    std::fflush(stdout);
  }
  if (json_out) std::printf("%s\n", json::write(doc, 1).c_str());
  if (stats) {
    const double secs = (util::now_ms() - t1) / 1000.0;
    std::fprintf(stderr, "load %.1f ms | %zu images in %.1f ms, %.1f images/s (decode, preprocess, forward) | peak RSS %.1f MB\n",
                 t1 - t0, images.size(), secs * 1000.0, secs > 0 ? images.size() / secs : 0.0, util::peak_rss_kb() / 1024.0);
  }
  return 0;
}

}  // namespace pte::cli
