// C API: a text-generation session over a decoder program (llm/runner.h) with a token
// callback (pte/pte.h). Separate from the core files so a build without the LLM
// libraries can leave it out.
#include <string>

#include "capi/capi_internal.h"
#include "llm/runner.h"

using pte::capi::failf;
using pte::capi::guard;
using pte::capi::report;

struct pte_session {
  std::unique_ptr<pte::TextRunner> runner;
};

namespace {

pte_stop_reason stop_reason(const std::string& r) {
  if (r == "eos") return PTE_STOP_EOS;
  if (r == "context_full") return PTE_STOP_CONTEXT_FULL;
  if (r == "cancelled") return PTE_STOP_CALLBACK;
  return PTE_STOP_MAX_TOKENS;
}

}  // namespace

extern "C" {

void pte_session_options_init(pte_session_options* options) {
  if (options) *options = pte_session_options{};
}

void pte_generation_params_init(pte_generation_params* params) {
  if (!params) return;
  *params = pte_generation_params{};
  params->max_new_tokens = 128;
  params->top_p = 1.f;
}

pte_error_t pte_session_create(const char* model_path, const pte_session_options* options, pte_session** out) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(out, PTE_ERR_NULL_POINTER);
    *out = nullptr;
    PTE_C_NOT_NULL(model_path, PTE_ERR_NULL_POINTER);
    pte::RunnerOptions ro;
    ro.model_path = model_path;
    if (options) {
      if (options->tokenizer_path) ro.tokenizer_path = options->tokenizer_path;
      if (options->num_threads < 0) return failf(PTE_ERR_INVALID_ARGUMENT, "%s: num_threads is negative", fn);
      ro.num_threads = options->num_threads;
    }
    std::unique_ptr<pte_session> h(new pte_session);
    pte::Status s = pte::TextRunner::create(ro, &h->runner);
    if (!s) return report(s.with_default_code(pte::ErrorCode::Generation));
    *out = h.release();
    return PTE_OK;
  });
}

void pte_session_destroy(pte_session* session) { delete session; }

pte_error_t pte_session_generate(pte_session* session, const char* prompt, const pte_generation_params* params,
                                 pte_token_callback callback, void* user, pte_generation_stats* stats) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(session, PTE_ERR_NULL_HANDLE);
    PTE_C_NOT_NULL(prompt, PTE_ERR_NULL_POINTER);
    pte_generation_params p;
    pte_generation_params_init(&p);
    if (params) p = *params;
    if (!(p.temperature >= 0.f) || p.top_k < 0 || !(p.top_p > 0.f && p.top_p <= 1.f))
      return failf(PTE_ERR_INVALID_ARGUMENT, "%s: temperature must be >= 0, top_k >= 0 and top_p in (0, 1]", fn);
    pte::GenerationConfig gc;
    gc.max_new_tokens = p.max_new_tokens;
    gc.sampling.temperature = p.temperature;
    gc.sampling.top_k = p.top_k;
    gc.sampling.top_p = p.top_p;
    gc.sampling.seed = p.seed;
    gc.ignore_eos = p.ignore_eos != 0;
    if (callback)
      gc.on_token = [&](int32_t id, const std::string& piece) { return callback(piece.c_str(), id, user) != 0; };
    pte::GenerationStats st;
    pte::Status s = session->runner->generate(prompt, gc, [](const std::string&) {}, &st);
    if (!s) return report(s.with_default_code(pte::ErrorCode::Generation));
    if (stats) {
      *stats = pte_generation_stats{};
      stats->prompt_tokens = st.prompt_tokens;
      stats->generated_tokens = st.generated_tokens;
      stats->prefill_ms = st.prefill_ms;
      stats->decode_ms = st.decode_ms;
      stats->stop_reason = stop_reason(st.stop_reason);
    }
    return PTE_OK;
  });
}

pte_error_t pte_session_reset(pte_session* session) {
  return guard(__func__, [&](const char* fn) -> pte_error_t {
    PTE_C_NOT_NULL(session, PTE_ERR_NULL_HANDLE);
    session->runner->reset();
    return PTE_OK;
  });
}

}  // extern "C"
