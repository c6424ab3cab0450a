// pte-run run: runs one method of a program on inputs given on the command line.
//
//   pte-run run MODEL.pte [--method NAME] [--data F.ptd]... [--input SPEC]...
//               [--json] [--save-outputs DIR] [--threads N] [--repeat N]
//
// Inputs are .npy files or literals (util/input_spec.h). A missing or mismatched
// input is refused with one line naming it and a second line with the method's
// signature. Outputs print one per line, or as one JSON document with --json.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bin/commands.h"
#include "bin/print.h"
#include "pte/program.h"
#include "util/host_tensor.h"
#include "util/input_spec.h"
#include "util/json.h"
#include "util/npy.h"

namespace pte::cli {

namespace {

// --dump: every tensor argument of every executed instruction, as .npy, with an index.
struct Dumper {
  std::string dir;
  std::FILE* index = nullptr;
  std::string error;
  static bool observe(void* user, const InstructionEvent& e) {
    Dumper* d = static_cast<Dumper*>(user);
    for (size_t k = 0; k < e.nargs; ++k) {
      const EValue* v = e.args[k];
      if (!v || v->tag != Tag::Tensor || !v->t) continue;
      if (!v->t->data && v->t->numel() > 0) continue;
      util::HostValue h;
      if (!util::host_from_evalue(*v, &h) || !util::npy_descr(h.tensor.dtype)) continue;
      char name[96];
      std::snprintf(name, sizeof(name), "c%zu_i%04zu_a%zu.npy", e.chain, e.instruction, k);
      Status ws = util::npy_write((std::filesystem::path(d->dir) / name).string(), h.tensor);
      if (!ws) {
        d->error = ws.message();
        return false;
      }
      std::string shape;
      for (int64_t s : h.tensor.shape) shape += (shape.empty() ? "" : ",") + std::to_string(s);
      std::fprintf(d->index, "%zu\t%zu\t%s\t%s\t%zu\t%s\t%s\t[%s]\n", e.chain, e.instruction, e.delegate ? "delegate" : "kernel",
                   e.name, k, name, dtype_short_name(h.tensor.dtype), shape.c_str());
    }
    return true;
  }
};

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: pte-run run MODEL.pte [--method NAME] [--data F.ptd]... [--input SPEC]...\n"
               "                   [--json] [--save-outputs DIR] [--threads N] [--repeat N]\n"
               "                   [--dump DIR] [--then --input SPEC...]...\n"
               "\n"
               "  --method NAME       method to run (default: forward, or the only method)\n"
               "  --data F.ptd        external weights file (repeatable)\n"
               "  --input SPEC        one per method input, in order:\n"
               "                        x.npy              a .npy file\n"
               "                        f32[2,2]:1,2,3,4   tensor literal (C order); one value fills it: f32[2,2]:0\n"
               "                        f32[]:3.5          0-d tensor\n"
               "                        i64:3 f64:2.5 bool:true   scalar inputs\n"
               "                      dtypes: f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool\n"
               "  --json              print {\"method\", \"outputs\": [...]} with full data\n"
               "  --save-outputs DIR  write DIR/output_<i>.npy for every output\n"
               "  --threads N         kernel threads (default: physical cores)\n"
               "  --repeat N          execute N times (inputs set before each) and report the time\n"
               "  --then              run the method again (state such as a KV cache carries over) with the\n"
               "                      --input specs that follow, e.g. a prefill then a decode step; the\n"
               "                      outputs, --repeat and --dump are those of the last call\n"
               "  --dump DIR          debugging: after every instruction, write its tensor arguments\n"
               "                      (outputs last) to DIR/c<chain>_i<instr>_a<arg>.npy, listed in DIR/index.tsv\n");
}

struct Args {
  std::string model;
  std::string method;
  std::vector<std::string> data;
  std::vector<std::string> inputs;
  std::vector<std::vector<std::string>> earlier_calls;  // input specs of the calls before the last (--then)
  bool json = false;
  std::string save_dir;
  std::string dump_dir;
  int threads = 0;
  int repeat = 1;
  bool timing = false;
};

bool parse_int(const char* s, int lo, int* out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!*s || *end || v < lo || v > 1'000'000) return false;
  *out = static_cast<int>(v);
  return true;
}

// Returns -1 on success, else the exit code.
int parse_args(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    auto need = [&](std::string* out) {
      if (has_inline) {
        *out = value;
        return true;
      }
      if (i + 1 >= argc) {
        std::fprintf(stderr, "pte-run run: %s needs a value\n", arg.c_str());
        return false;
      }
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    } else if (arg == "--json") {
      a->json = true;
    } else if (arg == "--method" || arg == "-m") {
      if (!need(&a->method)) return 2;
    } else if (arg == "--data") {
      if (!need(&v)) return 2;
      a->data.push_back(v);
    } else if (arg == "--input" || arg == "-i") {
      if (!need(&v)) return 2;
      a->inputs.push_back(v);
    } else if (arg == "--save-outputs") {
      if (!need(&a->save_dir)) return 2;
    } else if (arg == "--then") {
      a->earlier_calls.push_back(std::move(a->inputs));
      a->inputs.clear();
    } else if (arg == "--dump") {
      if (!need(&a->dump_dir)) return 2;
    } else if (arg == "--threads") {
      if (!need(&v)) return 2;
      if (!parse_int(v.c_str(), 0, &a->threads)) {
        std::fprintf(stderr, "pte-run run: --threads wants a number >= 0, got '%s'\n", v.c_str());
        return 2;
      }
    } else if (arg == "--repeat") {
      if (!need(&v)) return 2;
      if (!parse_int(v.c_str(), 1, &a->repeat)) {
        std::fprintf(stderr, "pte-run run: --repeat wants a number >= 1, got '%s'\n", v.c_str());
        return 2;
      }
      a->timing = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "pte-run run: unknown option '%s' (see pte-run run --help)\n", arg.c_str());
      return 2;
    } else if (a->model.empty()) {
      a->model = arg;
    } else {
      std::fprintf(stderr, "pte-run run: unexpected argument '%s' (inputs go after --input)\n", arg.c_str());
      return 2;
    }
  }
  if (a->model.empty()) {
    usage(stderr);
    return 2;
  }
  return -1;
}

std::string method_list(const ProgramInfo& info) {
  std::string s;
  for (const MethodInfo& m : info.methods) s += (s.empty() ? "" : ", ") + m.name;
  return s;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "pte-run: %s\n", message.c_str());
  return 1;
}

int fail_with_signature(const std::string& message, const MethodInfo& m) {
  std::fprintf(stderr, "pte-run: %s\n  signature: %s\n", message.c_str(), util::signature_string(m).c_str());
  return 1;
}

}  // namespace

int cmd_run(int argc, char** argv) {
  Args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  OpenOptions open;
  open.data_files = a.data;
  std::unique_ptr<Program> program;
  Status s = Program::open_file(a.model, open, &program);
  if (!s) return fail(s.message());
  const ProgramInfo& pinfo = program->info();

  // Which method.
  const MethodInfo* minfo = nullptr;
  if (a.method.empty()) {
    for (const MethodInfo& m : pinfo.methods)
      if (m.name == "forward") minfo = &m;
    if (!minfo && pinfo.methods.size() == 1) minfo = &pinfo.methods[0];
    if (!minfo) return fail(a.model + ": no method 'forward'; choose one with --method (methods: " + method_list(pinfo) + ")");
  } else {
    for (const MethodInfo& m : pinfo.methods)
      if (m.name == a.method) minfo = &m;
    if (!minfo) return fail(a.model + ": no method named '" + a.method + "' (methods: " + method_list(pinfo) + ")");
  }

  // Load first: an unsupported operator or delegate is reported whatever the inputs.
  Program::MethodOptions mopts;
  mopts.num_threads = a.threads;
  std::unique_ptr<Method> method;
  s = program->load_method(minfo->name, mopts, &method);
  if (!s) return fail(s.message());

  // Earlier calls (--then): run in order, outputs discarded.
  for (size_t c = 0; c < a.earlier_calls.size(); ++c) {
    const auto& specs = a.earlier_calls[c];
    std::vector<util::HostValue> vals(specs.size());
    for (size_t k = 0; k < specs.size(); ++k) {
      Status ps = util::parse_input_spec(specs[k], &vals[k]);
      if (!ps) return fail_with_signature("call " + std::to_string(c + 1) + ", input " + std::to_string(k) + ": " + ps.message(), *minfo);
    }
    if (vals.size() != minfo->inputs.size())
      return fail_with_signature("call " + std::to_string(c + 1) + ": method " + minfo->name + " takes " +
                                     std::to_string(minfo->inputs.size()) + " inputs, got " + std::to_string(vals.size()),
                                 *minfo);
    std::vector<util::BoundInput> b;
    s = util::set_inputs(*method, vals, &b);
    if (!s) return fail_with_signature("call " + std::to_string(c + 1) + ": " + s.message(), method->info());
    s = method->execute();
    if (!s) return fail("call " + std::to_string(c + 1) + ": " + s.message());
  }

  // Inputs: parse, then check against the signature.
  std::vector<util::HostValue> values(a.inputs.size());
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    Status ps = util::parse_input_spec(a.inputs[k], &values[k]);
    if (!ps) return fail_with_signature("input " + std::to_string(k) + ": " + ps.message(), *minfo);
  }
  if (values.size() != minfo->inputs.size()) {
    std::string msg = "method " + minfo->name + " takes " + std::to_string(minfo->inputs.size()) + " input" +
                      (minfo->inputs.size() == 1 ? "" : "s") + ", got " + std::to_string(values.size());
    if (values.size() < minfo->inputs.size())
      msg += " (missing input " + std::to_string(values.size()) + ": " + util::signature_entry(minfo->inputs[values.size()]) + ")";
    return fail_with_signature(msg, *minfo);
  }
  // Checks each input against the signature (dtype, shape, baked-in scalars), then sets it.
  std::vector<util::BoundInput> bound;
  s = util::set_inputs(*method, values, &bound);
  if (!s) return fail_with_signature(s.message(), method->info());

  Dumper dumper;
  if (!a.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.dump_dir, ec);
    if (ec) return fail(a.dump_dir + ": cannot create directory: " + ec.message());
    dumper.dir = a.dump_dir;
    dumper.index = std::fopen((std::filesystem::path(a.dump_dir) / "index.tsv").string().c_str(), "w");
    if (!dumper.index) return fail(a.dump_dir + "/index.tsv: cannot write");
    std::fprintf(dumper.index, "chain\tinstruction\tkind\tname\targ\tfile\tdtype\tshape\n");
    method->set_observer(&Dumper::observe, &dumper);
  }
  struct CloseIndex {
    Dumper* d;
    ~CloseIndex() { if (d->index) std::fclose(d->index); }
  } close_index{&dumper};

  double total_ms = 0, min_ms = 0;
  for (int r = 0; r < a.repeat; ++r) {
    // Planned input memory may be reused by intermediates during execute (as in the
    // official runtime), so every run sets the inputs again, outside the timing.
    if (r > 0) {
      bound.clear();
      s = util::set_inputs(*method, values, &bound);
      if (!s) return fail(s.message());
    }
    auto t0 = std::chrono::steady_clock::now();
    s = method->execute();
    auto t1 = std::chrono::steady_clock::now();
    if (!s) return fail(dumper.error.empty() ? s.message() : s.message() + ": " + dumper.error);
    method->set_observer(nullptr, nullptr);  // --dump covers the first run
    double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    total_ms += ms;
    if (r == 0 || ms < min_ms) min_ms = ms;
  }

  std::vector<util::HostValue> outputs(method->num_outputs());
  for (size_t k = 0; k < outputs.size(); ++k) {
    Status os = util::host_from_evalue(method->output(k), &outputs[k]);
    if (!os) return fail("output " + std::to_string(k) + ": " + os.message());
  }

  if (!a.save_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.save_dir, ec);
    if (ec) return fail(a.save_dir + ": cannot create directory: " + ec.message());
    for (size_t k = 0; k < outputs.size(); ++k) {
      const util::HostValue& o = outputs[k];
      util::HostTensor t;
      if (o.tag == Tag::Tensor) {
        t = o.tensor;
      } else if (o.tag == Tag::Int || o.tag == Tag::Double || o.tag == Tag::Bool) {
        // Scalars are saved as 0-d arrays (int64, float64, bool).
        t.dtype = o.tag == Tag::Int ? DType::Int64 : o.tag == Tag::Double ? DType::Double : DType::Bool;
        t.bytes.resize(dtype_size(t.dtype));
        if (o.tag == Tag::Int) std::memcpy(t.bytes.data(), &o.i, 8);
        else if (o.tag == Tag::Double) std::memcpy(t.bytes.data(), &o.d, 8);
        else t.bytes[0] = o.b ? 1 : 0;
      } else {
        std::fprintf(stderr, "pte-run: output %zu is a %s; not saved\n", k, tag_name(o.tag));
        continue;
      }
      std::string path = (std::filesystem::path(a.save_dir) / ("output_" + std::to_string(k) + ".npy")).string();
      Status ws = util::npy_write(path, t);
      if (!ws) return fail(ws.message());
    }
  }

  if (a.json) {
    std::string out = "{\"method\": " + json::quote(minfo->name) + ", \"outputs\": [";
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (k) out += ", ";
      append_json(outputs[k], &out);
    }
    out += "]";
    if (a.timing) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), ", \"timing\": {\"runs\": %d, \"mean_ms\": %.6g, \"min_ms\": %.6g}", a.repeat,
                    total_ms / a.repeat, min_ms);
      out += buf;
    }
    out += "}\n";
    std::fputs(out.c_str(), stdout);
  } else {
    for (size_t k = 0; k < outputs.size(); ++k)
      std::printf("output %zu: %s\n", k, format_text(outputs[k]).c_str());
    if (a.timing)
      std::printf("time: %d run%s, mean %.3f ms, min %.3f ms\n", a.repeat, a.repeat == 1 ? "" : "s", total_ms / a.repeat, min_ms);
  }
  return 0;
}

}  // namespace pte::cli
