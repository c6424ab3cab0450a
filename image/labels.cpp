// config.json id2label and scoring (see labels.h).
#include "image/labels.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "util/json.h"

namespace pte::image {

namespace fs = std::filesystem;

Status load_labels(const std::string& model_path, int64_t num_labels, Labels* out) {
  *out = Labels();
  const fs::path cfg = fs::path(model_path).parent_path() / "config.json";
  std::error_code ec;
  if (!fs::is_regular_file(cfg, ec)) return Status::ok();
  if (fs::file_size(cfg, ec) > (64u << 20)) return Status::error(cfg.string() + ": too large for a config");
  json::Value v;
  if (!json::parse_file(cfg.string(), &v) || !v.is_object()) return Status::error(cfg.string() + ": not a readable JSON object");
  out->source = cfg.string();
  if (const json::Value* p = v.find("problem_type", json::Type::String))
    out->sigmoid = p->as_string() == "multi_label_classification";
  if (num_labels == 1) out->sigmoid = true;
  const json::Value* m = v.find("id2label", json::Type::Object);
  if (!m) return Status::ok();
  out->names.assign(static_cast<size_t>(num_labels), "");
  std::vector<bool> seen(out->names.size(), false);
  for (const auto& [key, val] : m->members()) {
    char* end = nullptr;
    const long long id = std::strtoll(key.c_str(), &end, 10);
    if (key.empty() || *end || id < 0 || id >= num_labels || !val.is_string())
      return Status::error(cfg.string() + ": id2label has \"" + key.substr(0, 40) + "\", not a label id below " +
                           std::to_string(num_labels));
    out->names[id] = val.as_string();
    seen[id] = true;
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i])
      return Status::error(cfg.string() + ": id2label has no label for id " + std::to_string(i) + " (the model has " +
                           std::to_string(num_labels) + " outputs)");
  return Status::ok();
}

std::vector<Prediction> top_k(const float* logits, int64_t n, int k, const Labels& labels) {
  std::vector<double> score(static_cast<size_t>(n));
  if (labels.sigmoid) {
    for (int64_t i = 0; i < n; ++i) score[i] = 1.0 / (1.0 + std::exp(-static_cast<double>(logits[i])));
  } else {
    double mx = -INFINITY, sum = 0;
    for (int64_t i = 0; i < n; ++i) mx = std::max(mx, static_cast<double>(logits[i]));
    for (int64_t i = 0; i < n; ++i) sum += (score[i] = std::exp(static_cast<double>(logits[i]) - mx));
    for (auto& s : score) s /= sum;
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::vector<float> key(static_cast<size_t>(n));  // NaN sorts last (a strict weak order)
  for (int64_t i = 0; i < n; ++i) {
    order[i] = i;
    key[i] = std::isnan(logits[i]) ? -INFINITY : logits[i];
  }
  k = static_cast<int>(std::clamp<int64_t>(k, 0, n));
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
    return key[a] > key[b] || (key[a] == key[b] && a < b);
  });
  std::vector<Prediction> out;
  for (int i = 0; i < k; ++i) {
    Prediction p;
    p.id = order[i];
    p.label = labels.names.empty() ? std::to_string(p.id) : labels.names[p.id];
    p.score = score[p.id];
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pte::image
