// pte-run tests: a fixture program run over its recorded steps (input_<step>_<k>.npy in
// its folder, or one named input file), outputs kept as host tensors per step; the loaded
// method stays with the result so a test can read its load-time counters.
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "pte/program.h"
#include "util/host_tensor.h"
#include "util/npy.h"

namespace pte::test {

struct FixtureRun {
  std::unique_ptr<pte::Program> program;
  std::unique_ptr<pte::Method> method;
  std::vector<std::vector<pte::util::HostTensor>> outputs;  // [step][output]
};

// single: one input file (an image fixture's pixel values: a batch dim is added to a 3-d
// array), or "" for the input_<step>_<k>.npy steps.
inline FixtureRun run_fixture_steps(const std::string& dir, const std::string& file, const std::string& single,
                                    const pte::Program::MethodOptions& mo) {
  FixtureRun r;
  REQUIRE(pte::Program::open_file(dir + file, {}, &r.program).is_ok());
  REQUIRE(r.program->load_method("forward", mo, &r.method).is_ok());
  pte::Method& m = *r.method;
  for (int step = 0;; ++step) {
    std::vector<std::string> files;
    if (!single.empty()) {
      if (step > 0) break;
      files.push_back(dir + single);
    } else {
      for (int k = 0;; ++k) {
        const std::string p = dir + "input_" + std::to_string(step) + "_" + std::to_string(k) + ".npy";
        if (!std::filesystem::exists(p)) break;
        files.push_back(p);
      }
      if (files.empty()) break;
    }
    std::vector<pte::util::HostValue> in;
    for (const std::string& p : files) {
      in.emplace_back();
      in.back().tag = pte::Tag::Tensor;
      REQUIRE(pte::util::npy_read(p, &in.back().tensor).is_ok());
      if (!single.empty() && in.back().tensor.shape.size() == 3) in.back().tensor.shape.insert(in.back().tensor.shape.begin(), 1);
    }
    std::vector<pte::util::BoundInput> bound;
    REQUIRE(pte::util::set_inputs(m, in, &bound).is_ok());
    REQUIRE(m.execute().is_ok());
    r.outputs.emplace_back();
    for (size_t o = 0; o < m.num_outputs(); ++o) {
      pte::util::HostTensor t;
      if (m.output(o).tag == pte::Tag::Tensor) REQUIRE(pte::util::host_from_tensor(*m.output(o).t, &t).is_ok());
      r.outputs.back().push_back(std::move(t));
    }
  }
  return r;
}

}  // namespace pte::test
