#include "cli_spawn.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

extern char** environ;

namespace pte_test {

namespace fs = std::filesystem;

std::string pte_run_exe() {
  if (const char* p = std::getenv("PTE_RUN")) return p;
  // build/tests/pte-tests -> build/bin/pte-run
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  fs::path guess = self.parent_path().parent_path() / "bin" / "pte-run";
  return fs::exists(guess) ? guess.string() : "";
}

fs::path scratch_dir(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("pte_" + tag + "_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

CliRun run_pte_run(const std::vector<std::string>& args, const std::string* input, bool merged) {
  CliRun r;
  std::string exe = pte_run_exe();
  REQUIRE_MESSAGE(!exe.empty(), "pte-run binary not found (set PTE_RUN)");
  fs::path d = scratch_dir("cli");
  std::string in = input ? (d / "in").string() : "/dev/null";
  std::string out = (d / "out").string(), err = (d / "err").string();
  if (input) std::ofstream(in, std::ios::binary) << *input;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (merged) posix_spawn_file_actions_adddup2(&fa, 1, 2);
  else posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv{const_cast<char*>(exe.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = merged ? "" : slurp(err);
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(err, ec);
  if (input) fs::remove(in, ec);
  return r;
}

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace pte_test
