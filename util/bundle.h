// pte-run tools: bundled programs (.bpte, identifier "BP08"): an ExecuTorch
// program plus test cases (inputs and expected outputs per method). Used by
// `pte-run verify` and by the corpus tests.
//
// Reading checks the file like the program loader does: size and identifier,
// the flatbuffer verifier over every table, and every test tensor's dtype, rank,
// dim order and byte count. The embedded program (a complete .pte) is opened
// with Program::open_buffer, which validates it in turn.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/compare.h"
#include "util/host_tensor.h"

namespace pte::util {

struct BundleTestCase {
  std::vector<HostValue> inputs;
  std::vector<HostValue> expected;
};

struct BundleSuite {
  std::string method;
  std::vector<BundleTestCase> cases;
};

struct Bundle {
  std::string name;
  uint32_t version = 0;
  std::vector<BundleSuite> suites;
  std::vector<uint8_t> storage;   // the whole file (keeps the embedded program alive)
  size_t program_offset = 0;      // the embedded .pte inside `storage`
  size_t program_size = 0;
  const uint8_t* program_data() const { return storage.data() + program_offset; }
};

// Parses and validates a bundle held in `bytes` (moved into out->storage).
Status bundle_parse(std::vector<uint8_t> bytes, const std::string& name, Bundle* out);
Status bundle_read(const std::string& path, Bundle* out);

struct BundleCaseResult {
  std::string method;
  size_t index = 0;               // within its suite
  bool pass = false;
  double max_abs_err = 0;         // over all outputs
  std::string message;            // the failure, when !pass
};

struct BundleReport {
  std::vector<BundleCaseResult> cases;
  size_t passed = 0, failed = 0;
};

// Opens the embedded program and runs every case of every suite (one loaded
// method per suite, cases in order): set each input, execute, compare each
// output (compare.h rules; bfloat16 bytewise). A case that cannot run (missing
// method, load or execute error) fails with that message. The returned Status
// fails only when the program itself cannot be opened.
// `open` passes external data files (.ptd) for the embedded program.
Status bundle_run(const Bundle& bundle, const CompareOptions& compare, const Program::MethodOptions& method_options,
                  BundleReport* report, const OpenOptions& open = {});

}  // namespace pte::util
