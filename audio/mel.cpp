#include "audio/mel.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace pte::audio {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kBins = kWhisperFft / 2 + 1;  // 201

double hz_to_mel(double f) {  // Slaney
  const double min_log_hz = 1000.0, min_log_mel = 15.0, logstep = 27.0 / std::log(6.4);
  return f < min_log_hz ? 3.0 * f / 200.0 : min_log_mel + std::log(f / min_log_hz) * logstep;
}

double mel_to_hz(double m) {
  const double min_log_hz = 1000.0, min_log_mel = 15.0, logstep = std::log(6.4) / 27.0;
  return m < min_log_mel ? 200.0 * m / 3.0 : min_log_hz * std::exp(logstep * (m - min_log_mel));
}

// 400 = 4 * 4 * 5 * 5: a mixed-radix decimation-in-time FFT
constexpr int kFactors[] = {4, 4, 5, 5};

void fft_rec(const std::complex<double>* in, std::complex<double>* out, int n, int stride, int level,
             const std::complex<double>* tw, int tw_step) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int p = kFactors[level], m = n / p;
  for (int q = 0; q < p; ++q) fft_rec(in + q * stride, out + q * m, m, stride * p, level + 1, tw, tw_step * p);
  std::complex<double> t[5];
  for (int k = 0; k < m; ++k) {
    for (int q = 0; q < p; ++q) t[q] = out[q * m + k];
    for (int u = 0; u < p; ++u) {
      const int j = k + u * m;
      const int step = (j * tw_step) % kWhisperFft;  // W_n^(q*j) = tw[q * step mod N]
      std::complex<double> acc = t[0];
      for (int q = 1, idx = step; q < p; ++q) {
        acc += t[q] * tw[idx];
        idx += step;
        if (idx >= kWhisperFft) idx -= kWhisperFft;
      }
      out[j] = acc;
    }
  }
}

}  // namespace

Status LogMel::init(int n_mels, int frames) {
  if (n_mels < 1 || n_mels > 512) return Status::error("log-mel: " + std::to_string(n_mels) + " mel bins (expected 1..512)");
  if (frames < 1 || frames > 1000000) return Status::error("log-mel: bad frame count " + std::to_string(frames));
  n_mels_ = n_mels;
  frames_ = frames;
  window_.resize(kWhisperFft);
  for (int i = 0; i < kWhisperFft; ++i) window_[i] = 0.5 - 0.5 * std::cos(2 * kPi * i / kWhisperFft);  // periodic
  twiddle_.resize(kWhisperFft);
  for (int i = 0; i < kWhisperFft; ++i) twiddle_[i] = std::polar(1.0, -2 * kPi * i / kWhisperFft);
  // Slaney mel filter bank over 201 bins of 0..8 kHz
  std::vector<double> fpts(n_mels + 2);
  const double mmin = hz_to_mel(0.0), mmax = hz_to_mel(8000.0);
  for (int i = 0; i < n_mels + 2; ++i) fpts[i] = mel_to_hz(mmin + (mmax - mmin) * i / (n_mels + 1));
  filters_.assign(static_cast<size_t>(n_mels) * kBins, 0.0);
  fbin_lo_.assign(n_mels, kBins);
  fbin_hi_.assign(n_mels, 0);
  for (int m = 0; m < n_mels; ++m) {
    double enorm = 2.0 / (fpts[m + 2] - fpts[m]);
    for (int k = 0; k < kBins; ++k) {
      double f = 8000.0 * k / (kBins - 1);
      double down = (f - fpts[m]) / (fpts[m + 1] - fpts[m]);
      double up = (fpts[m + 2] - f) / (fpts[m + 2] - fpts[m + 1]);
      double v = std::max(0.0, std::min(down, up)) * enorm;
      filters_[static_cast<size_t>(m) * kBins + k] = v;
      if (v > 0) {
        fbin_lo_[m] = std::min(fbin_lo_[m], k);
        fbin_hi_[m] = k + 1;
      }
    }
  }
  const size_t total = static_cast<size_t>(frames) * kWhisperHop;
  padded_.assign(total + kWhisperFft, 0.0);
  a_.resize(kWhisperFft);
  b_.resize(kWhisperFft);
  power_.resize(kBins);
  mel_.resize(static_cast<size_t>(n_mels) * frames);
  return Status::ok();
}

void LogMel::fft(std::complex<double>* x) {
  fft_rec(x, b_.data(), kWhisperFft, 1, 0, twiddle_.data(), 1);
  std::copy(b_.begin(), b_.end(), x);
}

void LogMel::compute(const float* samples, size_t n, float* out) {
  const int64_t N = static_cast<int64_t>(frames_) * kWhisperHop;  // the padded signal's length
  if (n > static_cast<size_t>(N)) n = static_cast<size_t>(N);
  const int64_t pad = kWhisperFft / 2;
  auto at = [&](int64_t i) -> double { return i < static_cast<int64_t>(n) ? samples[i] : 0.0; };
  for (int64_t j = 0; j < N + 2 * pad; ++j) {
    int64_t i = j - pad;
    if (i < 0) i = -i;
    if (i >= N) i = 2 * N - 2 - i;
    padded_[j] = at(i);
  }
  double maxv = -1e300;
  for (int f = 0; f < frames_; ++f) {
    const double* src = padded_.data() + static_cast<size_t>(f) * kWhisperHop;
    for (int i = 0; i < kWhisperFft; ++i) a_[i] = std::complex<double>(src[i] * window_[i], 0.0);
    fft(a_.data());
    for (int k = 0; k < kBins; ++k) power_[k] = std::norm(a_[k]);
    for (int m = 0; m < n_mels_; ++m) {
      const double* w = filters_.data() + static_cast<size_t>(m) * kBins;
      double acc = 0;
      for (int k = fbin_lo_[m]; k < fbin_hi_[m]; ++k) acc += w[k] * power_[k];
      double v = std::log10(std::max(acc, 1e-10));
      mel_[static_cast<size_t>(m) * frames_ + f] = v;
      maxv = std::max(maxv, v);
    }
  }
  const double floor = maxv - 8.0;
  for (size_t i = 0; i < mel_.size(); ++i) out[i] = static_cast<float>((std::max(mel_[i], floor) + 4.0) / 4.0);
}

}  // namespace pte::audio
