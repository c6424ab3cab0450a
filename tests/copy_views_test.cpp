// pte-run: copies run as views (MethodOptions::copies_as_views, fold_copy_views in
// interpreter/passes/copy_views.cpp). The decoder fixtures' attention copies its KV cache
// (unsqueeze_copy, expand_copy, clone) at every step; with the copies run as views every
// output of every step must be bit-identical to the copying run, under the file's memory
// plan and under our re-plan.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "pte/program.h"
#include "util/host_tensor.h"
#include "util/npy.h"

namespace {

// Every step of a fixture (input_<step>_<k>.npy), outputs as host tensors.
struct Run {
  size_t views = 0;
  std::vector<std::vector<pte::util::HostTensor>> outputs;  // [step][output]
};

Run run_fixture(const std::string& name, bool views, bool replan) {
  Run r;
  const std::string dir = "fixtures/data/" + name + "/";
  std::unique_ptr<pte::Program> prog;
  REQUIRE(pte::Program::open_file(dir + "model.pte", {}, &prog).is_ok());
  pte::Program::MethodOptions mo;
  mo.num_threads = 1;
  mo.copies_as_views = views;
  mo.replan_memory = replan;
  std::unique_ptr<pte::Method> m;
  REQUIRE(prog->load_method("forward", mo, &m).is_ok());
  r.views = m->copies_as_views();
  for (int step = 0; std::filesystem::exists(dir + "input_" + std::to_string(step) + "_0.npy"); ++step) {
    std::vector<pte::util::HostValue> in;
    for (int k = 0;; ++k) {
      const std::string p = dir + "input_" + std::to_string(step) + "_" + std::to_string(k) + ".npy";
      if (!std::filesystem::exists(p)) break;
      in.emplace_back();
      in.back().tag = pte::Tag::Tensor;
      REQUIRE(pte::util::npy_read(p, &in.back().tensor).is_ok());
    }
    std::vector<pte::util::BoundInput> bound;
    REQUIRE(pte::util::set_inputs(*m, in, &bound).is_ok());
    REQUIRE(m->execute().is_ok());
    r.outputs.emplace_back();
    for (size_t o = 0; o < m->num_outputs(); ++o) {
      pte::util::HostTensor t;
      if (m->output(o).tag == pte::Tag::Tensor) REQUIRE(pte::util::host_from_tensor(*m->output(o).t, &t).is_ok());
      r.outputs.back().push_back(std::move(t));
    }
  }
  return r;
}

}  // namespace

TEST_CASE("copies as views: the decoders' KV-cache copies run as views, outputs bit-identical") {
  for (const char* name : {"decoder_llama", "decoder_smollm", "decoder_qwen3", "decoder_gemma2", "decoder_phi3",
                           "tiny_llama", "kv_state", "softmax_attention"}) {
    for (bool replan : {false, true}) {
      CAPTURE(name);
      CAPTURE(replan);
      const Run copy = run_fixture(name, false, replan), view = run_fixture(name, true, replan);
      CHECK(copy.views == 0);
      if (std::strncmp(name, "decoder_", 8) == 0) CHECK(view.views > 0);
      REQUIRE(copy.outputs.size() == view.outputs.size());
      REQUIRE(!copy.outputs.empty());
      for (size_t s = 0; s < copy.outputs.size(); ++s)
        for (size_t o = 0; o < copy.outputs[s].size(); ++o) {
          CAPTURE(s);
          CAPTURE(o);
          CHECK(copy.outputs[s][o].shape == view.outputs[s][o].shape);
          CHECK(copy.outputs[s][o].bytes == view.outputs[s][o].bytes);
        }
    }
  }
}
