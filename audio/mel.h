// pte-run: Whisper's log-mel spectrogram, as transformers' WhisperFeatureExtractor computes
// it: 16 kHz audio padded with zeros to 30 s, reflect-padded STFT (n_fft 400, hop 160,
// periodic Hann), power spectrum, Slaney mel filters (0..8 kHz, Slaney norm), log10 of
// max(1e-10, mel), clamped to max - 8, then (x + 4) / 4; the last frame is dropped.
// The buffers are sized once (init); compute() allocates nothing.
#pragma once
#include <complex>
#include <vector>

#include "pte/status.h"

namespace pte::audio {

constexpr int kWhisperRate = 16000;
constexpr int kWhisperHop = 160;
constexpr int kWhisperFft = 400;
constexpr int kWhisperChunk = 30 * kWhisperRate;  // samples in one 30 s window
constexpr int kWhisperFrames = kWhisperChunk / kWhisperHop;  // 3000

class LogMel {
 public:
  // n_mels: 80 or 128 (what the encoder's input shape says); frames: 3000 for Whisper.
  Status init(int n_mels, int frames = kWhisperFrames);
  int n_mels() const { return n_mels_; }
  int frames() const { return frames_; }
  // samples: n (<= frames * hop) samples at 16 kHz; out: n_mels x frames floats, row-major.
  void compute(const float* samples, size_t n, float* out);

 private:
  void fft(std::complex<double>* x);
  int n_mels_ = 0, frames_ = 0;
  std::vector<double> window_;
  std::vector<double> filters_;  // n_mels x 201
  std::vector<int> fbin_lo_, fbin_hi_;
  std::vector<std::complex<double>> twiddle_, a_, b_;
  std::vector<double> padded_, power_, mel_;
};

}  // namespace pte::audio
