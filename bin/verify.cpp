// pte-run verify: runs every test case of a bundled program (.bpte) and compares
// the outputs with the expected ones (util/bundle.h, util/compare.h).
//
//   pte-run verify FILE.bpte [--atol A] [--rtol R] [--data F.ptd]... [--threads N] [--json]
//
// An element passes when |a-b| <= atol + rtol*|b| (float, double, half; NaN equals
// NaN); every other dtype, bfloat16 included, must match bytewise; shapes and dtypes
// exactly. Defaults rtol 1e-5, atol 1e-8, as ExecuTorch's own verifier.
// Exit 0 when every case passes, 1 otherwise.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bin/commands.h"
#include "util/bundle.h"
#include "util/json.h"

namespace pte::cli {

namespace {

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run verify FILE.bpte [--atol A] [--rtol R] [--data F.ptd]... [--threads N] [--json]\n"
               "  runs every test case of the bundled program; exit 1 if any fails\n"
               "  --atol A   absolute tolerance (default 1e-8)\n"
               "  --rtol R   relative tolerance (default 1e-5)\n"
               "  --data F   external weights file of the embedded program (repeatable)\n"
               "  floats/doubles/halves pass when |a-b| <= atol + rtol*|b| (NaN equals NaN);\n"
               "  every other dtype, bfloat16 included, must match bytewise\n");
}

bool parse_double(const std::string& s, double* out) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !(v >= 0) || std::isinf(v)) return false;
  *out = v;
  return true;
}

std::string fmt(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string json_number(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

}  // namespace

int cmd_verify(int argc, char** argv) {
  std::string path;
  util::CompareOptions cmp;  // rtol 1e-5, atol 1e-8, bfloat16 bytewise
  Program::MethodOptions mopts;
  bool json_out = false;
  OpenOptions open;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool inline_value = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      inline_value = true;
    }
    auto need = [&]() {
      if (inline_value) return true;
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    } else if (arg == "--json") {
      json_out = true;
    } else if (arg == "--atol" || arg == "--rtol") {
      double* dst = arg == "--atol" ? &cmp.atol : &cmp.rtol;
      if (!need() || !parse_double(value, dst)) {
        std::fprintf(stderr, "pte-run verify: %s wants a number >= 0\n", arg.c_str());
        return 2;
      }
    } else if (arg == "--data") {
      if (!need()) {
        std::fprintf(stderr, "pte-run verify: --data needs a value\n");
        return 2;
      }
      open.data_files.push_back(value);
    } else if (arg == "--threads") {
      if (!need()) {
        std::fprintf(stderr, "pte-run verify: --threads needs a value\n");
        return 2;
      }
      mopts.num_threads = std::atoi(value.c_str());
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "pte-run verify: unknown option '%s'\n", arg.c_str());
      return 2;
    } else if (path.empty()) {
      path = arg;
    } else {
      std::fprintf(stderr, "pte-run verify: unexpected argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (path.empty()) {
    usage(stderr);
    return 2;
  }

  util::Bundle bundle;
  Status s = util::bundle_read(path, &bundle);
  util::BundleReport report;
  if (s) s = util::bundle_run(bundle, cmp, mopts, &report, open);
  if (!s) {
    std::fprintf(stderr, "pte-run: %s\n", s.message().c_str());
    return 1;
  }

  if (json_out) {
    std::string out = "{\"file\": " + json::quote(path) + ", \"atol\": " + json_number(cmp.atol) + ", \"rtol\": " +
                      json_number(cmp.rtol) + ", \"cases\": [";
    for (size_t k = 0; k < report.cases.size(); ++k) {
      const util::BundleCaseResult& c = report.cases[k];
      if (k) out += ", ";
      out += "{\"method\": " + json::quote(c.method) + ", \"case\": " + std::to_string(c.index) +
             ", \"max_abs_err\": " + json_number(c.max_abs_err) + ", \"pass\": " + (c.pass ? "true" : "false");
      if (!c.pass) out += ", \"error\": " + json::quote(c.message);
      out += "}";
    }
    out += "], \"passed\": " + std::to_string(report.passed) + ", \"failed\": " + std::to_string(report.failed) + "}\n";
    std::fputs(out.c_str(), stdout);
  } else {
    for (const util::BundleCaseResult& c : report.cases) {
      std::printf("%s case %zu: max abs err %s %s", c.method.c_str(), c.index, fmt(c.max_abs_err).c_str(),
                  c.pass ? "PASS" : "FAIL");
      if (!c.pass) std::printf(" (%s)", c.message.c_str());
      std::printf("\n");
    }
    std::printf("%zu passed, %zu failed (atol %s, rtol %s)\n", report.passed, report.failed, fmt(cmp.atol).c_str(),
                fmt(cmp.rtol).c_str());
  }
  if (report.cases.empty()) {
    std::fprintf(stderr, "pte-run: %s holds no test cases\n", path.c_str());
    return 1;
  }
  return report.failed ? 1 : 0;
}

}  // namespace pte::cli
