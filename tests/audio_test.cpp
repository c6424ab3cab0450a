// The audio front end (audio/): WAV formats, the band-limited resampler, Whisper's
// log-mel spectrogram against transformers' WhisperFeatureExtractor (references written
// by fixtures/exporters/seq2seq_audio.py), and bad WAV input (one clear line, no crash).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "audio/mel.h"
#include "audio/resample.h"
#include "audio/wav.h"
#include "util/json.h"
#include "util/npy.h"

namespace {

namespace fs = std::filesystem;
const std::string kAudio = "fixtures/data/audio/";

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string write_tmp(const std::string& name, const std::string& bytes) {
  fs::path d = fs::temp_directory_path() / ("pte_audio_" + std::to_string(::getpid()));
  fs::create_directories(d);
  fs::path p = d / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

void put32(std::string& s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void put16(std::string& s, size_t at, uint16_t v) {
  s[at] = static_cast<char>(v & 0xff);
  s[at + 1] = static_cast<char>(v >> 8);
}

// A canonical 44-byte-header PCM WAV.
std::string make_wav(int rate, int channels, int bits, int tag, const std::string& data) {
  std::string s(44, '\0');
  std::memcpy(&s[0], "RIFF", 4);
  put32(s, 4, static_cast<uint32_t>(36 + data.size()));
  std::memcpy(&s[8], "WAVEfmt ", 8);
  put32(s, 16, 16);
  put16(s, 20, static_cast<uint16_t>(tag));
  put16(s, 22, static_cast<uint16_t>(channels));
  put32(s, 24, static_cast<uint32_t>(rate));
  put32(s, 28, static_cast<uint32_t>(rate * channels * bits / 8));
  put16(s, 32, static_cast<uint16_t>(channels * bits / 8));
  put16(s, 34, static_cast<uint16_t>(bits));
  std::memcpy(&s[36], "data", 4);
  put32(s, 40, static_cast<uint32_t>(data.size()));
  return s + data;
}

std::string open_error(const std::string& path) {
  std::unique_ptr<pte::audio::WavReader> r;
  pte::Status s = pte::audio::WavReader::open(path, &r);
  if (s) {  // opening may succeed; reading all of it must then fail or succeed cleanly
    std::vector<float> buf(4096);
    size_t got = 0;
    do {
      s = r->read(buf.data(), buf.size(), &got);
    } while (s && got);
  }
  return s ? "" : s.message();
}

double rms(const std::vector<float>& v, size_t from, size_t to) {
  double a = 0;
  for (size_t i = from; i < to; ++i) a += double(v[i]) * v[i];
  return std::sqrt(a / double(to - from));
}

}  // namespace

TEST_CASE("audio: the espeak-ng WAVs read in every format, mixed to mono") {
  struct F { const char* name; int rate, channels, bits; bool is_float; };
  const F files[] = {{"speech_16k_s16", 16000, 1, 16, false}, {"speech_22k_s16", 22050, 1, 16, false},
                     {"speech_44k_s24_stereo", 44100, 2, 24, false}, {"speech_48k_f32", 48000, 1, 32, true},
                     {"speech_8k_u8", 8000, 1, 8, false}, {"speech_16k_s32_3ch", 16000, 3, 32, false}};
  for (const F& f : files) {
    CAPTURE(f.name);
    std::unique_ptr<pte::audio::WavReader> r;
    pte::Status s = pte::audio::WavReader::open(kAudio + f.name + ".wav", &r);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(r->format().sample_rate == f.rate);
    CHECK(r->format().channels == f.channels);
    CHECK(r->format().bits == f.bits);
    CHECK(r->format().is_float == f.is_float);
    CHECK(r->format().frames > 1000);
  }
  // the 32-bit three-channel file is the 16-bit one's first 0.4 s (sox dithers the 16-bit one)
  std::vector<float> a, b;
  REQUIRE(pte::audio::read_wav_16k(kAudio + "speech_16k_s16.wav", &a));
  REQUIRE(pte::audio::read_wav_16k(kAudio + "speech_16k_s32_3ch.wav", &b));
  REQUIRE(b.size() == 6400);
  REQUIRE(a.size() > b.size());
  double worst = 0;
  for (size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
  CHECK(worst < 4.0 / 32768);
  CHECK(rms(b, 0, b.size()) > 0.01);
}

TEST_CASE("audio: the resampler keeps the pass band and removes what would alias") {
  for (int rate : {44100, 48000, 22050, 8000, 11025, 96000}) {
    CAPTURE(rate);
    pte::audio::Resampler rs;
    REQUIRE(rs.init(rate, 16000));
    auto tone = [&](double hz) {
      std::vector<float> x(static_cast<size_t>(rate)), y;  // one second
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(0.5 * std::sin(2 * M_PI * hz * double(i) / rate));
      // in pieces, as a stream arrives
      for (size_t at = 0; at < x.size(); at += 777) rs.push(x.data() + at, std::min<size_t>(777, x.size() - at), &y);
      rs.flush(&y);
      return y;
    };
    std::vector<float> y = tone(1000);
    CHECK(y.size() == 16000);
    double err = 0;
    for (size_t n = 2000; n < 14000; ++n)
      err = std::max(err, std::fabs(y[n] - 0.5 * std::sin(2 * M_PI * 1000.0 * double(n) / 16000)));
    CHECK(err < 2e-3);
    if (rate > 16000) {
      REQUIRE(rs.init(rate, 16000));
      std::vector<float> z = tone(std::min(0.45 * rate, 12000.0));  // above 8 kHz: must not fold back
      CHECK(rms(z, 2000, 14000) < 1e-3);
    }
  }
  pte::audio::Resampler rs;
  CHECK(!rs.init(0, 16000));
}

TEST_CASE("audio: Whisper log-mel equals transformers' WhisperFeatureExtractor") {
  pte::json::Value doc;
  pte::Status s = pte::json::parse_file(kAudio + "references.json", &doc);
  REQUIRE_MESSAGE(s, s.message());
  int exact = 0;
  for (const auto& [name, e] : doc.members()) {
    CAPTURE(name);
    std::vector<float> x;
    s = pte::audio::read_wav_16k(kAudio + name + ".wav", &x);
    REQUIRE_MESSAGE(s, s.message());
    CHECK(static_cast<int64_t>(x.size()) == e.find("samples_16k")->as_int());
    const int F = static_cast<int>(e.find("frames")->as_int());
    const bool is_exact = e.find("how")->as_string() == "exact";
    for (const auto& [mels_s, m] : e.find("mels")->members()) {
      int mels = std::stoi(mels_s);
      CAPTURE(mels);
      pte::audio::LogMel mel;
      REQUIRE(mel.init(mels));
      std::vector<float> ours(static_cast<size_t>(mels) * pte::audio::kWhisperFrames);
      mel.compute(x.data(), x.size(), ours.data());
      pte::util::HostTensor ref;
      s = pte::util::npy_read(kAudio + "feat_" + name + "_" + mels_s + ".npy", &ref);
      REQUIRE_MESSAGE(s, s.message());
      REQUIRE(ref.numel() == static_cast<int64_t>(mels) * F);
      const float* r = reinterpret_cast<const float*>(ref.bytes.data());
      const double floor = m.find("floor")->as_double();
      double diff2 = 0;
      for (int b = 0; b < mels; ++b)
        for (int t = 0; t < pte::audio::kWhisperFrames; ++t) {
          double want = t < F ? r[b * F + t] : floor;
          double d = ours[static_cast<size_t>(b) * pte::audio::kWhisperFrames + t] - want;
          diff2 += d * d;
        }
      double nerr = std::sqrt(diff2) / m.find("norm")->as_double();
      MESSAGE(name << " " << mels << " mels: normalised error " << nerr);
      // resamplers differ near the cut-off (ours at 0.945 of Nyquist, scipy's at 1), where log10
      // magnifies tiny energies: measured 3.3e-3..3.7e-3 downsampling, 2.7e-2 from 8 kHz
      const int64_t rate = e.find("rate")->as_int();
      CHECK(nerr < (is_exact ? 1e-4 : rate > 16000 ? 1e-2 : 4e-2));
      exact += is_exact;
    }
  }
  CHECK(exact >= 3);
}

TEST_CASE("audio: bad WAV input is one clear line") {
  std::string good = slurp(kAudio + "speech_16k_s16.wav");
  REQUIRE(good.size() > 1000);
  std::string pcm(3200, '\0');
  struct Bad { std::string name, bytes, expect; };
  std::vector<Bad> cases;
  cases.push_back({"text.wav", "hello, I am not a WAV file at all\n", "not a WAV file"});
  cases.push_back({"empty.wav", "", "not a WAV file"});
  cases.push_back({"header_only.wav", good.substr(0, 20), "truncated"});
  cases.push_back({"cut.wav", good.substr(0, good.size() / 2), "truncated"});
  cases.push_back({"zero.wav", make_wav(16000, 1, 16, 1, ""), "no samples"});
  cases.push_back({"mulaw.wav", slurp(kAudio + "bad_mulaw.wav"), "mu-law"});
  cases.push_back({"alaw.wav", make_wav(8000, 1, 8, 6, pcm), "A-law"});
  cases.push_back({"192k.wav", make_wav(192000, 1, 16, 1, pcm), "192000 Hz"});
  cases.push_back({"12bit.wav", make_wav(16000, 1, 12, 1, pcm), "12-bit"});
  cases.push_back({"nochan.wav", make_wav(16000, 0, 16, 1, pcm), "channels"});
  std::string w = make_wav(16000, 1, 16, 1, pcm);
  put16(w, 32, 7);  // block align
  cases.push_back({"align.wav", w, "block align"});
  w = make_wav(16000, 1, 16, 1, pcm);
  put32(w, 16, 0xFFFFFFF0u);  // absurd fmt size
  cases.push_back({"fmtsize.wav", w, "fmt chunk"});
  w = make_wav(16000, 1, 16, 1, pcm);
  put32(w, 40, 0x7FFFFFF0u);  // absurd data size
  cases.push_back({"datasize.wav", w, "truncated"});
  w = make_wav(16000, 1, 16, 1, pcm);
  std::memcpy(&w[36], "LIST", 4);  // a chunk before data whose size runs past the end
  put32(w, 40, 0xFFFFFF00u);
  cases.push_back({"listsize.wav", w, "LIST"});
  w = make_wav(16000, 1, 16, 1, pcm);
  std::memcpy(&w[12], "data", 4);  // data before fmt
  cases.push_back({"order.wav", w, "before the fmt"});
  cases.push_back({"rf64.wav", "RF64" + good.substr(4, 100), "RF64"});
  for (const Bad& b : cases) {
    CAPTURE(b.name);
    std::string msg = open_error(write_tmp(b.name, b.bytes));
    CHECK_MESSAGE(msg.find(b.expect) != std::string::npos, msg);
    CHECK(msg.find('\n') == std::string::npos);
  }
  CHECK(open_error("fixtures/data/audio/no_such_file.wav").find("cannot open") != std::string::npos);
  CHECK(open_error("fixtures/data/audio").find("not a regular file") != std::string::npos);
  // every prefix of a valid file fails cleanly or reads; so do header bytes overwritten at random
  for (size_t n = 0; n < 200; n += 3) open_error(write_tmp("prefix.wav", good.substr(0, n)));
  uint32_t lcg = 12345;
  std::string small = make_wav(16000, 2, 16, 1, pcm);
  for (int i = 0; i < 300; ++i) {
    std::string w2 = small;
    for (int k = 0; k < 3; ++k) {
      lcg = lcg * 1664525u + 1013904223u;
      w2[(lcg >> 8) % 48] = static_cast<char>(lcg >> 24);
    }
    std::string msg = open_error(write_tmp("random.wav", w2));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("audio: log-mel refuses bad sizes") {
  pte::audio::LogMel mel;
  CHECK(!mel.init(0));
  CHECK(!mel.init(80, 0));
  REQUIRE(mel.init(80));
  std::vector<float> out(80 * 3000), silence(10, 0.f);
  mel.compute(silence.data(), silence.size(), out.data());
  size_t off = 0;
  for (float v : out) off += v != out[0];
  CHECK(off == 0);  // silence: every bin at the floor
}
