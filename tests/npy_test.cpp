// Tests for util/npy: bytes written by numpy 2.x itself (np.save), every header
// version, the refusals, truncation at every length, and our writer reproducing
// numpy's bytes exactly.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

#include "ops/util.h"
#include "util/npy.h"

using pte::DType;
using pte::util::HostTensor;

namespace {

// np.save(np.array([[1, 2], [3, 4]], dtype="<f4"))
const std::string kF32_2x2(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x34\x27\x2c\x20\x27\x66\x6f\x72\x74"
    "\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x20"
    "\x32\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40",
    144);
// np.save(np.array([5, -6, 7], dtype="<i8"))
const std::string kI64_3(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x69\x38\x27\x2c\x20\x27\x66\x6f\x72\x74"
    "\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x33\x2c\x29"
    "\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x05\x00\x00\x00\x00\x00\x00\x00\xfa\xff\xff\xff\xff\xff\xff\xff\x07\x00\x00\x00\x00\x00\x00\x00",
    152);
// np.save(np.array(True))
const std::string kBool0d(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x7c\x62\x31\x27\x2c\x20\x27\x66\x6f\x72\x74"
    "\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x29\x2c\x20"
    "\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x01",
    129);
// np.save(np.array([1.5, -2], dtype="<f2"))
const std::string kF16_2(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x32\x27\x2c\x20\x27\x66\x6f\x72\x74"
    "\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x29"
    "\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x00\x3e\x00\xc0",
    132);
// np.save(format.write_array(np.array([[1, 2, 3]], dtype="u1"), version=(2, 0)))
const std::string kU8V2(
    "\x93\x4e\x55\x4d\x50\x59\x02\x00\x74\x00\x00\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x7c\x75\x31\x27\x2c\x20\x27\x66\x6f"
    "\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x31"
    "\x2c\x20\x33\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x01\x02\x03",
    131);
// np.save(format.write_array(np.array([7], dtype="<i4"), version=(3, 0)))
const std::string kI32V3(
    "\x93\x4e\x55\x4d\x50\x59\x03\x00\x74\x00\x00\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x69\x34\x27\x2c\x20\x27\x66\x6f"
    "\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x31"
    "\x2c\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x07\x00\x00\x00",
    132);
// np.save(np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
const std::string kF32Fortran(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x66\x34\x27\x2c\x20\x27\x66\x6f\x72\x74"
    "\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x54\x72\x75\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x20\x33"
    "\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x00\x00\x00\x00\x00\x00\x40\x40\x00\x00\x80\x3f\x00\x00\x80\x40\x00\x00\x00\x40\x00\x00\xa0\x40",
    152);
// np.save(np.array([1.0], dtype=">f8"))
const std::string kF64BigEndian(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3e\x66\x38\x27\x2c\x20\x27\x66\x6f\x72\x74"
    "\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x31\x2c\x29"
    "\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a"
    "\x3f\xf0\x00\x00\x00\x00\x00\x00",
    136);
// np.save(np.zeros((2, 0), dtype="<i2"))
const std::string kI16Empty(
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c\x69\x32\x27\x2c\x20\x27\x66\x6f\x72\x74"
    "\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x20"
    "\x30\x29\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a",
    128);

// Parses from an exact-size heap copy (so a read past the end is a real overrun).
pte::Status parse(const std::string& bytes, HostTensor* out) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() ? bytes.size() : 1]);
  std::memcpy(copy.get(), bytes.data(), bytes.size());
  return pte::util::npy_parse(copy.get(), bytes.size(), "test.npy", out);
}

// A version 1.0 file with the given header text (padded like numpy) and data bytes.
std::string v1_file(const std::string& header, const std::string& data) {
  std::string h = header;
  size_t total = 10 + h.size() + 1;
  h.append((total + 63) / 64 * 64 - total, ' ');
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + data;
}

template <class T>
T at(const HostTensor& t, size_t i) {
  T v;
  std::memcpy(&v, t.bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

std::string as_string(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

}  // namespace

TEST_CASE("npy: reads numpy's own files") {
  HostTensor t;
  REQUIRE(parse(kF32_2x2, &t));
  CHECK(t.dtype == DType::Float);
  CHECK(t.shape == std::vector<int64_t>{2, 2});
  REQUIRE(t.bytes.size() == 16);
  CHECK(at<float>(t, 0) == 1.0f);
  CHECK(at<float>(t, 1) == 2.0f);
  CHECK(at<float>(t, 2) == 3.0f);
  CHECK(at<float>(t, 3) == 4.0f);

  REQUIRE(parse(kI64_3, &t));
  CHECK(t.dtype == DType::Int64);
  CHECK(t.shape == std::vector<int64_t>{3});
  CHECK(at<int64_t>(t, 0) == 5);
  CHECK(at<int64_t>(t, 1) == -6);
  CHECK(at<int64_t>(t, 2) == 7);

  REQUIRE(parse(kBool0d, &t));
  CHECK(t.dtype == DType::Bool);
  CHECK(t.shape.empty());
  CHECK(t.numel() == 1);
  REQUIRE(t.bytes.size() == 1);
  CHECK(t.bytes[0] == 1);

  REQUIRE(parse(kF16_2, &t));
  CHECK(t.dtype == DType::Half);
  CHECK(at<uint16_t>(t, 0) == 0x3E00);  // 1.5
  CHECK(at<uint16_t>(t, 1) == 0xC000);  // -2

  REQUIRE(parse(kI16Empty, &t));
  CHECK(t.dtype == DType::Int16);
  CHECK(t.shape == std::vector<int64_t>{2, 0});
  CHECK(t.bytes.empty());
}

TEST_CASE("npy: format versions 2.0 and 3.0") {
  HostTensor t;
  REQUIRE(parse(kU8V2, &t));
  CHECK(t.dtype == DType::UInt8);
  CHECK(t.shape == std::vector<int64_t>{1, 3});
  CHECK(t.bytes == std::vector<uint8_t>{1, 2, 3});
  REQUIRE(parse(kI32V3, &t));
  CHECK(t.dtype == DType::Int32);
  CHECK(at<int32_t>(t, 0) == 7);
}

TEST_CASE("npy: refusals name the problem") {
  HostTensor t;
  pte::Status s = parse(kF32Fortran, &t);
  CHECK_FALSE(s);
  CHECK(s.message().find("fortran_order") != std::string::npos);
  s = parse(kF64BigEndian, &t);
  CHECK_FALSE(s);
  CHECK(s.message().find("big-endian") != std::string::npos);

  s = parse(kF32_2x2 + std::string("\x00", 1), &t);
  CHECK_FALSE(s);
  CHECK(s.message().find("unexpected bytes") != std::string::npos);

  std::string bad_version = kF32_2x2;
  bad_version[6] = 4;
  s = parse(bad_version, &t);
  CHECK_FALSE(s);
  CHECK(s.message().find("version 4.0") != std::string::npos);

  CHECK_FALSE(parse("not a numpy file at all", &t));
  std::string four = std::string(4, '\0');
  CHECK_FALSE(parse(v1_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four.substr(0, 3)), &t));
  CHECK(parse(v1_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four), &t));
  CHECK(parse(v1_file("{\"descr\": \"<f4\", \"shape\": (1,), \"fortran_order\": False}", four), &t));

  const char* bad_headers[] = {
      "{'descr': '<f4', 'fortran_order': False}",                                  // no shape
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1, }",       // unknown key
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",         // structured
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",                 // negative size
      "{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,), }",
      "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",                  // complex
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } trailing",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }",  // 17 dims
      "[1, 2]",
  };
  for (const char* h : bad_headers) {
    CAPTURE(h);
    pte::Status e = parse(v1_file(h, four), &t);
    CHECK_FALSE(e);
    CHECK(e.message().rfind("test.npy: ", 0) == 0);
  }
}

TEST_CASE("npy: every truncation is refused without reading past the end") {
  for (const std::string* f : {&kF32_2x2, &kU8V2, &kI32V3, &kBool0d}) {
    for (size_t n = 0; n < f->size(); ++n) {
      HostTensor t;
      CAPTURE(n);
      CHECK_FALSE(parse(f->substr(0, n), &t));
    }
  }
  // A header length pointing past the end of the file.
  std::string big = kF32_2x2;
  big[8] = '\xff';
  big[9] = '\x7f';
  HostTensor t;
  pte::Status s = parse(big, &t);
  CHECK_FALSE(s);
  CHECK(s.message().find("exceeds the file") != std::string::npos);
}

TEST_CASE("npy: the writer reproduces numpy's bytes") {
  HostTensor t;
  for (const std::string* f : {&kF32_2x2, &kI64_3, &kBool0d, &kF16_2, &kI16Empty}) {
    REQUIRE(parse(*f, &t));
    CHECK(as_string(pte::util::npy_encode(t)) == *f);
  }
  // A version 2/3 file is rewritten as 1.0 with the same array.
  REQUIRE(parse(kU8V2, &t));
  HostTensor back;
  REQUIRE(parse(as_string(pte::util::npy_encode(t)), &back));
  CHECK(back.dtype == DType::UInt8);
  CHECK(back.shape == t.shape);
  CHECK(back.bytes == t.bytes);
}

TEST_CASE("npy: round trip of every dtype, bfloat16 as <V2") {
  const DType dtypes[] = {DType::Float, DType::Double, DType::Half, DType::BFloat16, DType::Int64, DType::Int32,
                          DType::Int16, DType::Int8,  DType::UInt8, DType::Bool,    DType::UInt16, DType::UInt32,
                          DType::UInt64};
  for (DType d : dtypes) {
    CAPTURE(pte::dtype_name(d));
    HostTensor t;
    t.dtype = d;
    t.shape = {2, 3};
    t.bytes.resize(6 * pte::dtype_size(d));
    for (size_t i = 0; i < t.bytes.size(); ++i) t.bytes[i] = static_cast<uint8_t>(d == DType::Bool ? i % 2 : i * 7 + 1);
    std::vector<uint8_t> enc = pte::util::npy_encode(t);
    CHECK(enc.size() % 64 == t.bytes.size() % 64);  // header padded to 64
    HostTensor back;
    REQUIRE(pte::util::npy_parse(enc.data(), enc.size(), "rt", &back));
    CHECK(back.dtype == d);
    CHECK(back.shape == t.shape);
    CHECK(back.bytes == t.bytes);
  }
  HostTensor bf;
  bf.dtype = DType::BFloat16;
  bf.shape = {1};
  bf.bytes = {0x80, 0x3f};  // 1.0
  std::string enc = as_string(pte::util::npy_encode(bf));
  CHECK(enc.find("'descr': '<V2'") != std::string::npos);
  CHECK(std::string(pte::util::npy_descr(DType::BFloat16)) == "<V2");
  CHECK(pte::util::npy_descr(DType::QInt8) == nullptr);
}

TEST_CASE("npy: a header over 64 KiB uses version 2.0") {
  // Our writer never needs one (16 dims at most); numpy writes them for huge headers.
  std::string shape = "(";
  for (int i = 0; i < 16; ++i) shape += "1, ";
  shape += ")";
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(70000, ' ');
  size_t total = 12 + header.size() + 1;
  header.append((total + 63) / 64 * 64 - total, ' ');
  header += '\n';
  std::string file("\x93NUMPY\x02\x00", 8);
  for (int k = 0; k < 4; ++k) file += static_cast<char>((header.size() >> (8 * k)) & 0xff);
  file += header;
  file += '\x2a';
  HostTensor back;
  REQUIRE(parse(file, &back));
  CHECK(back.shape.size() == 16);
  CHECK(back.bytes == std::vector<uint8_t>{42});
}

TEST_CASE("npy: files on disk") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("pte_npy_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  HostTensor t;
  REQUIRE(parse(kI64_3, &t));
  std::string path = (dir / "x.npy").string();
  REQUIRE(pte::util::npy_write(path, t));
  HostTensor back;
  REQUIRE(pte::util::npy_read(path, &back));
  CHECK(back.bytes == t.bytes);
  pte::Status s = pte::util::npy_read((dir / "missing.npy").string(), &back);
  CHECK_FALSE(s);
  CHECK(s.message().find("missing.npy") != std::string::npos);
  fs::remove_all(dir);

  // A fixture written by the project's exporter (numpy), when present.
  if (fs::exists("fixtures/data/add/input_0_0.npy")) {
    REQUIRE(pte::util::npy_read("fixtures/data/add/input_0_0.npy", &back));
    CHECK(back.dtype == DType::Float);
    CHECK(back.shape == std::vector<int64_t>{2, 3});
  }
}
