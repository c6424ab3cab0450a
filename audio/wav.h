// pte-run: a streaming WAV reader. RIFF/WAVE with PCM 8/16/24/32-bit integer, 32/64-bit
// float and WAVE_FORMAT_EXTENSIBLE; any number of channels (mixed to mono on read).
// Every size in the header is checked against the file before anything is read: a
// truncated, corrupt or unsupported file is one Status line, never a crash.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "pte/status.h"

namespace pte::audio {

struct WavFormat {
  int channels = 0;
  int sample_rate = 0;
  int bits = 0;          // container bits per sample
  bool is_float = false;
  uint64_t frames = 0;   // samples per channel
};

// Rates outside this range are refused with a clear message.
constexpr int kMinSampleRate = 4000;
constexpr int kMaxSampleRate = 96000;

class WavReader {
 public:
  ~WavReader();
  static Status open(const std::string& path, std::unique_ptr<WavReader>* out);
  const WavFormat& format() const { return fmt_; }
  // Reads up to max_frames frames mixed to mono floats in [-1, 1]; *got is 0 at the end.
  Status read(float* out, size_t max_frames, size_t* got);

 private:
  WavReader() = default;
  std::string path_;
  std::FILE* f_ = nullptr;
  WavFormat fmt_;
  uint64_t frames_left_ = 0;
  std::vector<uint8_t> raw_;
};

// The whole file as mono 16 kHz samples (tests and short clips; long audio streams
// through WavReader + Resampler instead).
Status read_wav_16k(const std::string& path, std::vector<float>* out);

}  // namespace pte::audio
