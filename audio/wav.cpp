#include "audio/wav.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "audio/resample.h"

namespace pte::audio {

namespace {

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

const char* format_name(unsigned tag) {
  switch (tag) {
    case 0x0002: return "Microsoft ADPCM";
    case 0x0006: return "A-law";
    case 0x0007: return "mu-law";
    case 0x0011: return "IMA ADPCM";
    case 0x0031: return "GSM 6.10";
    case 0x0050: return "MPEG";
    case 0x0055: return "MP3";
    case 0x0161: return "WMA";
    default: return nullptr;
  }
}

std::string chunk_name(const uint8_t* id) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (id[i] >= 32 && id[i] < 127) ? static_cast<char>(id[i]) : '?';
  return s;
}

}  // namespace

WavReader::~WavReader() {
  if (f_) std::fclose(f_);
}

Status WavReader::open(const std::string& path, std::unique_ptr<WavReader>* out) {
  auto fail = [&](const std::string& m) { return Status::error(path + ": " + m); };
  struct stat sb;
  if (::stat(path.c_str(), &sb) != 0) return fail(std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(sb.st_mode)) return fail("not a regular file");
  std::unique_ptr<WavReader> r(new WavReader());
  r->path_ = path;
  r->f_ = std::fopen(path.c_str(), "rb");
  if (!r->f_) return fail(std::string("cannot open: ") + std::strerror(errno));
  const uint64_t file_size = static_cast<uint64_t>(sb.st_size);
  uint8_t hdr[12];
  if (file_size < 12 || std::fread(hdr, 1, 12, r->f_) != 12) return fail("not a WAV file (shorter than a RIFF header)");
  if (!std::memcmp(hdr, "RF64", 4)) return fail("RF64 (64-bit WAV) is not supported");
  if (std::memcmp(hdr, "RIFF", 4) || std::memcmp(hdr + 8, "WAVE", 4)) return fail("not a WAV file (no RIFF/WAVE header)");

  uint64_t pos = 12;
  bool have_fmt = false;
  unsigned tag = 0;
  int block_align = 0;
  WavFormat& fm = r->fmt_;
  for (;;) {
    uint8_t ch[8];
    if (pos + 8 > file_size) return fail(have_fmt ? "truncated: no data chunk" : "truncated: no fmt chunk");
    if (std::fseek(r->f_, static_cast<long>(pos), SEEK_SET) != 0 || std::fread(ch, 1, 8, r->f_) != 8)
      return fail("read error in the chunk list");
    uint32_t size = le32(ch + 4);
    uint64_t body = pos + 8, left = file_size - body;
    if (!std::memcmp(ch, "fmt ", 4)) {
      if (size < 16 || size > 1024) return fail("fmt chunk of " + std::to_string(size) + " bytes (expected 16..1024)");
      if (size > left) return fail("truncated: the fmt chunk runs past the end of the file");
      uint8_t b[1024];
      if (std::fread(b, 1, size, r->f_) != size) return fail("read error in the fmt chunk");
      tag = le16(b);
      fm.channels = le16(b + 2);
      fm.sample_rate = static_cast<int>(le32(b + 4) > 0x7fffffffu ? 0x7fffffff : le32(b + 4));
      block_align = le16(b + 12);
      fm.bits = le16(b + 14);
      if (tag == 0xFFFE) {  // WAVE_FORMAT_EXTENSIBLE: the sub-format GUID starts with the real tag
        if (size < 40 || le16(b + 16) < 22) return fail("WAVE_FORMAT_EXTENSIBLE fmt chunk is too short");
        tag = le16(b + 24);
      }
      have_fmt = true;
    } else if (!std::memcmp(ch, "data", 4)) {
      if (!have_fmt) return fail("data chunk before the fmt chunk");
      uint64_t data = size;
      if (size == 0xFFFFFFFFu) data = left;  // a streamed file whose writer never came back to fix the size
      else if (data > left)
        return fail("truncated: the data chunk declares " + std::to_string(data) + " bytes, the file holds " +
                    std::to_string(left));
      if (tag != 1 && tag != 3) {
        const char* n = format_name(tag);
        return fail(std::string("unsupported encoding ") + (n ? n : "format tag " + std::to_string(tag)) +
                    " (pte-run reads PCM integer and IEEE float WAV)");
      }
      if (fm.channels < 1 || fm.channels > 64) return fail(std::to_string(fm.channels) + " channels (expected 1..64)");
      bool bits_ok = tag == 1 ? (fm.bits == 8 || fm.bits == 16 || fm.bits == 24 || fm.bits == 32)
                              : (fm.bits == 32 || fm.bits == 64);
      if (!bits_ok)
        return fail(std::to_string(fm.bits) + "-bit " + (tag == 1 ? "PCM" : "float") +
                    " samples are not supported (PCM 8/16/24/32, float 32/64)");
      fm.is_float = tag == 3;
      if (block_align != fm.channels * fm.bits / 8)
        return fail("block align " + std::to_string(block_align) + " does not match " + std::to_string(fm.channels) +
                    " channels of " + std::to_string(fm.bits) + " bits");
      if (fm.sample_rate < kMinSampleRate || fm.sample_rate > kMaxSampleRate)
        return fail("sample rate " + std::to_string(fm.sample_rate) + " Hz is outside the " +
                    std::to_string(kMinSampleRate) + ".." + std::to_string(kMaxSampleRate) + " Hz pte-run resamples");
      fm.frames = data / static_cast<uint64_t>(block_align);
      if (fm.frames == 0) return fail("the WAV file has no samples");
      r->frames_left_ = fm.frames;
      if (std::fseek(r->f_, static_cast<long>(body), SEEK_SET) != 0) return fail("seek error");
      *out = std::move(r);
      return Status::ok();
    } else if (size > left) {
      return fail("truncated or corrupt: chunk '" + chunk_name(ch) + "' declares " + std::to_string(size) +
                  " bytes, the file holds " + std::to_string(left));
    }
    pos = body + size + (size & 1u);
  }
}

Status WavReader::read(float* out, size_t max_frames, size_t* got) {
  *got = 0;
  size_t n = static_cast<size_t>(std::min<uint64_t>(max_frames, frames_left_));
  if (n == 0) return Status::ok();
  const size_t bpf = static_cast<size_t>(fmt_.channels) * (fmt_.bits / 8);
  raw_.resize(n * bpf);
  size_t rd = std::fread(raw_.data(), bpf, n, f_);
  if (rd != n) return Status::error(path_ + ": read error: the file ended inside its data chunk");
  const int C = fmt_.channels, B = fmt_.bits / 8;
  const float inv_c = 1.0f / static_cast<float>(C);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = raw_.data() + i * bpf;
    double acc = 0;
    for (int c = 0; c < C; ++c, p += B) {
      double v;
      if (fmt_.is_float) {
        if (B == 4) { float x; std::memcpy(&x, p, 4); v = x; }
        else { double x; std::memcpy(&x, p, 8); v = x; }
        if (!(v == v)) v = 0;  // NaN samples are silence
      } else if (B == 1) {
        v = (static_cast<int>(p[0]) - 128) / 128.0;
      } else if (B == 2) {
        v = static_cast<int16_t>(le16(p)) / 32768.0;
      } else if (B == 3) {
        int32_t x = static_cast<int32_t>((static_cast<uint32_t>(p[0]) << 8) | (static_cast<uint32_t>(p[1]) << 16) |
                                         (static_cast<uint32_t>(p[2]) << 24)) >> 8;
        v = x / 8388608.0;
      } else {
        v = static_cast<int32_t>(le32(p)) / 2147483648.0;
      }
      acc += v;
    }
    out[i] = static_cast<float>(acc) * inv_c;
  }
  frames_left_ -= n;
  *got = n;
  return Status::ok();
}

Status read_wav_16k(const std::string& path, std::vector<float>* out) {
  std::unique_ptr<WavReader> r;
  PTE_TRY(WavReader::open(path, &r));
  Resampler rs;
  PTE_TRY(rs.init(r->format().sample_rate, 16000));
  out->clear();
  std::vector<float> buf(16384);
  for (;;) {
    size_t got = 0;
    PTE_TRY(r->read(buf.data(), buf.size(), &got));
    if (!got) break;
    rs.push(buf.data(), got, out);
  }
  rs.flush(out);
  return Status::ok();
}

}  // namespace pte::audio
