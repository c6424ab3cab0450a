// pte-run: what the generating commands (generate, chat, seq2seq, encoders) share when they
// read their arguments: one option at a time, a value or a number after it (a missing value
// or a non-number ends the process with one line and exit status 2), the sampling options,
// and a prompt read from a file.
#pragma once
#include <string>

#include "llm/sampler.h"

namespace pte::cli {

class ArgReader {
 public:
  ArgReader(int argc, char** argv) : argc_(argc), argv_(argv) {}
  // Moves to the next argument (the first call to argv[1]); false past the last.
  bool next();
  const std::string& arg() const { return arg_; }
  // The argument after the current option, consumed.
  const char* value();
  // value() as a number (strtod, the whole string).
  double number();

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
  std::string arg_;
};

// --temperature, --top-k, --top-p, --min-p, --seed, --repeat-penalty, --repeat-last-n:
// true when the current argument was one of them (and its value was read into s).
bool take_sampling_option(ArgReader& args, SamplerConfig* s);

// The sampling options' ranges; false (after one line on stderr) when one is out of range.
bool check_sampling(const SamplerConfig& s);

// Reads a prompt file whole. On failure prints one line naming the file and returns false.
bool read_prompt_file(const std::string& path, std::string* out);

}  // namespace pte::cli
