#include "bin/args.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace pte::cli {

bool ArgReader::next() {
  if (++i_ >= argc_) return false;
  arg_ = argv_[i_];
  return true;
}

const char* ArgReader::value() {
  if (i_ + 1 >= argc_) {
    std::fprintf(stderr, "pte-run: %s needs a value\n", arg_.c_str());
    std::exit(2);
  }
  return argv_[++i_];
}

double ArgReader::number() {
  std::string name = arg_;
  const char* v = value();
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v, &end);
  if (!v[0] || !end || *end != 0 || errno != 0) {
    std::fprintf(stderr, "pte-run: %s: '%s' is not a number\n", name.c_str(), v);
    std::exit(2);
  }
  return x;
}

bool take_sampling_option(ArgReader& args, SamplerConfig* s) {
  const std::string& a = args.arg();
  if (a == "--temperature") s->temperature = static_cast<float>(args.number());
  else if (a == "--top-k") s->top_k = static_cast<int>(args.number());
  else if (a == "--top-p") s->top_p = static_cast<float>(args.number());
  else if (a == "--min-p") s->min_p = static_cast<float>(args.number());
  else if (a == "--seed") s->seed = static_cast<uint64_t>(args.number());
  else if (a == "--repeat-penalty") s->repeat_penalty = static_cast<float>(args.number());
  else if (a == "--repeat-last-n") s->repeat_last_n = static_cast<int>(args.number());
  else return false;
  return true;
}

bool check_sampling(const SamplerConfig& s) {
  if (s.temperature < 0 || s.top_p < 0 || s.top_p > 1 || s.top_k < 0 || s.min_p < 0 || s.min_p > 1 ||
      s.repeat_penalty <= 0) {
    std::fprintf(stderr, "pte-run: --temperature must be >= 0, --top-k >= 0, --top-p and --min-p in [0, 1], "
                         "--repeat-penalty > 0\n");
    return false;
  }
  return true;
}

bool read_prompt_file(const std::string& path, std::string* out) {
  struct stat sb;
  if (::stat(path.c_str(), &sb) != 0) {
    std::fprintf(stderr, "pte-run: %s: cannot read the prompt file: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  if (!S_ISREG(sb.st_mode)) {
    std::fprintf(stderr, "pte-run: %s: cannot read the prompt file: not a regular file\n", path.c_str());
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "pte-run: %s: cannot read the prompt file: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) {
    std::fprintf(stderr, "pte-run: %s: cannot read the prompt file: read error\n", path.c_str());
    return false;
  }
  *out = ss.str();
  return true;
}

}  // namespace pte::cli
