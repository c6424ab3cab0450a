/* Generates text with a decoder .pte through pte-run's C API, streaming each token as
 * the callback receives it.
 *
 *   generate MODEL.pte "prompt" [MAX_NEW_TOKENS]
 *
 * The tokenizer is looked for next to the model (tokenizer.json, tokenizer.bin, ...).
 * Greedy; statistics go to stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "pte/pte.h"

static int on_token(const char* text, int32_t token_id, void* user) {
  (void)token_id;
  (void)user;
  fputs(text, stdout);
  fflush(stdout);
  return 0; /* non-zero stops generation */
}

int main(int argc, char** argv) {
  pte_session* session = NULL;
  pte_generation_params params;
  pte_generation_stats stats;
  pte_error_t e;
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL.pte \"prompt\" [MAX_NEW_TOKENS]\n", argv[0]);
    return 2;
  }
  if ((e = pte_session_create(argv[1], NULL, &session)) != PTE_OK) {
    fprintf(stderr, "generate: %s (%s)\n", pte_last_error(), pte_error_name(e));
    return 1;
  }
  pte_generation_params_init(&params);
  if (argc > 3) params.max_new_tokens = atoi(argv[3]);
  e = pte_session_generate(session, argv[2], &params, on_token, NULL, &stats);
  printf("\n");
  if (e != PTE_OK) {
    fprintf(stderr, "generate: %s (%s)\n", pte_last_error(), pte_error_name(e));
    pte_session_destroy(session);
    return 1;
  }
  fprintf(stderr, "%d prompt tokens, %d generated; prefill %.1f ms, decode %.1f ms\n", stats.prompt_tokens,
          stats.generated_tokens, stats.prefill_ms, stats.decode_ms);
  pte_session_destroy(session);
  return 0;
}
