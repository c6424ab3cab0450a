// pte-run: fixture programs with fp32 linear layers and convolutions, run with the XNNPACK
// library forced on (MethodOptions::xnnpack = On) and off: the library path takes every
// candidate (portable aten linear / mm / addmm, the delegates' fully connected, convolution,
// depthwise and transposed convolution nodes), its outputs equal our
// kernels' and the recorded references within each case's tolerance, and a call allocates
// nothing. A build without the library runs our kernels under every policy.
#include <doctest/doctest.h>

#include <sstream>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ops/linalg/xnn_library.h"
#include "pte/program.h"
#include "util/compare.h"
#include "util/host_tensor.h"
#include "cli_spawn.h"
#include "util/json.h"
#include "util/npy.h"

namespace {

using pte::util::HostValue;

const char* kData = "fixtures/data/";

pte::Status read_list(const pte::json::Value* list, std::vector<HostValue>* out) {
  if (!list || !list->is_array()) return pte::Status::error("missing list");
  for (const auto& v : list->items()) {
    const pte::json::Value* kind = v.find("kind", pte::json::Type::String);
    if (!kind || kind->as_string() != "tensor") return pte::Status::error("only tensor values are used here");
    HostValue h;
    h.tag = pte::Tag::Tensor;
    PTE_TRY(pte::util::npy_read(kData + v.find("file", pte::json::Type::String)->as_string(), &h.tensor));
    out->push_back(std::move(h));
  }
  return pte::Status::ok();
}

// `pte-run ARGS` (split at spaces), stdout captured; exit code in *code.
std::string cli(const std::string& args, int* code) {
  std::vector<std::string> argv;
  std::istringstream in(args);
  for (std::string w; in >> w;) argv.push_back(w);
  pte_test::CliRun r = pte_test::run_pte_run(argv);
  *code = r.code;
  return r.out;
}

}  // namespace

TEST_CASE("xnn library: pte-run info lists each linear layer's path under --xnnpack") {
  const std::string f = "fixtures/data/mlp_xnnpack/model.pte";
  REQUIRE_MESSAGE(std::filesystem::exists(f), f << " is missing (a committed fixture)");
  const bool lib = pte::linalg::xnnlib::ready();
  for (const char* policy : {"on", "off"}) {
    CAPTURE(policy);
    int code = -1;
    pte::json::Value doc;
    REQUIRE(pte::json::parse(cli("info --json --xnnpack " + std::string(policy) + " " + f, &code), &doc).is_ok());
    REQUIRE(code == 0);
    const pte::json::Value* mm = doc.find("methods")->items()[0].find("matmuls", pte::json::Type::Array);
    REQUIRE(mm);
    REQUIRE(mm->size() == 2);  // Linear(16, 32), Linear(32, 8) as fully connected nodes
    const auto& first = mm->items()[0];
    CHECK(first.find("where")->as_string() == "delegate 0 node 0");
    CHECK(first.find("op")->as_string() == "XNNFullyConnected");
    CHECK(first.find("k")->as_int() == 16);
    CHECK(first.find("n")->as_int() == 32);
    const bool want = lib && std::string(policy) == "on";
    for (const auto& e : mm->items()) CHECK(e.find("path")->as_string() == (want ? "xnnpack" : "ours"));
    const std::string text = cli("info --xnnpack=" + std::string(policy) + " " + f, &code);
    CHECK(code == 0);
    CHECK(text.find(want ? "(2 of 2 on the XNNPACK library)" : "(0 of 2 on the XNNPACK library)") != std::string::npos);
  }
  int code = -1;
  cli("info --xnnpack sometimes " + f, &code);
  CHECK(code == 2);
  // the option reaches `run` too; the outputs agree with the default run within the case's tolerance
  const std::string a = cli("run --json --xnnpack on " + f + " --input fixtures/data/mlp_xnnpack/input_0_0.npy", &code);
  CHECK(code == 0);
  CHECK(a.find("\"outputs\"") != std::string::npos);
}

TEST_CASE("xnn library: fixtures with linear layers and convolutions, library forced on vs our kernels vs the references") {
  const char* manifest = "fixtures/data/manifest.json";
  REQUIRE_MESSAGE(std::filesystem::exists(manifest), manifest << " is missing (run from the repository root)");
  pte::json::Value doc;
  pte::Status s = pte::json::parse_file(manifest, &doc);
  REQUIRE_MESSAGE(s, s.message());
  const bool lib = pte::linalg::xnnlib::ready();
  if (!lib) MESSAGE("this build runs our kernels only: checking that forcing the library changes nothing");
  // portable (permute_copy + addmm, mm) and XNNPACK-delegate (fully connected, fp16 filters in place;
  // convolutions: padded, strided, grouped, depthwise, transposed, dynamic input size) programs
  const std::vector<std::string> names = {"mlp", "mlp_xnnpack", "tiny_llama", "tiny_llama_xnnpack", "xnode_mlp_f16_dyn_xnnpack",
                                          "cnn_xnnpack", "xnode_conv_pad_f32_xnnpack", "xnode_deconv_f32_xnnpack",
                                          "xnode_deconv_dyn_f32_xnnpack"};
  int convs = 0;
  int ran = 0;
  for (const auto& c : doc.find("cases", pte::json::Type::Array)->items()) {
    const std::string name = c.find("name")->as_string();
    bool wanted = false;
    for (const auto& n : names) wanted = wanted || n == name;
    if (!wanted) continue;
    CAPTURE(name);
    ++ran;
    std::unique_ptr<pte::Program> program;
    REQUIRE(pte::Program::open_file(kData + c.find("file")->as_string(), {}, &program).is_ok());
    const std::string method = c.find("method")->as_string();
    std::unique_ptr<pte::Method> on, off;
    pte::Program::MethodOptions mo;
    mo.num_threads = 2;
    mo.xnnpack = pte::XnnpackPolicy::On;
    REQUIRE(program->load_method(method, mo, &on).is_ok());
    mo.xnnpack = pte::XnnpackPolicy::Off;
    REQUIRE(program->load_method(method, mo, &off).is_ok());
    const auto paths_on = on->matmul_paths(), paths_off = off->matmul_paths();
    REQUIRE(paths_on.size() == paths_off.size());
    CHECK(!paths_on.empty());
    // fp16 filters stay fp16, read in place by our kernels under every policy
    const bool f16_filters = name == "xnode_mlp_f16_dyn_xnnpack";
    for (size_t k = 0; k < paths_on.size(); ++k) {
      CAPTURE(paths_on[k].where);
      CHECK(paths_on[k].library == (lib && !f16_filters));
      if (f16_filters) CHECK(paths_on[k].why.find("fp16 filter read in place") != std::string::npos);
      CHECK_FALSE(paths_off[k].library);
      CHECK(paths_on[k].where == paths_off[k].where);
      CHECK(paths_on[k].n > 0);
      CHECK(paths_on[k].k > 0);
      convs += paths_on[k].op.find("Conv") != std::string::npos;
    }
    pte::util::CompareOptions cmp;
    cmp.atol = c.find("atol")->as_double();
    cmp.rtol = c.find("rtol")->as_double();
    cmp.bf16_bytewise = false;
    for (const auto& step : c.find("steps", pte::json::Type::Array)->items()) {
      std::vector<HostValue> inputs, et;
      REQUIRE(read_list(step.find("inputs"), &inputs).is_ok());
      REQUIRE(read_list(step.find("expected_et"), &et).is_ok());
      std::vector<pte::util::BoundInput> b1, b2;
      REQUIRE(pte::util::set_inputs(*on, inputs, &b1).is_ok());
      REQUIRE(pte::util::set_inputs(*off, inputs, &b2).is_ok());
      s = on->execute();
      REQUIRE_MESSAGE(s.is_ok(), s.message());
      s = off->execute();
      REQUIRE_MESSAGE(s.is_ok(), s.message());
      REQUIRE(on->num_outputs() == et.size());
      for (size_t k = 0; k < et.size(); ++k) {
        HostValue a, o;
        REQUIRE(pte::util::host_from_evalue(on->output(k), &a).is_ok());
        REQUIRE(pte::util::host_from_evalue(off->output(k), &o).is_ok());
        pte::util::CompareResult vs_ours = pte::util::compare_values(a, o, cmp);
        pte::util::CompareResult vs_et = pte::util::compare_values(a, et[k], cmp);
        CHECK_MESSAGE(vs_ours.ok, "library vs our kernels: " << vs_ours.message);
        CHECK_MESSAGE(vs_et.ok, "library vs the official runtime: " << vs_et.message);
        if (!lib) CHECK(vs_ours.max_abs_err == 0.0);  // the same code ran
      }
    }
  }
  CHECK(ran == static_cast<int>(names.size()));
  CHECK(convs >= 6);  // every convolution node of the four conv programs is a candidate
}

TEST_CASE("xnn library: the process default policy reaches a method loaded with Default") {
  const std::string f = "fixtures/data/mlp/model.pte";
  REQUIRE_MESSAGE(std::filesystem::exists(f), f << " is missing (a committed fixture)");
  std::unique_ptr<pte::Program> program;
  REQUIRE(pte::Program::open_file(f, {}, &program).is_ok());
  const pte::XnnpackPolicy initial = pte::default_xnnpack_policy();
  for (pte::XnnpackPolicy p : {pte::XnnpackPolicy::On, pte::XnnpackPolicy::Off}) {
    pte::set_default_xnnpack_policy(p);
    std::unique_ptr<pte::Method> m;
    REQUIRE(program->load_method("forward", {}, &m).is_ok());
    const auto paths = m->matmul_paths();
    REQUIRE(paths.size() == 2);  // two addmm with permuted constant weights
    for (const auto& path : paths) {
      CHECK(path.op == "aten::addmm.out");
      CHECK(path.library == (p == pte::XnnpackPolicy::On && pte::linalg::xnnlib::ready()));
      CHECK(!path.why.empty());
    }
    CHECK(paths[0].k == 16);
    CHECK(paths[0].n == 32);
  }
  pte::set_default_xnnpack_policy(initial);
}
