// Tests of program description (Program::info) and of `pte-run info` (text and
// --json) on the real corpus. Expected values come from the corpus README and from
// decoding the files independently with `flatc --json --raw-binary` and the header
// bytes (noted next to each check).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "interpreter/loader.h"
#include "pte/program.h"
#include "util/json.h"

namespace {

const std::string kCorpus = "../shared/pte-corpus/";

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// Corpus file path, or "" (with a note) when the corpus is absent.
std::string corpus(const std::string& rel) {
  std::string p = kCorpus + rel;
  if (!exists(p)) {
    MESSAGE("skipped: " << p << " not found");
    return "";
  }
  return p;
}

// The pte-run binary: $PTE_RUN (set by meson test) or ../bin/pte-run next to us.
std::string pte_run() {
  if (const char* e = std::getenv("PTE_RUN")) return e;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string self(buf, static_cast<size_t>(n));
  std::string dir = self.substr(0, self.rfind('/'));
  std::string p = dir + "/../bin/pte-run";
  return exists(p) ? p : "";
}

std::string temp_dir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/pte-info-test-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    return std::string(d ? d : "/tmp");
  }();
  return dir;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const void* data, size_t n) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::string s = read_text(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}

struct Run {
  int code = -1;
  std::string out, err;
};

// Runs `pte-run ARGS` through popen (stdout captured, stderr to a file).
Run run_cli(const std::string& args) {
  Run r;
  std::string err_file = temp_dir() + "/stderr.txt";
  std::string cmd = "'" + pte_run() + "' " + args + " 2>'" + err_file + "'";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = ::pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  r.err = read_text(err_file);
  return r;
}

std::string q(const std::string& s) { return "'" + s + "'"; }

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

pte::json::Value run_json(const std::string& args) {
  Run r = run_cli("info --json " + args);
  INFO("args: " << args << "\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  pte::json::Value doc;
  pte::Status s = pte::json::parse(r.out, &doc);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return doc;
}

const pte::json::Value* method(const pte::json::Value& doc, const std::string& name) {
  for (const auto& m : doc.find("methods")->items())
    if (m.find("name")->as_string() == name) return &m;
  return nullptr;
}

std::vector<int64_t> ints(const pte::json::Value& arr) {
  std::vector<int64_t> v;
  for (const auto& x : arr.items()) v.push_back(x.as_int());
  return v;
}

#define NEED_CLI()                                   \
  if (pte_run().empty()) {                           \
    MESSAGE("skipped: pte-run binary not found");    \
    return;                                          \
  }

std::unique_ptr<pte::Program> open_ok(const std::string& path, std::vector<std::string> data = {}) {
  pte::OpenOptions o;
  o.data_files = std::move(data);
  std::unique_ptr<pte::Program> p;
  pte::Status s = pte::Program::open_file(path, o, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return p;
}

}  // namespace

// ---------------------------------------------------------------- library level

TEST_CASE("info: Arduino AddModel header, segment and method") {
  std::string f = corpus("executorch/arduino_AddModel.pte");
  if (f.empty()) return;
  auto p = open_ok(f);
  const pte::ProgramInfo& pi = p->info();
  // Header: eh00, program_size 1040, segment base 1152, segment data 4 (pte-format.md §1.1).
  CHECK(pi.file_bytes == 1156);
  CHECK(pi.extended_header);
  REQUIRE(pi.segments.size() == 1);
  CHECK(pi.segments[0].offset == 1152);
  CHECK(pi.segments[0].size == 4);
  CHECK(pi.constant_bytes == 4);
  CHECK(!pi.legacy_constant_buffer);
  REQUIRE(pi.methods.size() == 1);
  const pte::MethodInfo& m = pi.methods[0];
  CHECK(m.name == "forward");
  CHECK(m.num_values == 4);
  CHECK(m.num_instructions == 1);
  CHECK(m.planned_buffers == std::vector<int64_t>{32});
  REQUIRE(m.inputs.size() == 1);
  CHECK(m.inputs[0].tag == pte::Tag::Tensor);
  CHECK(m.inputs[0].tensor.dtype == pte::DType::Float);
  CHECK(m.inputs[0].tensor.sizes == std::vector<int64_t>{3});
  REQUIRE(m.operators.size() == 1);
  CHECK(m.operators[0].name == "aten::add.out");
}

TEST_CASE("info: add.pte without extended header lists one empty segment") {
  std::string f = corpus("executorch/add_apple.pte");
  if (f.empty()) return;
  auto p = open_ok(f);
  const pte::ProgramInfo& pi = p->info();
  CHECK(!pi.extended_header);
  REQUIRE(pi.segments.size() == 1);  // segments = [{0,0}] (pte-format.md §1.1)
  CHECK(pi.segments[0].size == 0);
  CHECK(pi.constant_bytes == 0);
  REQUIRE(pi.methods.size() == 1);
  CHECK(pi.methods[0].inputs.size() == 2);
  CHECK(pi.methods[0].planned_buffers == std::vector<int64_t>{48});
}

TEST_CASE("info: legacy inline constant_buffer") {
  std::string f = corpus("executorch/ModuleLinear-no-constant-segment.pte");
  if (f.empty()) return;
  auto p = open_ok(f);
  const pte::ProgramInfo& pi = p->info();
  CHECK(pi.legacy_constant_buffer);
  CHECK(pi.constant_bytes == 32);  // constant_buffer storage sizes [0, 16, 16]
  CHECK(pi.segments.empty());
  CHECK(!pi.extended_header);
  const pte::MethodInfo& m = pi.methods.at(0);
  CHECK(m.num_values == 6);
  CHECK(m.inputs.at(0).tensor.sizes == std::vector<int64_t>{2, 2});
  REQUIRE(m.operators.size() == 2);
  CHECK(m.operators[0].name == "aten::mul.out");
  CHECK(m.operators[1].name == "aten::add.out");
}

TEST_CASE("info: constant methods carry their values") {
  std::string f = corpus("executorch-numpy-runtime/const_methods.pte");
  if (f.empty()) return;
  auto p = open_ok(f);
  const pte::ProgramInfo& pi = p->info();
  REQUIRE(pi.methods.size() == 5);
  CHECK(pi.segments.at(0).offset == 2304);  // header segment_base_offset
  CHECK(pi.segments.at(0).size == 40);
  const pte::MethodInfo* t = nullptr;
  for (const auto& m : pi.methods)
    if (m.name == "get_tensor") t = &m;
  REQUIRE(t);
  CHECK(t->is_constant);
  REQUIRE(t->outputs.size() == 1);
  const pte::ValueInfo& v = t->outputs[0];
  CHECK(v.tensor.dtype == pte::DType::Int64);
  REQUIRE(v.constant_data != nullptr);
  int64_t vals[3];
  std::memcpy(vals, v.constant_data, sizeof vals);
  CHECK(vals[0] == 1);
  CHECK(vals[1] == 2);
  CHECK(vals[2] == 3);
}

TEST_CASE("info: FT01 .ptd in the earlier tensors layout (module_linear.ptd)") {
  std::string f = corpus("executorch/module_linear.ptd");
  if (f.empty()) return;
  pte::DataFile df;
  pte::Status s = df.open(f);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  CHECK(df.legacy_layout());
  CHECK(df.entries() == 2);
  CHECK(df.data_bytes() == 64);
  pte::Bytes b;
  const flat_tensor_flatbuffer::TensorLayout* layout = reinterpret_cast<const flat_tensor_flatbuffer::TensorLayout*>(1);
  REQUIRE(df.find("linear.bias", &b, &layout));
  CHECK(layout == nullptr);
  REQUIRE(b.size == 12);
  float bias[3];
  std::memcpy(bias, b.data, 12);
  // Bytes at file offset 0x140 (segment base 0x110 + tensor offset 48), read with Python struct.
  CHECK(bias[0] == doctest::Approx(0.2543695271015167));
  CHECK(bias[1] == doctest::Approx(-0.10306978970766068));
  CHECK(bias[2] == doctest::Approx(0.23815424740314484));
  REQUIRE(df.find("linear.weight", &b, nullptr));
  CHECK(b.size == 36);
  float w0;
  std::memcpy(&w0, b.data, 4);
  CHECK(w0 == doctest::Approx(0.2525756061077118));
  CHECK(!df.find("linear", &b, nullptr));
  pte::DataEntry e;
  REQUIRE(df.entry(0, &e));
  CHECK(e.key == "linear.weight");
  CHECK(e.has_layout);
  CHECK(e.scalar_type == 6);
  CHECK(e.sizes == std::vector<int64_t>{3, 3});
  CHECK(!df.entry(2, &e));

  std::string pte = corpus("executorch/module_linear.pte");
  if (pte.empty()) return;
  auto p = open_ok(pte, {f});
  CHECK(p->info().external_bytes == 64);
}

TEST_CASE("info: FT01 .ptd in the current named_data layout") {
  std::string f = corpus("executorch/xor_training.ptd");
  if (f.empty()) return;
  pte::DataFile df;
  pte::Status s = df.open(f);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  CHECK(!df.legacy_layout());
  CHECK(df.entries() == 4);
  CHECK(df.data_bytes() == 208);  // f32[10,2] + f32[10] + f32[2,10] + f32[2] = 80 + 40 + 80 + 8
  pte::Bytes b;
  const flat_tensor_flatbuffer::TensorLayout* layout = nullptr;
  REQUIRE(df.find("net.linear2.bias", &b, &layout));
  CHECK(b.size == 8);
  REQUIRE(layout != nullptr);
  REQUIRE(layout->sizes());
  CHECK(layout->sizes()->size() == 1);
  CHECK(layout->sizes()->Get(0) == 2);
}

// ---------------------------------------------------------------- CLI

TEST_CASE("info CLI: every corpus and fixture file is described (text and JSON)") {
  NEED_CLI();
  std::vector<std::string> files;
  for (const char* rel :
       {"executorch/add_apple.pte", "executorch/ModuleLinear-no-constant-segment.pte", "executorch/bundled_program.bpte",
        "executorch/arduino_AddModel.pte", "executorch/arduino_KeywordSpotting_cortex_m.pte",
        "executorch/stories260k_hybrid_llama_qnn.pte", "executorch/module_linear.pte", "executorch/module_linear.ptd",
        "executorch/module_model_2024-03.pte", "executorch/xor_training.pte", "executorch/xor_training.ptd",
        "executorch/pr17248_maxpool2d.pte", "executorch/pr17248_softmax.pte", "executorch/pr17248_cadence_conv2d_quantized.pte",
        "executorch/pr17248_add.pte", "executorch-rs/data_map_model.pte", "executorch-rs/_default_external_constant.ptd",
        "executorch-rs/add.pte", "executorch-rs/no_std_add.pte", "executorch-numpy-runtime/add_xnnpack.pte",
        "executorch-numpy-runtime/const_methods.pte", "executorch-numpy-runtime/dtypes.pte",
        "executorch-numpy-runtime/dynamic_xnnpack.pte", "executorch-numpy-runtime/multi.pte",
        "executorch-numpy-runtime/quantized_xnnpack.pte", "executorch-numpy-runtime/lstm/lstm_etnp_custom_op.pte",
        "node-executorch/mul.pte", "cmsis-executorch/ethos_u_minimal_example.pte"}) {
    if (exists(kCorpus + rel)) files.push_back(kCorpus + rel);
  }
  for (const char* name : {"add", "cnn", "cnn_xnnpack", "dynamic_shape", "dynamic_shape_xnnpack", "int_ops", "kv_state",
                           "layernorm_gelu", "mlp", "mlp_xnnpack", "multi_method", "ops_mix", "softmax_attention",
                           "tiny_llama", "tiny_llama_xnnpack"}) {
    std::string p = std::string("fixtures/data/") + name + "/model.pte";
    if (exists(p)) files.push_back(p);
  }
  if (files.empty()) MESSAGE("skipped: no corpus or fixture files");
  for (const auto& f : files) {
    INFO("file: " << f);
    Run r = run_cli("info " + q(f));
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.rfind(f + "\n", 0) == 0);  // starts with the file name
    CHECK(count_lines(r.out) >= 4);
    pte::json::Value doc = run_json(q(f));
    CHECK(doc.find("file")->as_string() == f);
    bool ptd = f.size() > 4 && f.compare(f.size() - 4, 4, ".ptd") == 0;
    if (ptd) {
      CHECK(doc.find("tensors", pte::json::Type::Array)->size() > 0);
    } else {
      REQUIRE(doc.find("methods", pte::json::Type::Array));
      CHECK(doc.find("methods")->size() > 0);
      for (const auto& m : doc.find("methods")->items()) {
        CHECK(!m.find("name")->as_string().empty());
        CHECK(m.find("inputs", pte::json::Type::Array));
        CHECK(m.find("runnable", pte::json::Type::Bool));
      }
    }
  }
}

TEST_CASE("info CLI: constant method values, text and JSON") {
  NEED_CLI();
  std::string f = corpus("executorch-numpy-runtime/const_methods.pte");
  if (f.empty()) return;
  Run r = run_cli("info " + q(f));
  REQUIRE(r.code == 0);
  // Aligned: names padded to the longest (10 characters).
  CHECK(r.out.find("\n  get_scalar  = 128\n") != std::string::npos);
  CHECK(r.out.find("\n  get_double  = 2.5\n") != std::string::npos);
  CHECK(r.out.find("\n  get_bool    = true\n") != std::string::npos);
  CHECK(r.out.find("\n  get_tensor  = i64[3] [1, 2, 3]\n") != std::string::npos);
  CHECK(r.out.find("constants      40 bytes (constant segment)") != std::string::npos);

  pte::json::Value doc = run_json(q(f));
  CHECK(doc.find("format")->as_string() == "pte");
  CHECK(doc.find("file_bytes")->as_int() == 2344);
  CHECK(doc.find("extended_header")->as_bool());
  const auto& segs = *doc.find("segments");
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].find("offset")->as_int() == 2304);
  CHECK(segs[0].find("bytes")->as_int() == 40);
  CHECK(doc.find("constants")->find("storage")->as_string() == "segment");

  const auto* fwd = method(doc, "forward");
  REQUIRE(fwd);
  CHECK(fwd->find("kind")->as_string() == "compute");
  CHECK(fwd->find("values")->as_int() == 7);
  CHECK(fwd->find("instructions")->as_int() == 2);
  CHECK(ints(*fwd->find("planned_memory")) == std::vector<int64_t>{48});
  const auto& in0 = (*fwd->find("inputs"))[0];
  CHECK(in0.find("dtype")->as_string() == "float32");
  CHECK(ints(*in0.find("shape")) == std::vector<int64_t>{3});
  CHECK(in0.find("dynamism")->as_string() == "static");
  CHECK(in0.find("text")->as_string() == "f32[3]");
  const auto& ops = *fwd->find("operators");
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].find("name")->as_string() == "dim_order_ops::_to_dim_order_copy.out");
  CHECK(ops[1].find("name")->as_string() == "aten::add.out");

  const auto* gs = method(doc, "get_scalar");
  REQUIRE(gs);
  CHECK(gs->find("kind")->as_string() == "constant");
  CHECK((*gs->find("outputs"))[0].find("type")->as_string() == "int");
  CHECK((*gs->find("outputs"))[0].find("value")->as_int() == 128);
  CHECK((*method(doc, "get_double")->find("outputs"))[0].find("value")->as_double() == 2.5);
  CHECK((*method(doc, "get_bool")->find("outputs"))[0].find("value")->as_bool() == true);
  const auto& gt = (*method(doc, "get_tensor")->find("outputs"))[0];
  CHECK(gt.find("dtype")->as_string() == "int64");
  CHECK(ints(*gt.find("value")) == std::vector<int64_t>{1, 2, 3});
}

TEST_CASE("info CLI: QNN-delegated llama: delegate unsupported, constant methods readable") {
  NEED_CLI();
  std::string f = corpus("executorch/stories260k_hybrid_llama_qnn.pte");
  if (f.empty()) return;
  Run r = run_cli("info " + q(f));
  REQUIRE(r.code == 0);
  CHECK(r.out.find("get_max_seq_len             = 128\n") != std::string::npos);
  CHECK(r.out.find("QnnBackend") != std::string::npos);
  CHECK(r.out.find("NOT SUPPORTED") != std::string::npos);
  pte::json::Value doc = run_json(q(f));
  CHECK(doc.find("methods")->size() == 29);  // kv_forward, prefill_forward + 27 constant methods
  struct {
    const char* name;
    int64_t value;
  } expect[] = {{"get_vocab_size", 512}, {"get_n_layers", 5}, {"get_dim", 64}, {"get_bos_id", 1},
                {"get_eos_id", 2},       {"get_max_seq_len", 128}, {"get_n_kv_heads", 4}, {"get_logits_zero_point", 31143}};
  for (const auto& e : expect) {
    INFO(e.name);
    const auto* m = method(doc, e.name);
    REQUIRE(m);
    CHECK(m->find("kind")->as_string() == "constant");
    CHECK((*m->find("outputs"))[0].find("value")->as_int() == e.value);
  }
  CHECK((*method(doc, "get_use_kv_cache")->find("outputs"))[0].find("value")->as_bool());
  CHECK((*method(doc, "get_logits_scale")->find("outputs"))[0].find("value")->as_double() == doctest::Approx(0.000679875026));
  const auto& quant = *method(doc, "get_kv_output_0_quant_attr")->find("outputs");
  REQUIRE(quant.size() == 5);
  CHECK(quant[1].find("value")->as_int() == 128);
  const auto* kv = method(doc, "kv_forward");
  REQUIRE(kv);
  CHECK(kv->find("inputs")->size() == 13);
  CHECK(kv->find("outputs")->size() == 11);
  CHECK(!kv->find("runnable")->as_bool());
  const auto& dels = *kv->find("delegates");
  REQUIRE(dels.size() == 1);
  CHECK(dels[0].find("backend")->as_string() == "QnnBackend");
  CHECK(!dels[0].find("supported")->as_bool());
  CHECK(dels[0].find("location")->as_string() == "segment");
  CHECK(dels[0].find("bytes")->as_int() == 1331456);
}

TEST_CASE("info CLI: dynamic shape bound and XNNPACK delegate segment") {
  NEED_CLI();
  std::string f = corpus("executorch-numpy-runtime/dynamic_xnnpack.pte");
  if (f.empty()) return;
  Run r = run_cli("info " + q(f));
  REQUIRE(r.code == 0);
  CHECK(r.out.find("0  f32[≤8]") != std::string::npos);
  pte::json::Value doc = run_json(q(f));
  const auto* fwd = method(doc, "forward");
  REQUIRE(fwd);
  const auto& in0 = (*fwd->find("inputs"))[0];
  CHECK(in0.find("dynamism")->as_string() == "bound");
  CHECK(ints(*in0.find("shape")) == std::vector<int64_t>{8});
  CHECK(in0.find("text")->as_string() == "f32[≤8]");
  // segments: base 1152 (header) + [{0,4}, {128,432}] (flatc)
  const auto& segs = *doc.find("segments");
  REQUIRE(segs.size() == 2);
  CHECK(segs[0].find("offset")->as_int() == 1152);
  CHECK(segs[1].find("offset")->as_int() == 1280);
  CHECK(segs[1].find("bytes")->as_int() == 432);
  CHECK(segs[1].find("holds")->items().at(0).as_string() == "delegate 0 of forward (XnnpackBackend)");
  const auto& d = (*fwd->find("delegates"))[0];
  CHECK(d.find("backend")->as_string() == "XnnpackBackend");
  CHECK(d.find("bytes")->as_int() == 432);
  CHECK(d.find("location")->as_string() == "segment");
  // the node types inside the delegate, with their support
  CHECK(d.find("supported")->as_bool());
  CHECK(fwd->find("runnable")->as_bool());
  const auto* nodes = d.find("nodes");
  REQUIRE(nodes);
  REQUIRE(nodes->size() == 1);
  CHECK((*nodes)[0].find("name")->as_string() == "XNNMultiply");
  CHECK((*nodes)[0].find("count")->as_int() == 1);
  CHECK((*nodes)[0].find("supported")->as_bool());
  CHECK(r.out.find("delegate 0 nodes") != std::string::npos);
  CHECK(r.out.find("XNNMultiply  x1  supported") != std::string::npos);
}

TEST_CASE("info CLI: unsupported custom operators and inline delegates are listed") {
  NEED_CLI();
  std::string kws = corpus("executorch/arduino_KeywordSpotting_cortex_m.pte");
  if (!kws.empty()) {
    pte::json::Value doc = run_json(q(kws));
    const auto* fwd = method(doc, "forward");
    REQUIRE(fwd);
    CHECK(!fwd->find("runnable")->as_bool());
    CHECK(ints(*fwd->find("planned_memory")) == std::vector<int64_t>{16000});
    bool found = false;
    for (const auto& op : fwd->find("operators")->items())
      if (op.find("name")->as_string() == "cortex_m::quantized_conv2d.out") {
        found = true;
        CHECK(!op.find("supported")->as_bool());
      }
    CHECK(found);
    CHECK(fwd->find("operators")->size() == 8);
  }
  std::string ethos = corpus("cmsis-executorch/ethos_u_minimal_example.pte");
  if (!ethos.empty()) {
    Run r = run_cli("info " + q(ethos));
    CHECK(r.code == 0);
    pte::json::Value doc = run_json(q(ethos));
    const auto& d = (*method(doc, "forward")->find("delegates"))[0];
    CHECK(d.find("backend")->as_string() == "EthosUBackend");
    CHECK(d.find("location")->as_string() == "inline");
    CHECK(d.find("bytes")->as_int() == 1312);  // backend_delegate_data[0]
    CHECK(!d.find("supported")->as_bool());
  }
}

TEST_CASE("info CLI: bundled program describes its embedded program") {
  NEED_CLI();
  std::string f = corpus("executorch/bundled_program.bpte");
  if (f.empty()) return;
  Run r = run_cli("info " + q(f));
  REQUIRE(r.code == 0);
  CHECK(r.out.find("bundled program (BP08, version 2)") != std::string::npos);
  CHECK(r.out.find("forward (10 cases)") != std::string::npos);
  pte::json::Value doc = run_json(q(f));
  CHECK(doc.find("format")->as_string() == "bpte");
  CHECK(doc.find("file_bytes")->as_int() == 4608);
  const auto* b = doc.find("bundle");
  REQUIRE(b);
  CHECK(b->find("version")->as_int() == 2);
  CHECK(b->find("program_offset")->as_int() == 64);
  CHECK(b->find("program_bytes")->as_int() == 1696);
  CHECK((*b->find("test_suites"))[0].find("test_cases")->as_int() == 10);
  const auto* fwd = method(doc, "forward");
  REQUIRE(fwd);
  CHECK(fwd->find("inputs")->size() == 2);
  CHECK((*fwd->find("inputs"))[0].find("text")->as_string() == "i32[2,2]");
}

TEST_CASE("info CLI: external data files") {
  NEED_CLI();
  std::string pte = corpus("executorch/xor_training.pte"), ptd = corpus("executorch/xor_training.ptd");
  if (pte.empty() || ptd.empty()) return;
  pte::json::Value doc = run_json(q(pte) + " --data " + q(ptd));
  CHECK(doc.find("external_data")->find("bytes")->as_int() == 208);
  CHECK((*doc.find("external_data")->find("files"))[0].as_string() == ptd);
  const auto& fqn = *method(doc, "__et_training_fqn_forward")->find("outputs");
  REQUIRE(fqn.size() == 4);
  CHECK(fqn[0].find("value")->as_string() == "net.linear.weight");
  CHECK(fqn[3].find("value")->as_string() == "net.linear2.bias");

  pte::json::Value d = run_json(q(ptd));
  CHECK(d.find("format")->as_string() == "ptd");
  const auto& t = *d.find("tensors");
  REQUIRE(t.size() == 4);
  CHECK(t[0].find("key")->as_string() == "net.linear.weight");
  CHECK(ints(*t[0].find("shape")) == std::vector<int64_t>{10, 2});
  CHECK(t[0].find("bytes")->as_int() == 80);

  std::string old_ptd = corpus("executorch/module_linear.ptd");
  if (old_ptd.empty()) return;
  Run r = run_cli("info " + q(old_ptd));
  CHECK(r.code == 0);
  CHECK(r.out.find("linear.weight  f32[3,3]  36 bytes") != std::string::npos);
  CHECK(r.out.find("linear.bias    f32[3]    12 bytes") != std::string::npos);
}

TEST_CASE("info CLI: errors are one line on stderr with exit 1; usage errors exit 2") {
  NEED_CLI();
  Run r = run_cli("info /nonexistent/model.pte");
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("pte-run: /nonexistent/model.pte: cannot open", 0) == 0);

  CHECK(run_cli("info").code == 2);
  CHECK(run_cli("info --bogus x.pte").code == 2);
  CHECK(run_cli("info x.pte --data").code == 2);
  CHECK(run_cli("info a.pte b.pte").code == 2);
  Run h = run_cli("info --help");
  CHECK(h.code == 0);
  CHECK(h.out.find("usage: pte-run info") != std::string::npos);

  std::string dir = temp_dir();
  std::string text = dir + "/not-a-model.pte";
  write_bytes(text, "hello world, this is not a model\n", 33);
  r = run_cli("info " + q(text));
  CHECK(r.code == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err == "pte-run: " + text + ": not an ExecuTorch program (identifier 'o wo', expected 'ET12')\n");

  std::string empty = dir + "/empty.pte";
  write_bytes(empty, "", 0);
  r = run_cli("info " + q(empty));
  CHECK(r.code == 1);
  CHECK(count_lines(r.err) == 1);

  std::string src = corpus("executorch/arduino_AddModel.pte");
  if (!src.empty()) {
    std::vector<uint8_t> b = read_bytes(src);
    // Truncated inside the segment data: the header says 1156 bytes are needed.
    std::string cut = dir + "/truncated.pte";
    write_bytes(cut, b.data(), 1100);
    r = run_cli("info " + q(cut));
    CHECK(r.code == 1);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.rfind("pte-run: " + cut + ": ", 0) == 0);
    CHECK(r.err.find("truncated") != std::string::npos);
    // Corrupt flatbuffer: root offset pointing at garbage.
    std::vector<uint8_t> c = b;
    c[0] = 0xF0;
    c[1] = 0x03;
    std::string bad = dir + "/corrupt.pte";
    write_bytes(bad, c.data(), c.size());
    r = run_cli("info --json " + q(bad));
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
  }
  std::string bp = corpus("executorch/bundled_program.bpte");
  if (!bp.empty()) {
    std::vector<uint8_t> b = read_bytes(bp);
    std::string cut = dir + "/truncated.bpte";
    write_bytes(cut, b.data(), 2000);
    r = run_cli("info " + q(cut));
    CHECK(r.code == 1);
    CHECK(r.err == "pte-run: " + cut + ": bundled program (BP08) is corrupt: flatbuffer verification failed\n");
  }
  std::string ptd = corpus("executorch/xor_training.ptd");
  std::string pte = corpus("executorch/xor_training.pte");
  if (!ptd.empty() && !pte.empty()) {
    r = run_cli("info " + q(pte) + " --data /nonexistent/w.ptd");
    CHECK(r.code == 1);
    CHECK(r.err.rfind("pte-run: /nonexistent/w.ptd: cannot open", 0) == 0);
    // A program passed as data.
    r = run_cli("info " + q(pte) + " --data " + q(pte));
    CHECK(r.code == 1);
    CHECK(r.err == "pte-run: " + pte + ": this is a program (.pte), not a .ptd data file\n");
  }
}

// ---------------------------------------------------------------- corpus README, damaged files

namespace {

// The corpus README's "ops" column names ATen operators without their namespace.
std::string full_op_name(const std::string& s) { return s.find("::") == std::string::npos ? "aten::" + s : s; }

struct CorpusCase {
  const char* file;
  const char* data;                      // .ptd to pass with --data, or nullptr
  std::vector<const char*> ops;          // union over the methods (README "ops" column)
  std::vector<const char*> delegates;    // README "delegates" column
  std::vector<const char*> methods;      // methods that must be there (compute and constant)
  size_t num_methods;                    // 0: not checked
  bool runnable;                         // every compute method supported by this build (XNNPACK: not checked)
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v)
    if (x == s) return true;
  return false;
}

}  // namespace

TEST_CASE("info CLI: methods, operators and delegates of every corpus file match the corpus README") {
  NEED_CLI();
  if (!exists(kCorpus + "README.md")) {
    MESSAGE("skipped: " << kCorpus << " not found");
    return;
  }
  const std::vector<CorpusCase> cases = {
      {"executorch/add_apple.pte", nullptr, {"add.out"}, {}, {"forward"}, 1, true},
      {"executorch/ModuleLinear-no-constant-segment.pte", nullptr, {"add.out", "mul.out"}, {}, {"forward"}, 1, true},
      {"executorch/bundled_program.bpte", nullptr, {"add.out", "mul.out"}, {}, {"forward"}, 1, true},
      {"executorch/arduino_AddModel.pte", nullptr, {"add.out"}, {}, {"forward"}, 1, true},
      {"executorch/arduino_KeywordSpotting_cortex_m.pte", nullptr,
       {"cortex_m::dequantize_per_tensor.out", "cortex_m::pad.out", "cortex_m::quantize_per_tensor.out",
        "cortex_m::quantized_avg_pool2d.out", "cortex_m::quantized_conv2d.out", "cortex_m::quantized_depthwise_conv2d.out",
        "cortex_m::quantized_linear.out", "dim_order_ops::_clone_dim_order.out"},
       {}, {"forward"}, 1, false},
      {"executorch/stories260k_hybrid_llama_qnn.pte", nullptr, {}, {"QnnBackend"},
       {"kv_forward", "prefill_forward", "get_vocab_size", "get_n_layers", "get_dim", "get_bos_id", "get_eos_id",
        "get_max_seq_len", "get_use_kv_cache"},
       29, false},
      {"executorch/module_linear.pte", "executorch/module_linear.ptd", {"addmm.out", "permute_copy.out"}, {}, {"forward"}, 1, true},
      {"executorch/module_model_2024-03.pte", nullptr, {"clone.out", "eq.Scalar_out", "mean.out", "where.self_out"}, {}, {"forward"}, 1, true},
      {"executorch/xor_training.pte", "executorch/xor_training.ptd",
       {"_log_softmax.out", "addmm.out", "alias_copy.out", "argmax.out", "dim_order_ops::_to_dim_order_copy.out", "div.out",
        "exp.out", "full_like.out", "gather.out", "mm.out", "mul.out", "ne.Scalar_out", "neg.out", "permute_copy.out",
        "scalar_tensor.out", "scatter.value_out", "sigmoid.out", "squeeze_copy.dims_out", "sub.out", "sum.IntList_out",
        "unsqueeze_copy.out", "view_copy.out", "where.self_out"},
       {}, {"forward", "__et_training_fqn_forward"}, 0, true},
      {"executorch/pr17248_maxpool2d.pte", nullptr, {"max_pool2d_with_indices.out"}, {}, {"forward"}, 1, true},
      {"executorch/pr17248_softmax.pte", nullptr, {"_softmax.out"}, {}, {"forward"}, 1, true},
      {"executorch/pr17248_cadence_conv2d_quantized.pte", nullptr,
       {"cadence::dequantize_per_tensor.out", "cadence::quantize_per_tensor.out", "cadence::quantized_conv2d_nchw.per_tensor_out"},
       {}, {"forward"}, 1, false},
      {"executorch/pr17248_add.pte", nullptr, {"add.out"}, {}, {"forward"}, 1, true},
      {"executorch-rs/data_map_model.pte", "executorch-rs/_default_external_constant.ptd", {"add.out", "mul.out"}, {}, {"forward"}, 1, true},
      {"executorch-rs/add.pte", nullptr, {"add.out"}, {}, {"forward"}, 1, true},
      {"executorch-rs/no_std_add.pte", nullptr, {"add.out"}, {}, {"forward"}, 1, true},
      {"executorch-numpy-runtime/add_xnnpack.pte", nullptr, {}, {"XnnpackBackend"}, {"forward"}, 1, false},
      {"executorch-numpy-runtime/const_methods.pte", nullptr, {"add.out", "dim_order_ops::_to_dim_order_copy.out"}, {},
       {"forward", "get_scalar", "get_double", "get_bool", "get_tensor"}, 5, true},
      {"executorch-numpy-runtime/dtypes.pte", nullptr, {"add.out"}, {}, {"forward"}, 1, true},
      {"executorch-numpy-runtime/dynamic_xnnpack.pte", nullptr, {}, {"XnnpackBackend"}, {"forward"}, 1, false},
      {"executorch-numpy-runtime/multi.pte", nullptr, {"add.out", "dim_order_ops::_to_dim_order_copy.out"}, {}, {"forward", "double"}, 2, true},
      {"executorch-numpy-runtime/quantized_xnnpack.pte", nullptr, {}, {"XnnpackBackend"}, {"forward"}, 1, false},
      {"executorch-numpy-runtime/lstm/lstm_etnp_custom_op.pte", nullptr, {"etnp::lstm.out"}, {}, {"forward"}, 1, false},
      {"node-executorch/mul.pte", nullptr, {"mul.out"}, {}, {"forward"}, 1, true},
      {"cmsis-executorch/ethos_u_minimal_example.pte", nullptr,
       {"quantized_decomposed::dequantize_per_tensor.out", "quantized_decomposed::quantize_per_tensor.out"}, {"EthosUBackend"},
       {"forward"}, 1, false},
  };
  size_t checked = 0;
  for (const CorpusCase& c : cases) {
    std::string f = kCorpus + c.file;
    INFO("file: " << f);
    if (!exists(f)) {
      FAIL_CHECK("listed in the corpus README but missing");
      continue;
    }
    std::string args = q(f);
    if (c.data) args += " --data " + q(kCorpus + c.data);
    Run text = run_cli("info " + args);
    CHECK(text.code == 0);
    CHECK(text.err.empty());
    pte::json::Value doc = run_json(args);
    const auto& methods = *doc.find("methods");
    if (c.num_methods) CHECK(methods.size() == c.num_methods);
    for (const char* name : c.methods) CHECK_MESSAGE(method(doc, name) != nullptr, "method " << name);
    std::vector<std::string> ops, dels;
    bool all_supported = true;
    for (const auto& m : methods.items()) {
      for (const auto& op : m.find("operators")->items()) {
        if (!contains(ops, op.find("name")->as_string())) ops.push_back(op.find("name")->as_string());
        if (!op.find("supported")->as_bool()) all_supported = false;
      }
      for (const auto& d : m.find("delegates")->items()) {
        if (!contains(dels, d.find("backend")->as_string())) dels.push_back(d.find("backend")->as_string());
        if (d.find("backend")->as_string() != "XnnpackBackend") CHECK_FALSE(d.find("supported")->as_bool());
      }
      // The text form lists each operator too.
      for (const auto& op : m.find("operators")->items()) CHECK(text.out.find(op.find("name")->as_string()) != std::string::npos);
    }
    std::vector<std::string> want_ops;
    for (const char* o : c.ops) want_ops.push_back(full_op_name(o));
    CHECK(ops.size() == want_ops.size());
    for (const auto& o : want_ops) CHECK_MESSAGE(contains(ops, o), "operator " << o << " not listed");
    CHECK(dels.size() == c.delegates.size());
    for (const char* d : c.delegates) CHECK_MESSAGE(contains(dels, d), "delegate " << d << " not listed");
    bool xnnpack = !c.delegates.empty() && std::string(c.delegates[0]) == "XnnpackBackend";
    if (!xnnpack) {
      if (c.delegates.empty()) CHECK(all_supported == c.runnable);  // else refused for the delegate
      for (const auto& m : methods.items())
        if (m.find("kind")->as_string() == "compute") CHECK(m.find("runnable")->as_bool() == c.runnable);
    }
    ++checked;
  }
  CHECK(checked == cases.size());
}

TEST_CASE("info CLI: truncated, bit-flipped and overwritten corpus files: exit 1 with one line naming the file, never a signal") {
  NEED_CLI();
  std::vector<std::string> sources;
  for (const char* rel : {"executorch/add_apple.pte", "executorch/arduino_AddModel.pte", "executorch/module_linear.pte",
                          "executorch/xor_training.pte", "executorch/bundled_program.bpte", "executorch/xor_training.ptd",
                          "executorch-numpy-runtime/const_methods.pte", "executorch-numpy-runtime/dynamic_xnnpack.pte",
                          "executorch-numpy-runtime/lstm/lstm_etnp_custom_op.pte", "cmsis-executorch/ethos_u_minimal_example.pte",
                          "executorch/ModuleLinear-no-constant-segment.pte"})
    if (exists(kCorpus + rel)) sources.push_back(kCorpus + rel);
  if (exists("fixtures/data/mlp/model.pte")) sources.push_back("fixtures/data/mlp/model.pte");
  if (sources.empty()) {
    MESSAGE("skipped: no corpus or fixture files");
    return;
  }
  std::string dir = temp_dir();
  uint64_t rng = 88172645463325252ull;
  auto next = [&]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  // PTE_ROBUSTNESS_STRIDE=n: every n-th mutant only (the emulated ARM runs of scripts/test.sh)
  size_t stride = 1;
  if (const char* e = std::getenv("PTE_ROBUSTNESS_STRIDE"); e && std::atoi(e) > 1) stride = static_cast<size_t>(std::atoi(e));
  size_t runs = 0, refused = 0;
  for (const auto& src : sources) {
    std::vector<uint8_t> orig = read_bytes(src);
    REQUIRE(orig.size() > 64);
    std::vector<std::vector<uint8_t>> mutants;
    for (size_t len : {size_t{0}, size_t{7}, size_t{31}, orig.size() / 3, orig.size() / 2, orig.size() - 1})
      mutants.emplace_back(orig.begin(), orig.begin() + static_cast<std::ptrdiff_t>(len));
    for (int k = 0; k < 8; ++k) {
      std::vector<uint8_t> m = orig;
      size_t pos = next() % std::min<size_t>(m.size(), 4096);  // mostly the flatbuffer
      m[pos] ^= static_cast<uint8_t>(1u << (next() % 8));
      mutants.push_back(std::move(m));
    }
    for (int k = 0; k < 4; ++k) {
      std::vector<uint8_t> m = orig;
      size_t off = (next() % (std::min<size_t>(m.size(), 4096) - 4)) & ~size_t{3};
      const uint32_t w = k % 2 ? 0xFFFFFFFFu : 0x7FFFFFFFu;
      std::memcpy(m.data() + off, &w, 4);
      mutants.push_back(std::move(m));
    }
    std::string ext = src.substr(src.rfind('.'));
    for (size_t k = 0; k < mutants.size(); k += stride) {
      std::string path = dir + "/damaged-" + std::to_string(runs) + ext;
      write_bytes(path, mutants[k].data(), mutants[k].size());
      // the text and JSON printers share the loader: JSON on every third mutant is enough
      for (const char* mode : {"", "--json "}) {
        if (*mode && k % 3 != 0) continue;
        INFO("source: " << src << ", mutant " << k << " (" << mutants[k].size() << " bytes), mode '" << std::string(mode) << "'");
        Run r = run_cli(std::string("info ") + mode + q(path));
        ++runs;
        CHECK_MESSAGE((r.code == 0 || r.code == 1), "exit " << r.code << " stderr: " << r.err);
        if (r.code != 0) {
          ++refused;
          CHECK(r.out.empty());
          CHECK(count_lines(r.err) == 1);
          // Names the file ("FILE: ..." or, inside a bundled program, "FILE (embedded program): ...").
          CHECK_MESSAGE(r.err.rfind("pte-run: " + path, 0) == 0, r.err);
        } else {
          CHECK(r.err.empty());
        }
      }
      std::remove(path.c_str());
    }
  }
  MESSAGE("damaged files: " << runs << " pte-run info runs, " << refused << " refused");
  CHECK(refused > runs / 4);
}

TEST_CASE("info CLI: --memory prints the file's plan next to our lifetime re-plan") {
  NEED_CLI();
  const std::string f = "fixtures/data/mlp/model.pte";
  if (!exists(f)) {
    MESSAGE("skipped: " << f << " not found");
    return;
  }
  pte::json::Value plain = run_json(q(f));
  CHECK(method(plain, "forward")->find("memory") == nullptr);  // only with --memory
  pte::json::Value doc = run_json("--memory " + q(f));
  const auto* fwd = method(doc, "forward");
  REQUIRE(fwd);
  const auto* mem = fwd->find("memory");
  REQUIRE(mem);
  int64_t file_plan = 0;
  for (int64_t b : ints(*fwd->find("planned_memory"))) file_plan += b;
  CHECK(file_plan > 0);
  CHECK(mem->find("file_plan_bytes")->as_int() == file_plan);
  CHECK(mem->find("file_plan_arena_bytes")->as_int() == file_plan);
  // Our plan holds at least the largest tensor the method writes and is 64-byte granular.
  int64_t replanned = mem->find("replanned_bytes")->as_int();
  CHECK(replanned > 0);
  CHECK(replanned % 64 == 0);
  Run r = run_cli("info --memory " + q(f));
  REQUIRE(r.code == 0);
  CHECK(r.out.find("re-planned memory") != std::string::npos);
  CHECK(r.out.find("the file's plan: ") != std::string::npos);

  std::string qnn = kCorpus + "executorch/stories260k_hybrid_llama_qnn.pte";
  if (exists(qnn)) {
    pte::json::Value d = run_json("--memory " + q(qnn));
    const auto* kv = method(d, "kv_forward");
    REQUIRE(kv);
    const auto* m = kv->find("memory");
    REQUIRE(m);
    CHECK(m->find("error")->as_string().find("QnnBackend") != std::string::npos);
    CHECK(method(d, "get_dim")->find("memory") == nullptr);  // constant methods have no arenas
  }
}

TEST_CASE("info CLI: xnode_* fixtures (XnnpackPartitioner output): every delegate node type supported, fp16 / bf16 types listed") {
  NEED_CLI();
  std::set<std::string> seen;
  int files = 0;
  for (const char* name : {"xnode_deconv_f32_xnnpack", "xnode_deconv_dyn_f32_xnnpack", "xnode_resize_f32_xnnpack",
                           "xnode_pool_f32_xnnpack", "xnode_conv_pad_f32_xnnpack", "xnode_cnn_f16_xnnpack",
                           "xnode_mlp_f16_dyn_xnnpack", "xnode_mlp_bf16_xnnpack",
                           "xnode_qlinear_8da4w_f16_xnnpack", "xnode_misc_f32_xnnpack", "xnode_misc_f16_xnnpack"}) {
    std::string f = std::string("fixtures/data/") + name + "/model.pte";
    if (!exists(f)) continue;
    ++files;
    INFO("file: " << f);
    pte::json::Value doc = run_json(q(f));
    const auto* fwd = method(doc, "forward");
    REQUIRE(fwd);
    CHECK(fwd->find("runnable")->as_bool());
    const auto* dels = fwd->find("delegates", pte::json::Type::Array);
    REQUIRE(dels);
    REQUIRE(dels->size() >= 1);
    for (const auto& d : dels->items()) {
      CHECK(d.find("backend")->as_string() == "XnnpackBackend");
      CHECK(d.find("supported")->as_bool());
      for (const auto& n : d.find("nodes", pte::json::Type::Array)->items()) {
        INFO("node " << n.find("name")->as_string());
        CHECK(n.find("supported")->as_bool());
        seen.insert(n.find("name")->as_string());
      }
    }
    if (std::string(name) == "xnode_cnn_f16_xnnpack") {
      Run r = run_cli("info " + q(f));
      CHECK(r.out.find("XNNConvTranspose2d (fp16 x fp32 -> fp16)  x1  supported") != std::string::npos);
      CHECK(r.out.find("XNNFullyConnected (fp16 x fp16 -> fp16)   x1  supported") != std::string::npos);
    }
    if (std::string(name) == "xnode_qlinear_8da4w_f16_xnnpack") {
      Run r = run_cli("info " + q(f));
      CHECK(r.out.find("XNNConvert (fp16 -> qdint8)                  x2  supported") != std::string::npos);
      CHECK(r.out.find("XNNFullyConnected (qdint8 x qbint4 -> fp16)  x2  supported") != std::string::npos);
    }
    if (std::string(name) == "xnode_mlp_bf16_xnnpack")
      CHECK(run_cli("info " + q(f)).out.find("XNNFullyConnected (bf16 x bf16 -> bf16)  x2  supported") != std::string::npos);
  }
  if (files == 0) {
    MESSAGE("skipped: no xnode_* fixtures");
    return;
  }
  for (const char* want : {"XNNConvTranspose2d", "XNNStaticResizeBilinear2D", "XNNAvgPooling2d", "XNNMaxPooling2d",
                           "XNNStaticConstantPad", "XNNConv2d", "XNNDepthwiseConv2d", "XNNFullyConnected", "XNNPReLU",
                           "XNNHardswish", "XNNLeakyReLU", "XNNConcatenate5", "XNNSquare", "XNNLog"})
    CHECK_MESSAGE(seen.count(want) == 1, want);
}

TEST_CASE("info CLI: --ops-list prints the union of the programs' operators and delegate nodes, sorted") {
  const std::string a = "fixtures/data/cnn/model.pte", b = "fixtures/data/qlinear_8da4w_xnnpack/model.pte";
  Run r = run_cli("info --ops-list " + q(a) + " " + q(b));
  REQUIRE(r.code == 0);
  std::vector<std::string> lines;
  size_t comments = 0;
  for (size_t p = 0, e; p < r.out.size(); p = e + 1) {
    e = r.out.find('\n', p);
    if (e == std::string::npos) e = r.out.size();
    std::string line = r.out.substr(p, e - p);
    if (line.rfind("#", 0) == 0) ++comments;
    else if (!line.empty()) lines.push_back(line);
  }
  CHECK(comments == 2);
  auto has = [&](const std::string& s) { return std::find(lines.begin(), lines.end(), s) != lines.end(); };
  CHECK(has("aten::convolution.out"));     // the CNN's
  CHECK(has("aten::addmm.out"));
  CHECK(has("XnnpackBackend"));            // the 8da4w linear's delegate and its nodes
  CHECK(has("XnnpackBackend/XNNFullyConnected"));
  CHECK(has("XnnpackBackend/XNNConvert"));
  CHECK(!has("XnnpackBackend/XNNConv2d"));
  // every line once
  std::vector<std::string> sorted = lines;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  // one program's list is a subset of the union
  Run one = run_cli("info --ops-list " + q(a));
  REQUIRE(one.code == 0);
  CHECK(one.out.find("XnnpackBackend") == std::string::npos);
  CHECK(one.out.find("aten::convolution.out\n") != std::string::npos);
  // bad input: one line, exit 1 / 2
  Run missing = run_cli("info --ops-list no_such_file.pte");
  CHECK(missing.code == 1);
  CHECK(count_lines(missing.err) == 1);
  CHECK(run_cli("info --ops-list").code == 2);
}
