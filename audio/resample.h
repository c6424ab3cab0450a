// pte-run: streaming band-limited resampling (windowed sinc, Kaiser window, polyphase
// table for the reduced ratio out/in = L/M). Downsampling low-passes at 0.945 of the
// output Nyquist frequency, so nothing above it folds back. Memory: the table and a
// short history of input, independent of the stream's length.
#pragma once
#include <cstdint>
#include <vector>

#include "pte/status.h"

namespace pte::audio {

class Resampler {
 public:
  Status init(int in_rate, int out_rate);
  // Appends to *out every output sample whose input support has arrived.
  void push(const float* x, size_t n, std::vector<float>* out);
  // End of input: appends the remaining outputs (ceil(total_in * out_rate / in_rate) in all).
  void flush(std::vector<float>* out);
  int taps() const { return 2 * half_; }

 private:
  void emit(std::vector<float>* out, bool final);
  bool passthrough_ = true;
  int64_t L_ = 1, M_ = 1;
  int half_ = 0;
  std::vector<float> table_;   // L_ phases x 2*half_ taps
  std::vector<float> buf_;     // input samples from absolute index base_
  int64_t base_ = 0;
  int64_t total_in_ = 0;
  int64_t next_out_ = 0;
};

}  // namespace pte::audio
