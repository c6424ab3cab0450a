// CLI tests: spawn the built pte-run (path in $PTE_RUN, set by tests/meson.build;
// else bin/pte-run beside this test binary's build dir) on corpus files, parse its
// --json output with util/json, and check exit codes and error lines.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_spawn.h"
#include "util/json.h"
#include "util/compare.h"
#include "util/npy.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

const std::string kCorpus = "../shared/pte-corpus/";

using Result = pte_test::CliRun;
using pte_test::count_lines;
using pte_test::pte_run_exe;
using pte_test::slurp;
Result run(const std::vector<std::string>& args) { return pte_test::run_pte_run(args); }

bool corpus_present() { return fs::exists(kCorpus + "README.md"); }

#define SKIP_WITHOUT_CORPUS()                                                \
  do {                                                                       \
    if (!corpus_present()) {                                                 \
      MESSAGE("skipped: " << kCorpus << " not found (run from the repo root)"); \
      return;                                                                \
    }                                                                        \
  } while (0)

pte::json::Value parse_json(const Result& r) {
  pte::json::Value v;
  pte::Status s = pte::json::parse(r.out, &v);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE_MESSAGE(s, s.message());
  return v;
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

const std::string kAdd = kCorpus + "executorch/add_apple.pte";

}  // namespace

TEST_CASE("cli run: --json outputs parse and hold the values") {
  SKIP_WITHOUT_CORPUS();
  Result r = run({"run", kAdd, "--input", "f32[1]:13.25", "--input", "f32[1]:29.25", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  pte::json::Value doc = parse_json(r);
  CHECK(doc.find("method")->as_string() == "forward");
  const pte::json::Value* outs = doc.find("outputs", pte::json::Type::Array);
  REQUIRE(outs);
  REQUIRE(outs->size() == 1);
  const pte::json::Value& o = (*outs)[0];
  CHECK(o.find("type")->as_string() == "tensor");
  CHECK(o.find("dtype")->as_string() == "float32");
  REQUIRE(o.find("shape")->size() == 1);
  CHECK(o.find("shape")->items()[0].as_int() == 1);
  REQUIRE(o.find("data")->size() == 1);
  CHECK(o.find("data")->items()[0].as_double() == 42.5);
}

TEST_CASE("cli run: float32 data round-trips; NaN and infinities are strings") {
  SKIP_WITHOUT_CORPUS();
  Result r = run({"run", kAdd, "-i", "f32[1]:0.1", "-i", "f32[1]:0.2", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  pte::json::Value doc = parse_json(r);
  double got = (*doc.find("outputs"))[0].find("data")->items()[0].as_double();
  volatile float a = 0.1f, b = 0.2f;
  float want = a + b;
  CHECK(static_cast<float>(got) == want);

  r = run({"run", kAdd, "-i", "f32[1]:nan", "-i", "f32[1]:1", "--json"});
  REQUIRE(r.code == 0);
  doc = parse_json(r);
  CHECK((*doc.find("outputs"))[0].find("data")->items()[0].as_string() == "nan");
  r = run({"run", kAdd, "-i", "f32[1]:-inf", "-i", "f32[1]:1", "--json"});
  REQUIRE(r.code == 0);
  doc = parse_json(r);
  CHECK((*doc.find("outputs"))[0].find("data")->items()[0].as_string() == "-inf");
}

TEST_CASE("cli run: text output, --repeat, --save-outputs") {
  SKIP_WITHOUT_CORPUS();
  fs::path dir = fs::temp_directory_path() / ("pte_cli_save_" + std::to_string(::getpid()));
  Result r = run({"run", kCorpus + "node-executorch/mul.pte", "--input", "f32[3,2]:1,2,3,4,5,6", "--input",
                  "f32[3,2]:1,2,3,4,5,6", "--save-outputs", dir.string(), "--repeat", "3"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "output 0: f32[3,2] = [[1, 4], [9, 16], [25, 36]]\n"));
  CHECK(has(r.out, "time: 3 runs"));
  pte::util::HostTensor t;
  REQUIRE(pte::util::npy_read((dir / "output_0.npy").string(), &t));
  CHECK(t.dtype == pte::DType::Float);
  CHECK(t.shape == std::vector<int64_t>{3, 2});
  float v[6];
  REQUIRE(t.bytes.size() == sizeof(v));
  std::memcpy(v, t.bytes.data(), sizeof(v));
  for (int i = 0; i < 6; ++i) CHECK(v[i] == static_cast<float>((i + 1) * (i + 1)));
  fs::remove_all(dir);
}

TEST_CASE("cli run: .npy inputs, several outputs of several dtypes") {
  SKIP_WITHOUT_CORPUS();
  fs::path dir = fs::temp_directory_path() / ("pte_cli_npy_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  pte::util::HostTensor a;
  a.dtype = pte::DType::Int64;
  a.shape = {1};
  int64_t three = 3;
  a.bytes.resize(8);
  std::memcpy(a.bytes.data(), &three, 8);
  REQUIRE(pte::util::npy_write((dir / "a.npy").string(), a));
  Result r = run({"run", kCorpus + "executorch-numpy-runtime/dtypes.pte", "--input", (dir / "a.npy").string(), "--input",
                  "f32[1]:2.5", "--json"});
  fs::remove_all(dir);
  INFO(r.err);
  REQUIRE(r.code == 0);
  pte::json::Value doc = parse_json(r);
  const pte::json::Value& outs = *doc.find("outputs");
  REQUIRE(outs.size() == 2);
  CHECK(outs[0].find("dtype")->as_string() == "int64");
  CHECK(outs[0].find("data")->items()[0].as_int() == 6);
  CHECK(outs[1].find("dtype")->as_string() == "float32");
  CHECK(outs[1].find("data")->items()[0].as_double() == 5.0);
}

TEST_CASE("cli run: constant methods need no inputs") {
  SKIP_WITHOUT_CORPUS();
  const std::string f = kCorpus + "executorch-numpy-runtime/const_methods.pte";
  Result r = run({"run", f, "--method", "get_scalar", "--json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  pte::json::Value doc = parse_json(r);
  CHECK(doc.find("method")->as_string() == "get_scalar");
  CHECK((*doc.find("outputs"))[0].find("type")->as_string() == "int");
  CHECK((*doc.find("outputs"))[0].find("value")->as_int() == 128);

  r = run({"run", f, "--method=get_double", "--json"});
  REQUIRE(r.code == 0);
  doc = parse_json(r);
  CHECK((*doc.find("outputs"))[0].find("type")->as_string() == "float");
  CHECK((*doc.find("outputs"))[0].find("value")->as_double() == 2.5);

  r = run({"run", f, "--method", "get_bool"});
  REQUIRE(r.code == 0);
  CHECK(r.out == "output 0: bool = true\n");

  r = run({"run", f, "--method", "get_tensor", "--json"});
  REQUIRE(r.code == 0);
  doc = parse_json(r);
  const pte::json::Value& t = (*doc.find("outputs"))[0];
  CHECK(t.find("dtype")->as_string() == "int64");
  REQUIRE(t.find("data")->size() == 3);
  CHECK(t.find("data")->items()[2].as_int() == 3);
}

TEST_CASE("cli run: wrong or missing inputs print the signature and fail") {
  SKIP_WITHOUT_CORPUS();
  Result r = run({"run", kAdd, "--input", "i64[1]:1", "--input", "f32[1]:1"});
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(count_lines(r.err) == 2);
  CHECK(has(r.err, "input 0: expected f32[1], got i64[1]"));
  CHECK(has(r.err, "signature: forward(f32[1], f32[1]) -> (f32[1])"));

  r = run({"run", kAdd, "--input", "f32[1]:1"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "takes 2 inputs, got 1"));
  CHECK(has(r.err, "signature: forward("));

  r = run({"run", kAdd, "--input", "f32[2]:1,2", "--input", "f32[1]:1"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "input 0: expected f32[1], got f32[2]"));

  r = run({"run", kAdd, "--input", "f32[2]:1,2,3", "--input", "f32[1]:1"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "needs 2 values"));
  CHECK(has(r.err, "signature:"));

  r = run({"run", kAdd, "-i", "f32[1]:1", "-i", "f32[1]:1", "-i", "f32[1]:1"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "takes 2 inputs, got 3"));
}

TEST_CASE("cli run: usage errors, unknown methods, refused programs") {
  SKIP_WITHOUT_CORPUS();
  CHECK(run({"run"}).code == 2);
  CHECK(run({"run", kAdd, "--bogus"}).code == 2);
  CHECK(run({"run", kAdd, "--threads", "x"}).code == 2);
  Result r = run({"run", kAdd, "--method", "nope"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "no method named 'nope' (methods: forward)"));
  r = run({"run", kCorpus + "executorch/arduino_KeywordSpotting_cortex_m.pte", "-i", "f32[1]:0"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "cortex_m::"));
  r = run({"run", kCorpus + "executorch/bundled_program.bpte"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "pte-run verify"));
  r = run({"run", kCorpus + "does-not-exist.pte"});
  CHECK(r.code == 1);
  CHECK(count_lines(r.err) == 1);
}

TEST_CASE("cli run: an unsupported operator or delegate is one line naming it") {
  SKIP_WITHOUT_CORPUS();
  Result r = run({"run", kCorpus + "executorch/pr17248_cadence_conv2d_quantized.pte"});
  CHECK(r.code == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(has(r.err, "cadence::"));
  r = run({"run", kCorpus + "cmsis-executorch/ethos_u_minimal_example.pte"});
  CHECK(r.code == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(has(r.err, "EthosUBackend"));
}

TEST_CASE("cli verify: the bundled program passes; tolerance flags; bad files") {
  SKIP_WITHOUT_CORPUS();
  const std::string bpte = kCorpus + "executorch/bundled_program.bpte";
  Result r = run({"verify", bpte});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  int pass_lines = 0;
  size_t pos = 0;
  while ((pos = r.out.find(" PASS\n", pos)) != std::string::npos) {
    ++pass_lines;
    ++pos;
  }
  CHECK(pass_lines == 10);
  CHECK(has(r.out, "forward case 0: max abs err 0 PASS"));
  CHECK(has(r.out, "10 passed, 0 failed"));

  r = run({"verify", bpte, "--json", "--atol", "0", "--rtol", "0"});
  CHECK(r.code == 0);
  pte::json::Value doc = parse_json(r);
  CHECK(doc.find("passed")->as_int() == 10);
  CHECK(doc.find("failed")->as_int() == 0);
  REQUIRE(doc.find("cases")->size() == 10);
  CHECK((*doc.find("cases"))[9].find("pass")->as_bool());

  CHECK(run({"verify", bpte, "--atol", "-1"}).code == 2);
  CHECK(run({"verify"}).code == 2);
  r = run({"verify", kAdd});
  CHECK(r.code == 1);
  CHECK(has(r.err, "not a bundled program"));
}

TEST_CASE("cli run: big tensors are summarised numpy-style in text, complete in JSON") {
  SKIP_WITHOUT_CORPUS();
  const std::string f = kCorpus + "executorch/pr17248_softmax.pte";
  // softmax of a constant row of 4096 is 1/4096 = 0.000244140625 everywhere.
  Result r = run({"run", f, "--input", "f32[2,4096]:1"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string row = "[0.000244141, 0.000244141, 0.000244141, ..., 0.000244141, 0.000244141, 0.000244141]";
  CHECK(r.out == "output 0: f32[2,4096] = [" + row + ", " + row + "]\n");
  r = run({"run", f, "--input", "f32[2,4096]:1", "--json"});
  REQUIRE(r.code == 0);
  pte::json::Value doc = parse_json(r);
  const pte::json::Value& data = *(*doc.find("outputs"))[0].find("data");
  REQUIRE(data.size() == 8192);
  CHECK(data.items()[8191].as_double() == 0.000244140625);
}

// Every positive portable corpus case through `pte-run run --json`, with the inputs
// and outputs its README states (the XNNPACK-delegated files are tested with the
// delegate). Each case also checks that running it with no inputs fails with the
// method's signature.
TEST_CASE("cli run: every portable corpus case prints the README's values with --json") {
  SKIP_WITHOUT_CORPUS();
  struct Case {
    std::string file;
    std::vector<std::string> args;   // after the file: inputs, --data
    std::vector<std::vector<double>> want;  // per output, the data; empty: not checked here
    std::vector<std::vector<int64_t>> shapes;
    const char* signature;           // printed when inputs are missing
  };
  const std::string c = kCorpus;
  const std::vector<Case> cases = {
      {"executorch/add_apple.pte", {"-i", "f32[1]:1", "-i", "f32[1]:1"}, {{2}}, {{1}}, "forward(f32[1], f32[1]) -> (f32[1])"},
      {"executorch/add_apple.pte", {"-i", "f32[1]:2", "-i", "f32[1]:3"}, {{5}}, {{1}}, nullptr},
      {"executorch/add_apple.pte", {"-i", "f32[1]:13.25", "-i", "f32[1]:29.25"}, {{42.5}}, {{1}}, nullptr},
      {"executorch/arduino_AddModel.pte", {"-i", "f32[3]:1,2,3"}, {{2, 3, 4}}, {{3}}, "forward(f32[3]) -> (f32[3])"},
      {"executorch-rs/add.pte", {"-i", "f32[1]:1", "-i", "f32[1]:1"}, {{2}}, {{1}}, "forward(f32[1], f32[1])"},
      {"executorch-rs/no_std_add.pte", {"-i", "f32[1]:1", "-i", "f32[1]:1"}, {{2}}, {{1}}, "forward(f32[1], f32[1])"},
      {"executorch/pr17248_add.pte", {"-i", "f32[1]:1", "-i", "f32[1]:1"}, {{2}}, {{1}}, "forward(f32[1], f32[1])"},
      {"node-executorch/mul.pte", {"-i", "f32[3,2]:1,2,3,4,5,6", "-i", "f32[3,2]:1,2,3,4,5,6"}, {{1, 4, 9, 16, 25, 36}}, {{3, 2}},
       "forward(f32[3,2], f32[3,2])"},
      {"executorch-numpy-runtime/dtypes.pte", {"-i", "i64[1]:3", "-i", "f32[1]:2.5"}, {{6}, {5}}, {{1}, {1}}, "forward(i64[1], f32[1])"},
      {"executorch-rs/data_map_model.pte", {"-i", "f32[2,2]:1,2,3,4", "--data", c + "executorch-rs/_default_external_constant.ptd"},
       {{5, 8, 11, 14}}, {{2, 2}}, "forward(f32[2,2])"},
      {"executorch/module_model_2024-03.pte", {"-i", "f32[1,2]:1,2"}, {{1.5}}, {{1}}, "forward(f32[1,2])"},
      {"executorch/module_linear.pte", {"-i", "f32[3,3]:2,3,4,2,3,4,2,3,4", "--data", c + "executorch/module_linear.ptd"}, {}, {{3, 3}},
       "forward(f32[3,3])"},
      {"executorch/ModuleLinear-no-constant-segment.pte", {"-i", "f32[2,2]:1,-2,0.5,3"}, {}, {{2, 2}}, "forward(f32[2,2])"},
      {"executorch-numpy-runtime/multi.pte", {"-i", "f32[2]:1.5,-4"}, {}, {{2}}, "forward(f32[2])"},
      {"executorch-numpy-runtime/multi.pte", {"--method", "double", "-i", "f32[2]:1.5,-4"}, {}, {{2}}, "double(f32[2])"},
      {"executorch-numpy-runtime/const_methods.pte", {"-i", "f32[3]:0,1,-7.5"}, {}, {{3}}, "forward(f32[3])"},
  };
  for (const Case& k : cases) {
    std::vector<std::string> argv = {"run", c + k.file};
    argv.insert(argv.end(), k.args.begin(), k.args.end());
    argv.push_back("--json");
    Result r = run(argv);
    INFO(k.file << " " << k.args.size() << " args; stderr: " << r.err);
    REQUIRE(r.code == 0);
    pte::json::Value doc = parse_json(r);
    const pte::json::Value& outs = *doc.find("outputs");
    REQUIRE(outs.size() == k.shapes.size());
    for (size_t o = 0; o < outs.size(); ++o) {
      CAPTURE(o);
      std::vector<int64_t> shape;
      for (const auto& d : outs[o].find("shape")->items()) shape.push_back(d.as_int());
      CHECK(shape == k.shapes[o]);
      const auto& data = outs[o].find("data")->items();
      for (const auto& v : data) CHECK(std::isfinite(v.as_double()));
      if (o < k.want.size()) {
        REQUIRE(data.size() == k.want[o].size());
        for (size_t i = 0; i < data.size(); ++i) CHECK(data[i].as_double() == doctest::Approx(k.want[o][i]).epsilon(1e-6));
      }
    }
    if (k.file.find("multi.pte") != std::string::npos || k.file.find("const_methods.pte") != std::string::npos) {
      // x + a constant from the file: the same offset for every element.
      const auto& data = outs[0].find("data")->items();
      std::vector<double> x = k.file.find("multi") != std::string::npos ? std::vector<double>{1.5, -4} : std::vector<double>{0, 1, -7.5};
      for (size_t i = 1; i < data.size(); ++i)
        CHECK(data[i].as_double() - x[i] == doctest::Approx(data[0].as_double() - x[0]));
    }
    if (k.signature) {
      std::vector<std::string> bare = {"run", c + k.file};
      for (size_t i = 0; i + 1 < k.args.size(); ++i)
        if (k.args[i] == "--data" || k.args[i] == "--method") bare.insert(bare.end(), {k.args[i], k.args[i + 1]});
      Result m = run(bare);
      CHECK(m.code == 1);
      CHECK(m.out.empty());
      CHECK_MESSAGE(has(m.err, std::string("signature: ") + k.signature), m.err);
    }
  }
}

// A saved output (.npy) against a recorded reference, within tiny_llama's fixture tolerance.
void check_saved_output(const fs::path& saved, const std::string& reference) {
  pte::util::HostTensor got, want;
  REQUIRE(pte::util::npy_read(saved.string(), &got));
  REQUIRE(pte::util::npy_read(reference, &want));
  pte::util::CompareOptions opt;
  opt.atol = 1e-4;
  opt.rtol = 1e-3;
  pte::util::CompareResult c = pte::util::compare_tensors(got, want, opt);
  INFO(c.message);
  CHECK(c.ok);
}

// A planned input's memory is reused by intermediates during execute, so --repeat must set
// the inputs again before every run: the prefill step of tiny_llama, run twice at the same
// cache positions, gives the recorded output of step 0 both times.
TEST_CASE("cli run: --repeat re-sets planned inputs (tiny_llama prefill twice)") {
  const std::string d = "fixtures/data/tiny_llama/";
  fs::path dir = fs::temp_directory_path() / ("pte_cli_repeat_" + std::to_string(::getpid()));
  Result r = run({"run", d + "model.pte", "--input", d + "input_0_0.npy", "--input", d + "input_0_1.npy",
                  "--repeat", "2", "--save-outputs", dir.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  check_saved_output(dir / "output_0.npy", d + "expected_et_0_0.npy");
  fs::remove_all(dir);
}

// --then: calls in sequence on one loaded method (the KV cache carries over): tiny_llama's
// recorded steps 0..2 as three calls give step 2's reference; --dump writes the last call's
// instructions, their files listed in index.tsv.
TEST_CASE("cli run: --then runs a call sequence (tiny_llama steps 0-2) and --dump writes the last call") {
  const std::string d = "fixtures/data/tiny_llama/";
  fs::path dir = fs::temp_directory_path() / ("pte_cli_then_" + std::to_string(::getpid()));
  fs::path dump = dir / "dump";
  Result r = run({"run", d + "model.pte", "--input", d + "input_0_0.npy", "--input", d + "input_0_1.npy", "--then",
                  "--input", d + "input_1_0.npy", "--input", d + "input_1_1.npy", "--then", "--input", d + "input_2_0.npy",
                  "--input", d + "input_2_1.npy", "--save-outputs", dir.string(), "--dump", dump.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  check_saved_output(dir / "output_0.npy", d + "expected_et_2_0.npy");
  pte::util::HostTensor one;
  // the index lists every dumped file; the last listed one is the last instruction's output
  std::string index = slurp(dump / "index.tsv");
  CHECK(has(index, "chain\tinstruction\tkind\tname\targ\tfile\tdtype\tshape"));
  int files = count_lines(index) - 1;
  CHECK(files > 10);
  std::string last = index.substr(index.rfind('\n', index.size() - 2) + 1);
  std::string file = last.substr(0, last.size() - 1);
  for (int tab = 0; tab < 5; ++tab) file = file.substr(file.find('\t') + 1);
  file = file.substr(0, file.find('\t'));
  CHECK(pte::util::npy_read((dump / file).string(), &one));
  // a bad --then sequence: the first call's missing input is named
  Result bad = run({"run", d + "model.pte", "--input", d + "input_0_0.npy", "--then", "--input", d + "input_1_0.npy",
                    "--input", d + "input_1_1.npy"});
  CHECK(bad.code == 1);
  CHECK(has(bad.err, "call 1"));
  fs::remove_all(dir);
}
