// Class labels of an image classifier from config.json's id2label (beside the model), and
// how its pipeline turns logits into scores (problem_type / num_labels: sigmoid for
// multi-label or a single label, else softmax), plus top-k.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pte/status.h"

namespace pte::image {

struct Labels {
  std::vector<std::string> names;  // empty when no config: labels print as their ids
  bool sigmoid = false;
  std::string source;              // the config.json read, or ""
};

// Reads dir/config.json when it exists (labels then are the ids, "0", "1", ...). A config whose id2label does not cover
// num_labels ids is refused; no config at all is not an error (ids are printed).
Status load_labels(const std::string& model_path, int64_t num_labels, Labels* out);

struct Prediction {
  int64_t id = 0;
  std::string label;
  double score = 0;
};

// Scores (softmax or sigmoid, in double) of the top_k logits, highest first (ties: lower id
// first, as the pipeline's stable sort).
std::vector<Prediction> top_k(const float* logits, int64_t n, int top_k, const Labels& labels);

}  // namespace pte::image
