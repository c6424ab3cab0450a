// pte-bench: in-process timing of pte-run for the benchmark driver (bench/run_bench.py).
// Prints one JSON object on stdout; errors are {"ok": false, "error": "..."} (exit 2).
//
//   pte-bench forward MODEL.pte [--method NAME] [--input SPEC]... [--warmup N] [--warmup-ms T] [--reps N]
//             [--threads N] [--profile]
//       load time (open + load_method: the median of 5 loads after the process's first,
//       and that first one as load_cold_ms), `reps` timed execute() calls, peak RSS.
//       Without --input, inputs are made from the signature (floats 0.5, ints 1, at the bound).
//   pte-bench llm MODEL.pte [--method NAME] [--prefill S] [--positions P,P,...] [--steps K]
//             [--reps N] [--threads N] [--fixed-threads] [--profile]
//       --fixed-threads: keep the worker threads even while the machine is oversubscribed
//       --copies: run every copy instruction (MethodOptions::copies_as_views off)
//       (MethodOptions::adaptive_threads off).
//       a decoder with a KV cache: forward(tokens i64[1,S], positions i64[S] or [1]).
//       prefill: `reps` forwards of S tokens at position 0; ttft = prefill + argmax.
//       decode: for each context position P (ascending), the cache is filled up to P
//       (untimed chunks) and K single-token forwards at P, P+1, ... are timed.
//       Only the last position's logits are computed (as the text runner does) unless
//       --all-logits. --profile adds time per operator over the decode steps at the first position
//       and over the last prefill repetition (then not timed separately).
//   pte-bench generate MODEL.pte --prompt TEXT [--tokenizer PATH] [--max-new-tokens N]
//       the text runner end to end (greedy, EOS ignored): load, prefill, TTFT, decode.
//   pte-bench stream [--mb N] [--reps N]
//       STREAM-style copy bandwidth (GB/s, counting read + write bytes) over 2 x N MiB,
//       also scale (y = s*x) and a read-only sum (AVX2) over N MiB, on one thread; and the
//       read-only sum on all physical cores, with one and with eight streams per thread.
#include <cpuinfo.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "llm/runner.h"
#include "util/proc_stats.h"
#include "pte/program.h"
#include "util/host_tensor.h"
#include "util/input_spec.h"

namespace {

using pte::DType;
using pte::Status;

using pte::util::now_ms;
using pte::util::peak_rss_kb;

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof(b), "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o;
}

std::string json_list(const std::vector<double>& v) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    char b[32];
    std::snprintf(b, sizeof(b), "%s%.4f", i ? ", " : "", v[i]);
    o += b;
  }
  return o + "]";
}

int fail(const std::string& msg) {
  std::printf("{\"ok\": false, \"error\": \"%s\"}\n", json_escape(msg).c_str());
  return 2;
}

struct Args {
  std::string mode, model, method = "forward";
  std::vector<std::string> inputs;
  int warmup = 2, reps = 10, threads = 0, steps = 8, prefill = 128;
  double warmup_ms = 0;  // forward: warm-up calls go on until this much time has passed too
  std::vector<int64_t> positions;
  bool profile = false;
  bool all_logits = false;
  bool fixed_threads = false;  // --fixed-threads: MethodOptions::adaptive_threads off
  bool copy_views = true;      // --copies: MethodOptions::copies_as_views off (A/B runs)
  int mb = 256;
  std::string prompt, tokenizer;
  int max_new_tokens = 64;
};

bool parse_args(int argc, char** argv, Args* a, std::string* err) {
  if (argc < 2) {
    *err = "usage: pte-bench forward|llm|stream [MODEL.pte] [options] (see bench/README.md)";
    return false;
  }
  a->mode = argv[1];
  int i = 2;
  if (a->mode != "stream") {
    if (argc < 3) {
      *err = "pte-bench " + a->mode + ": missing MODEL.pte";
      return false;
    }
    a->model = argv[2];
    i = 3;
  }
  for (; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&](std::string* v) {
      if (i + 1 >= argc) return false;
      *v = argv[++i];
      return true;
    };
    std::string v;
    if (k == "--profile") {
      a->profile = true;
      continue;
    }
    if (k == "--all-logits") {
      a->all_logits = true;
      continue;
    }
    if (k == "--copies") {
      a->copy_views = false;
      continue;
    }
    if (k == "--fixed-threads") {
      a->fixed_threads = true;
      continue;
    }
    if (!val(&v)) {
      *err = "option " + k + " needs a value";
      return false;
    }
    if (k == "--method") a->method = v;
    else if (k == "--input") a->inputs.push_back(v);
    else if (k == "--warmup") a->warmup = std::atoi(v.c_str());
    else if (k == "--warmup-ms") a->warmup_ms = std::atof(v.c_str());
    else if (k == "--reps") a->reps = std::max(a->mode == "llm" ? 0 : 1, std::atoi(v.c_str()));
    else if (k == "--threads") a->threads = std::atoi(v.c_str());
    else if (k == "--steps") a->steps = std::max(1, std::atoi(v.c_str()));
    else if (k == "--prefill") a->prefill = std::max(1, std::atoi(v.c_str()));
    else if (k == "--mb") a->mb = std::max(1, std::atoi(v.c_str()));
    else if (k == "--prompt") a->prompt = v;
    else if (k == "--tokenizer") a->tokenizer = v;
    else if (k == "--max-new-tokens") a->max_new_tokens = std::atoi(v.c_str());
    else if (k == "--positions") {
      a->positions.clear();
      for (const char* p = v.c_str(); *p;) {
        char* end;
        long long x = std::strtoll(p, &end, 10);
        if (end == p) {
          *err = "--positions: expected comma-separated integers";
          return false;
        }
        a->positions.push_back(x);
        p = *end == ',' ? end + 1 : end;
      }
      std::sort(a->positions.begin(), a->positions.end());
    } else {
      *err = "unknown option " + k;
      return false;
    }
  }
  return true;
}

std::string profile_json(const pte::Method& m) {
  auto prof = m.profile();
  std::sort(prof.begin(), prof.end(), [](const pte::OpTiming& x, const pte::OpTiming& y) { return x.total_ms > y.total_ms; });
  std::string o = "[";
  for (size_t i = 0; i < prof.size(); ++i) {
    char b[64];
    o += i ? ", " : "";
    o += "{\"op\": \"" + json_escape(prof[i].name) + "\", ";
    std::snprintf(b, sizeof(b), "\"ms\": %.4f, \"calls\": %llu}", prof[i].total_ms,
                  static_cast<unsigned long long>(prof[i].calls));
    o += b;
  }
  return o + "]";
}

// Inputs from the signature: floats 0.5, integers 1, bools true, at the upper bound.
Status synth_inputs(const pte::MethodInfo& info, std::vector<pte::util::HostValue>* out) {
  out->clear();
  for (size_t k = 0; k < info.inputs.size(); ++k) {
    const pte::ValueInfo& v = info.inputs[k];
    pte::util::HostValue h;
    h.tag = v.tag;
    if (v.tag == pte::Tag::Tensor) {
      h.tensor.dtype = v.tensor.dtype;
      h.tensor.shape = v.tensor.sizes;
      size_t es = pte::dtype_size(v.tensor.dtype);
      h.tensor.bytes.assign(static_cast<size_t>(h.tensor.numel()) * es, 0);
      for (int64_t i = 0; i < h.tensor.numel(); ++i) {
        uint8_t* p = h.tensor.bytes.data() + i * es;
        switch (v.tensor.dtype) {
          case DType::Float: { float f = 0.5f; std::memcpy(p, &f, 4); break; }
          case DType::Double: { double d = 0.5; std::memcpy(p, &d, 8); break; }
          case DType::Int64: { int64_t x = 1; std::memcpy(p, &x, 8); break; }
          case DType::Int32: { int32_t x = 1; std::memcpy(p, &x, 4); break; }
          default: p[0] = 1; break;
        }
      }
    } else if (v.tag == pte::Tag::Int) {
      h.i = v.int_value;
    } else if (v.tag == pte::Tag::Double) {
      h.d = v.double_value;
    } else if (v.tag == pte::Tag::Bool) {
      h.b = v.bool_value;
    } else {
      return Status::error("input " + std::to_string(k) + ": cannot make a value of this kind");
    }
    out->push_back(std::move(h));
  }
  return Status::ok();
}

Status load(const Args& a, std::unique_ptr<pte::Program>* prog, std::unique_ptr<pte::Method>* m, double* load_ms) {
  double t0 = now_ms();
  PTE_TRY(pte::Program::open_file(a.model, {}, prog));
  if (std::getenv("PTE_BENCH_VERBOSE")) std::fprintf(stderr, "open_file: %.3f ms\n", now_ms() - t0);
  pte::Program::MethodOptions mo;
  mo.num_threads = a.threads;
  mo.adaptive_threads = !a.fixed_threads;
  mo.copies_as_views = a.copy_views;
  mo.last_row_of_output_only = a.mode == "llm" && !a.all_logits;  // as the text runner
  PTE_TRY((*prog)->load_method(a.method, mo, m));
  *load_ms = now_ms() - t0;
  return Status::ok();
}

int cmd_forward(const Args& a) {
  std::unique_ptr<pte::Program> prog;
  std::unique_ptr<pte::Method> m;
  double load_cold_ms = 0;
  Status s;
  // load_ms: the median of 5 more loads in this process, as warm as the ExecuTorch worker
  // that serves the small cases (its runtime and libraries initialised by earlier jobs);
  // load_cold_ms: the first load of the process (code paged in, cpuinfo, thread pool).
  // Each is released before the next and the program that runs is loaded last, so the
  // peak RSS is one loaded program's (its mapped weights are populated at load).
  {
    std::unique_ptr<pte::Program> p0;
    std::unique_ptr<pte::Method> m0;
    if (!(s = load(a, &p0, &m0, &load_cold_ms))) return fail(s.message());
  }
  std::vector<double> warm;
  for (int r = 0; r < 5; ++r) {
    std::unique_ptr<pte::Program> p2;
    std::unique_ptr<pte::Method> m2;
    double ms = 0;
    if (!(s = load(a, &p2, &m2, &ms))) return fail(s.message());
    warm.push_back(ms);
  }
  double last_ms = 0;
  if (!(s = load(a, &prog, &m, &last_ms))) return fail(s.message());
  std::sort(warm.begin(), warm.end());
  const double load_ms = warm[warm.size() / 2];
  std::vector<pte::util::HostValue> values(a.inputs.size());
  for (size_t k = 0; k < a.inputs.size(); ++k) {
    s = pte::util::parse_input_spec(a.inputs[k], &values[k]);
    if (!s) return fail("input " + std::to_string(k) + ": " + s.message());
  }
  if (a.inputs.empty()) {
    s = synth_inputs(m->info(), &values);
    if (!s) return fail(s.message());
  }
  // Inputs are set before every execute() (a planned input's arena bytes may be reused
  // once it has been read), as the ExecuTorch bindings copy them on every call.
  std::vector<pte::util::BoundInput> bound;
  s = pte::util::set_inputs(*m, values, &bound);
  if (!s) return fail(s.message());
  auto execute = [&]() -> Status {
    for (size_t k = 0; k < bound.size(); ++k) {
      Status si = bound[k].is_tensor ? m->set_input(k, bound[k].tensor) : m->set_input(k, bound[k].scalar);
      if (!si) return si;
    }
    return m->execute();
  };
  double first_ms = 0;
  const double warm_from = now_ms();
  for (int r = 0; r < a.warmup || (a.warmup_ms > 0 && now_ms() - warm_from < a.warmup_ms); ++r) {
    double t0 = now_ms();
    s = execute();
    if (r == 0) first_ms = now_ms() - t0;
    if (!s) return fail(s.message());
  }
  std::vector<double> times;
  for (int r = 0; r < a.reps; ++r) {
    double t0 = now_ms();
    s = execute();
    times.push_back(now_ms() - t0);
    if (!s) return fail(s.message());
  }
  std::string prof;
  if (a.profile) {
    m->set_profiling(true);
    for (int r = 0; r < a.reps; ++r)
      if (!(s = execute())) return fail(s.message());
    prof = ", \"profile\": " + profile_json(*m) + ", \"profile_reps\": " + std::to_string(a.reps);
  }
  std::printf("{\"ok\": true, \"runtime\": \"pte-run\", \"load_ms\": %.4f, \"load_cold_ms\": %.4f, \"first_execute_ms\": %.4f, "
              "\"execute_ms\": %s, \"peak_rss_kb\": %ld%s}\n",
              load_ms, load_cold_ms, first_ms, json_list(times).c_str(), peak_rss_kb(), prof.c_str());
  return 0;
}

// A decoder method driven directly: tokens i64[1,S] and positions i64[S] (HF) or i64[1].
struct Decoder {
  pte::Method* m = nullptr;
  bool positions_as_range = true;
  bool has_positions = true;
  int64_t max_chunk = 1, vocab = 0;
  std::vector<int64_t> tok, pos;

  Status init(pte::Method* method) {
    m = method;
    const pte::MethodInfo& info = m->info();
    if (info.inputs.size() != 2 || info.inputs[0].tag != pte::Tag::Tensor || info.inputs[1].tag != pte::Tag::Tensor)
      return Status::error("method " + info.name + ": expected forward(tokens i64[1,S], positions i64[S] or [1])");
    const pte::TensorInfo& t0 = info.inputs[0].tensor;
    const pte::TensorInfo& t1 = info.inputs[1].tensor;
    if (t0.sizes.size() != 2 || t1.sizes.size() != 1) return Status::error("unexpected input ranks for a decoder");
    max_chunk = t0.dynamism != pte::Dynamism::Static ? t0.sizes[1] : 1;
    positions_as_range = t1.sizes[0] > 1 || t1.dynamism != pte::Dynamism::Static;
    const pte::ValueInfo& o = info.outputs[0];
    vocab = o.tensor.sizes.empty() ? 0 : o.tensor.sizes.back();
    tok.assign(static_cast<size_t>(std::max<int64_t>(max_chunk, 1)), 0);
    pos.assign(tok.size(), 0);
    return Status::ok();
  }

  // Tokens are pseudo-random ids below the vocabulary size.
  Status forward(int64_t at, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      tok[i] = (1009 * (at + i) + 17) % std::max<int64_t>(vocab, 1);
      pos[i] = at + i;
    }
    pte::Tensor t;
    t.dtype = DType::Int64;
    t.dim = 2;
    t.sizes[0] = 1;
    t.sizes[1] = n;
    t.dim_order[0] = 0;
    t.dim_order[1] = 1;
    pte::compute_strides(t);
    t.data = tok.data();
    t.capacity = tok.size() * 8;
    PTE_TRY(m->set_input(0, t));
    pte::Tensor p;
    p.dtype = DType::Int64;
    p.dim = 1;
    p.sizes[0] = positions_as_range ? n : 1;
    pte::compute_strides(p);
    p.data = pos.data();
    p.capacity = pos.size() * 8;
    PTE_TRY(m->set_input(1, p));
    return m->execute();
  }

  int64_t argmax() const {
    const pte::EValue& o = m->output(0);
    if (!o.is_tensor() || o.t->dtype != DType::Float) return -1;
    const float* l = o.t->ptr<float>() + (o.t->numel() - vocab);
    return std::max_element(l, l + vocab) - l;
  }
};

int cmd_llm(const Args& a) {
  std::unique_ptr<pte::Program> prog;
  std::unique_ptr<pte::Method> m;
  double load_ms = 0;
  Status s = load(a, &prog, &m, &load_ms);
  if (!s) return fail(s.message());
  Decoder d;
  if (!(s = d.init(m.get()))) return fail(s.message());
  const int64_t S = std::min<int64_t>(a.prefill, d.max_chunk);
  std::string out = "{\"ok\": true, \"runtime\": \"pte-run\"";
  char b[256];
  std::snprintf(b, sizeof(b), ", \"load_ms\": %.4f, \"max_chunk\": %lld", load_ms, static_cast<long long>(d.max_chunk));
  out += b;
  // Prefill at position 0 (chunk S); the first call is also the time to first token.
  std::vector<double> prefill, ttft;
  std::string prefill_prof;
  for (int r = 0; r < a.reps + 1; ++r) {
    const bool prof_this = a.profile && r == a.reps;  // the last repetition
    if (prof_this) m->set_profiling(true);
    double t0 = now_ms();
    s = d.forward(0, S);
    if (!s) return fail(s.message());
    volatile int64_t tok = d.argmax();
    (void)tok;
    double ms = now_ms() - t0;
    if (r > 0 || a.reps == 0) prefill.push_back(ms);  // the first is a warm-up unless it is the only one
    ttft.push_back(ms);
    if (prof_this) {
      prefill_prof = ", \"prefill_profile\": " + profile_json(*m);
      m->set_profiling(false);
    }
  }
  std::snprintf(b, sizeof(b), ", \"prefill_tokens\": %lld", static_cast<long long>(S));
  out += b;
  out += ", \"prefill_ms\": " + json_list(prefill) + ", \"ttft_cold_ms\": " + json_list({ttft[0]});
  // Decode at each position (ascending); the cache is filled up to it first.
  out += ", \"decode\": [";
  int64_t at = 0;
  std::string prof;
  for (size_t pi = 0; pi < a.positions.size(); ++pi) {
    int64_t P = a.positions[pi];
    while (at < P) {
      int64_t n = std::min<int64_t>(d.max_chunk, P - at);
      if (!(s = d.forward(at, n))) return fail(s.message());
      at += n;
    }
    std::vector<double> steps;
    if (pi == 0 && a.profile) m->set_profiling(true);
    for (int k = 0; k < a.steps; ++k) {
      double t0 = now_ms();
      s = d.forward(at, 1);
      volatile int64_t tok = d.argmax();
      (void)tok;
      steps.push_back(now_ms() - t0);
      if (!s) return fail(s.message() + " (decode at position " + std::to_string(at) + ")");
      ++at;
    }
    if (pi == 0 && a.profile) {
      prof = ", \"profile\": " + profile_json(*m) + ", \"profile_steps\": " + std::to_string(a.steps);
      m->set_profiling(false);
    }
    std::snprintf(b, sizeof(b), "%s{\"pos\": %lld, \"ms\": ", pi ? ", " : "", static_cast<long long>(P));
    out += b + json_list(steps) + "}";
  }
  out += "]" + prof + prefill_prof;
  std::snprintf(b, sizeof(b), ", \"peak_rss_kb\": %ld}", peak_rss_kb());
  out += b;
  std::printf("%s\n", out.c_str());
  return 0;
}

int cmd_generate(const Args& a) {
  pte::RunnerOptions ro;
  ro.model_path = a.model;
  ro.tokenizer_path = a.tokenizer;
  ro.method = a.method;
  ro.num_threads = a.threads;
  std::unique_ptr<pte::TextRunner> r;
  Status s = pte::TextRunner::create(ro, &r);
  if (!s) return fail(s.message());
  pte::GenerationConfig gc;
  gc.max_new_tokens = a.max_new_tokens;
  gc.ignore_eos = true;
  pte::GenerationStats st;
  std::string text;
  s = r->generate(a.prompt, gc, [&](const std::string& t) { text += t; }, &st);
  if (!s) return fail(s.message());
  std::printf("{\"ok\": true, \"runtime\": \"pte-run\", \"load_ms\": %.4f, \"prefill_ms\": %.4f, \"decode_ms\": %.4f, "
              "\"ttft_ms\": %.4f, \"prompt_tokens\": %d, \"generated_tokens\": %d, \"peak_rss_kb\": %ld, \"text\": \"%s\"}\n",
              st.load_ms, st.prefill_ms, st.decode_ms, st.ttft_ms, st.prompt_tokens, st.generated_tokens, peak_rss_kb(),
              json_escape(text).c_str());
  return 0;
}

#if defined(__x86_64__)
volatile float sink_sum = 0;

// Sum of x[i0, i1) read as `streams` interleaved sequential streams (one 64-byte line of
// each per round, prefetched 256 bytes ahead): the way decode's GEMVs read weights. On the
// 2-core Xeon VM two threads read ~20 GB/s with one stream each and ~27 with eight.
__attribute__((target("avx2"))) float read_streams(const float* x, size_t i0, size_t i1, int streams) {
  const size_t per = (i1 - i0) / static_cast<size_t>(streams) / 16 * 16;
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0;
  for (size_t i = 0; i < per; i += 16)
    for (int s = 0; s < streams; ++s) {
      const float* p = x + i0 + static_cast<size_t>(s) * per + i;
      _mm_prefetch(reinterpret_cast<const char*>(p + 64), _MM_HINT_T0);
      acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(p));
      acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(p + 8));
    }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(acc0, acc1));
  return lanes[0];
}

// GB/s of reading x[0, n) split over `threads` threads (the caller is one of them).
double read_all_cores(const float* x, size_t n, int threads, int streams) {
  std::vector<std::thread> ts;
  std::vector<float> sums(static_cast<size_t>(threads));
  const double t0 = now_ms();
  for (int t = 1; t < threads; ++t)
    ts.emplace_back([&, t] { sums[t] = read_streams(x, n / threads * t, n / threads * (t + 1), streams); });
  sums[0] = read_streams(x, 0, n / threads, streams);
  for (auto& th : ts) th.join();
  const double t1 = now_ms();
  for (float v : sums) sink_sum += v;
  return 1.0 * n * sizeof(float) / ((t1 - t0) * 1e6);
}

__attribute__((target("avx2"))) int cmd_stream(const Args& a) {
  const size_t n = static_cast<size_t>(a.mb) << 18;  // floats per array (4 bytes each)
  std::unique_ptr<float[]> x(new float[n]), y(new float[n]);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i & 1023), y[i] = 0.0f;
  std::vector<double> copy, scale, read, read_mt1, read_mt8;
  const int cores = cpuinfo_initialize() ? std::max(1, static_cast<int>(cpuinfo_get_cores_count())) : 1;
  for (int r = 0; r < a.reps + 1; ++r) {
    double t0 = now_ms();
    std::memcpy(y.get(), x.get(), n * sizeof(float));
    double t1 = now_ms();
    float* __restrict yp = y.get();
    const float* __restrict xp = x.get();
    for (size_t i = 0; i < n; ++i) yp[i] = 1.0001f * xp[i];
    double t2 = now_ms();
    __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (size_t i = 0; i + 32 <= n; i += 32) {
      acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(xp + i));
      acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(xp + i + 8));
      acc2 = _mm256_add_ps(acc2, _mm256_loadu_ps(xp + i + 16));
      acc3 = _mm256_add_ps(acc3, _mm256_loadu_ps(xp + i + 24));
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, _mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
    double t3 = now_ms();
    sink_sum += lanes[0];
    const double mt1 = read_all_cores(xp, n, cores, 1), mt8 = read_all_cores(xp, n, cores, 8);
    if (r == 0) continue;  // first touch
    read_mt1.push_back(mt1);
    read_mt8.push_back(mt8);
    read.push_back(1.0 * n * sizeof(float) / ((t3 - t2) * 1e6));
    copy.push_back(2.0 * n * sizeof(float) / ((t1 - t0) * 1e6));
    scale.push_back(2.0 * n * sizeof(float) / ((t2 - t1) * 1e6));
  }
  volatile float sink = y[n / 2];
  (void)sink;
  std::printf("{\"ok\": true, \"mib_per_array\": %d, \"copy_gbs\": %s, \"scale_gbs\": %s, \"read_gbs\": %s, "
              "\"threads\": %d, \"read_mt1_gbs\": %s, \"read_mt8_gbs\": %s}\n",
              a.mb, json_list(copy).c_str(), json_list(scale).c_str(), json_list(read).c_str(), cores,
              json_list(read_mt1).c_str(), json_list(read_mt8).c_str());
  return 0;
}
#else
int cmd_stream(const Args&) { return fail("stream: the bandwidth probe is x86-64 only (AVX2)"); }
#endif

}  // namespace

int main(int argc, char** argv) {
  Args a;
  std::string err;
  if (!parse_args(argc, argv, &a, &err)) return fail(err);
  if (a.mode == "forward") return cmd_forward(a);
  if (a.mode == "llm") return cmd_llm(a);
  if (a.mode == "generate") return cmd_generate(a);
  if (a.mode == "stream") return cmd_stream(a);
  return fail("unknown mode '" + a.mode + "' (forward, llm, generate, stream)");
}
