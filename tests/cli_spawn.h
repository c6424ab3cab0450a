// Runs the pte-run CLI from the tests: the binary is $PTE_RUN (under qemu, a wrapper) or
// build/bin/pte-run beside build/tests/pte-tests. Shared by every suite that spawns the CLI.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace pte_test {

struct CliRun {
  int code = -1;  // exit status, or 128 + the signal that ended it
  std::string out, err;
};

// The pte-run executable; empty when neither $PTE_RUN nor build/bin/pte-run exists.
std::string pte_run_exe();
// A per-process scratch folder under the temp directory: pte_TAG_PID (created).
std::filesystem::path scratch_dir(const std::string& tag);
// A file's bytes ("" when it cannot be read).
std::string slurp(const std::filesystem::path& p);
// pte-run ARGS with `input` on stdin (/dev/null when null), stdout and stderr captured;
// merged: stderr goes into `out` too, as a terminal shows them. REQUIREs that it ran.
CliRun run_pte_run(const std::vector<std::string>& args, const std::string* input = nullptr,
                   bool merged = false);
int count_lines(const std::string& s);

}  // namespace pte_test
