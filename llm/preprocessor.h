// pte-run: a feature-extraction program shipped beside a speech model (ExecuTorch's
// `preprocessor.pte`, its WhisperAudioProcessor export): a method taking one 1-D float
// waveform at 16 kHz (static, or dynamic up to at least one 30 s window) and returning
// float log-mel features [1, n_mels, frames]. Used instead of audio/mel.cpp when the user
// gives --preprocessor. Checked at load against the encoder's input_features shape; each
// window's samples are zero-padded to the full window (as the program itself pads).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "pte/program.h"

namespace pte {

class FeaturePreprocessor {
 public:
  // n_mels, frames: the encoder's input_features shape; window: samples per window.
  static Status open(const std::string& path, int n_mels, int frames, size_t window, int num_threads,
                     std::unique_ptr<FeaturePreprocessor>* out);
  // samples: n <= window samples; out: n_mels x frames floats.
  Status compute(const float* samples, size_t n, float* out);
  const std::string& method_name() const { return method_name_; }

 private:
  std::string path_, method_name_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<Method> method_;
  int n_mels_ = 0, frames_ = 0;
  std::vector<float> input_;
};

}  // namespace pte
