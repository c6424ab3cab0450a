// Tests for util/input_spec (the --input SPEC syntax) and util/host_tensor
// (binding host values to a method signature, dim-order conversion).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "util/host_tensor.h"
#include "util/input_spec.h"
#include "util/npy.h"

using pte::DType;
using pte::Tag;
using pte::util::HostValue;

namespace {

HostValue lit(const std::string& s) {
  HostValue v;
  pte::Status st = pte::util::parse_literal(s, &v);
  INFO(s << ": " << st.message());
  REQUIRE(st);
  return v;
}

std::string err(const std::string& s) {
  HostValue v;
  pte::Status st = pte::util::parse_literal(s, &v);
  INFO(s);
  CHECK_FALSE(st);
  return st.message();
}

template <class T>
T at(const HostValue& v, size_t i) {
  T x;
  REQUIRE((i + 1) * sizeof(T) <= v.tensor.bytes.size());
  std::memcpy(&x, v.tensor.bytes.data() + i * sizeof(T), sizeof(T));
  return x;
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

pte::ValueInfo tensor_info(DType d, std::vector<int64_t> sizes, pte::Dynamism dyn = pte::Dynamism::Static,
                           std::vector<uint8_t> order = {}) {
  pte::ValueInfo v;
  v.tag = Tag::Tensor;
  v.tensor.dtype = d;
  if (order.empty())
    for (size_t k = 0; k < sizes.size(); ++k) order.push_back(static_cast<uint8_t>(k));
  v.tensor.sizes = std::move(sizes);
  v.tensor.dim_order = std::move(order);
  v.tensor.dynamism = dyn;
  return v;
}

}  // namespace

TEST_CASE("input spec: tensor literals of every dtype") {
  HostValue v = lit("f32[2,2]:1,2,3,4");
  CHECK(v.tag == Tag::Tensor);
  CHECK(v.tensor.dtype == DType::Float);
  CHECK(v.tensor.shape == std::vector<int64_t>{2, 2});
  CHECK(at<float>(v, 0) == 1.0f);
  CHECK(at<float>(v, 3) == 4.0f);

  v = lit("i64[1]:4");
  CHECK(v.tensor.dtype == DType::Int64);
  CHECK(at<int64_t>(v, 0) == 4);

  v = lit("bool[3]:1,0,true");
  CHECK(v.tensor.dtype == DType::Bool);
  CHECK(v.tensor.bytes == std::vector<uint8_t>{1, 0, 1});

  v = lit("f16[2]:1.5,-2");
  CHECK(at<uint16_t>(v, 0) == 0x3E00);
  CHECK(at<uint16_t>(v, 1) == 0xC000);
  v = lit("bf16[2]:1,-0.5");
  CHECK(at<uint16_t>(v, 0) == 0x3F80);
  CHECK(at<uint16_t>(v, 1) == 0xBF00);
  v = lit("f64[1]:0.1");
  CHECK(at<double>(v, 0) == 0.1);
  v = lit("i32[2]:-2147483648,2147483647");
  CHECK(at<int32_t>(v, 0) == INT32_MIN);
  CHECK(at<int32_t>(v, 1) == INT32_MAX);
  v = lit("i16[1]:-32768");
  CHECK(at<int16_t>(v, 0) == -32768);
  v = lit("i8[2]:-128,127");
  CHECK(at<int8_t>(v, 0) == -128);
  v = lit("u8[2]:0,255");
  CHECK(v.tensor.bytes == std::vector<uint8_t>{0, 255});
  v = lit(" f32[2] : 1 , 2 ");
  CHECK(at<float>(v, 1) == 2.0f);
  v = lit("float32[1]:3");
  CHECK(v.tensor.dtype == DType::Float);
}

TEST_CASE("input spec: fill, 0-d and empty tensors") {
  HostValue v = lit("f32[2,2]:7");
  REQUIRE(v.tensor.bytes.size() == 16);
  for (size_t i = 0; i < 4; ++i) CHECK(at<float>(v, i) == 7.0f);
  v = lit("f32[]:3.5");
  CHECK(v.tensor.shape.empty());
  CHECK(at<float>(v, 0) == 3.5f);
  v = lit("i64[0]:");
  CHECK(v.tensor.shape == std::vector<int64_t>{0});
  CHECK(v.tensor.bytes.empty());
  v = lit("f32[2,0,3]:");
  CHECK(v.tensor.numel() == 0);

  CHECK(has(err("f32[2,2]:1,2"), "needs 4 values (or one to fill it), got 2"));
  CHECK(has(err("f32[2,2]:1,2,3,4,5"), "got 5"));
  CHECK(has(err("f32[]:"), "needs 1 values"));
  CHECK(has(err("f32[0]:1"), "no elements"));
}

TEST_CASE("input spec: special floats and range checks") {
  HostValue v = lit("f32[3]:nan,inf,-inf");
  CHECK(std::isnan(at<float>(v, 0)));
  CHECK(at<float>(v, 1) == INFINITY);
  CHECK(at<float>(v, 2) == -INFINITY);
  CHECK(has(err("f32[1]:1e39"), "out of range for f32"));
  CHECK(has(err("f16[1]:70000"), "out of range for f16"));
  CHECK(has(err("u8[1]:256"), "out of range for u8"));
  CHECK(has(err("i8[1]:-129"), "out of range for i8"));
  CHECK(has(err("i32[1]:2147483648"), "out of range for i32"));
  CHECK(has(err("i64[1]:1.5"), "not an integer"));
  CHECK(has(err("i64[1]:99999999999999999999"), "not an integer"));
  CHECK(has(err("bool[1]:2"), "1/0/true/false"));
  CHECK(has(err("f32[1]:abc"), "not a number"));
  CHECK(has(err("f32[1]:"), "needs 1 values"));
}

TEST_CASE("input spec: scalars") {
  HostValue v = lit("i64:3");
  CHECK(v.tag == Tag::Int);
  CHECK(v.i == 3);
  v = lit("f64:2.5");
  CHECK(v.tag == Tag::Double);
  CHECK(v.d == 2.5);
  v = lit("bool:true");
  CHECK(v.tag == Tag::Bool);
  CHECK(v.b);
  v = lit("bool:0");
  CHECK_FALSE(v.b);
  CHECK(has(err("f32:2"), "f32[]:2"));
  CHECK(has(err("i64:abc"), "not an int64"));
  CHECK(has(err("q8:1"), "unknown type"));
  CHECK(has(err("q8[1]:1"), "unknown dtype"));
  CHECK(has(err("f32[2,x]:1"), "non-negative integer"));
  CHECK(has(err("f32[-1]:1"), "non-negative integer"));
  CHECK(has(err("1,2,3"), "neither a .npy file nor a literal"));
}

TEST_CASE("input spec: .npy files") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("pte_spec_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  HostValue src = lit("i32[2,2]:1,2,3,4");
  std::string path = (dir / "a.npy").string();
  REQUIRE(pte::util::npy_write(path, src.tensor));
  HostValue v;
  REQUIRE(pte::util::parse_input_spec(path, &v));
  CHECK(v.tag == Tag::Tensor);
  CHECK(v.tensor.dtype == DType::Int32);
  CHECK(v.tensor.bytes == src.tensor.bytes);
  pte::Status s = pte::util::parse_input_spec((dir / "nope.npy").string(), &v);
  CHECK_FALSE(s);
  CHECK(has(s.message(), "nope.npy"));
  fs::remove_all(dir);
}

TEST_CASE("bind_input: checks against the signature and converts the dim order") {
  pte::MethodInfo m;
  m.name = "forward";
  m.inputs.push_back(tensor_info(DType::Float, {2, 2}));
  pte::ValueInfo k;
  k.tag = Tag::Int;
  k.int_value = 3;
  m.inputs.push_back(k);
  m.inputs.push_back(tensor_info(DType::Float, {8, 4}, pte::Dynamism::DynamicBound));
  m.inputs.push_back(tensor_info(DType::Float, {1, 2, 2, 3}, pte::Dynamism::Static, {0, 2, 3, 1}));  // channels last
  m.outputs.push_back(tensor_info(DType::Float, {2, 2}));
  CHECK(pte::util::signature_string(m) == "forward(f32[2,2], i64:3, f32[<=8,<=4], f32[1,2,2,3]) -> (f32[2,2])");

  pte::util::BoundInput b;
  CHECK(pte::util::bind_input(m, 0, lit("f32[2,2]:1,2,3,4"), &b));
  CHECK(b.is_tensor);
  CHECK(b.tensor.dim == 2);
  CHECK(b.tensor.ptr<float>()[3] == 4.0f);
  pte::Status s = pte::util::bind_input(m, 0, lit("i64[2,2]:1"), &b);
  CHECK(s.message() == "input 0: expected f32[2,2], got i64[2,2]");
  s = pte::util::bind_input(m, 0, lit("f32[4]:1"), &b);
  CHECK(s.message() == "input 0: expected f32[2,2], got f32[4]");
  s = pte::util::bind_input(m, 0, lit("i64:3"), &b);
  CHECK(s.message() == "input 0: expected f32[2,2], got i64:3");

  CHECK(pte::util::bind_input(m, 1, lit("i64:3"), &b));
  CHECK_FALSE(b.is_tensor);
  CHECK(b.scalar.tag == Tag::Int);
  CHECK(b.scalar.i == 3);
  s = pte::util::bind_input(m, 1, lit("i64:4"), &b);
  CHECK(has(s.message(), "exported with i64:3 baked in"));
  s = pte::util::bind_input(m, 1, lit("f64:3"), &b);
  CHECK(s.message() == "input 1: expected i64:3, got f64:3");

  CHECK(pte::util::bind_input(m, 2, lit("f32[3,4]:0"), &b));
  CHECK(b.tensor.sizes[0] == 3);
  CHECK(b.tensor.dynamism == pte::Dynamism::DynamicBound);
  CHECK(pte::util::bind_input(m, 2, lit("f32[8,4]:0"), &b));
  s = pte::util::bind_input(m, 2, lit("f32[9,4]:0"), &b);
  CHECK(s.message() == "input 2: expected f32[<=8,<=4], got f32[9,4]");
  CHECK_FALSE(pte::util::bind_input(m, 2, lit("f32[4]:0"), &b));

  // NCHW logical values 0..11 laid out NHWC: physical (h, w, c) holds c*6 + h*3 + w.
  HostValue nchw = lit("f32[1,2,2,3]:0,1,2,3,4,5,6,7,8,9,10,11");
  REQUIRE(pte::util::bind_input(m, 3, nchw, &b));
  CHECK(b.tensor.strides[1] == 1);
  CHECK(b.tensor.strides[3] == 2);
  const float* p = b.tensor.ptr<float>();
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 3; ++w)
      for (int c = 0; c < 2; ++c) CHECK(p[(h * 3 + w) * 2 + c] == static_cast<float>(c * 6 + h * 3 + w));
  // And back to C order.
  pte::util::HostTensor back;
  REQUIRE(pte::util::host_from_tensor(b.tensor, &back));
  CHECK(back.shape == nchw.tensor.shape);
  CHECK(back.bytes == nchw.tensor.bytes);

  s = pte::util::bind_input(m, 4, nchw, &b);
  CHECK(has(s.message(), "takes 4 inputs"));
}

TEST_CASE("host_from_physical: dim order and sizes are checked") {
  const float data[6] = {0, 1, 2, 3, 4, 5};
  const int64_t sizes[2] = {2, 3};
  const uint8_t transposed[2] = {1, 0};  // physical [3][2]: element (i, j) at j*2 + i
  pte::util::HostTensor t;
  REQUIRE(pte::util::host_from_physical(DType::Float, sizes, 2, transposed, data, sizeof(data), &t));
  float got[6];
  std::memcpy(got, t.bytes.data(), sizeof(got));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) CHECK(got[i * 3 + j] == data[j * 2 + i]);
  const uint8_t bad_order[2] = {1, 1};
  CHECK_FALSE(pte::util::host_from_physical(DType::Float, sizes, 2, bad_order, data, sizeof(data), &t));
  CHECK_FALSE(pte::util::host_from_physical(DType::Float, sizes, 2, nullptr, data, sizeof(data) - 4, &t));
  CHECK_FALSE(pte::util::host_from_physical(DType::Float, sizes, 2, nullptr, data, sizeof(data) + 4, &t));
}
