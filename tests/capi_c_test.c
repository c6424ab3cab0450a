/* pte-run: the C API from C (compiled as C99): pte/pte.h is plain C, and the add fixture
 * runs end to end in caller memory; every function is called with NULL handles and
 * pointers. Called from tests/capi_test.cpp and tests/capi_bad_input_test.cpp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/pte.h"

int pte_capi_c_add(const char* path, char* why, size_t why_size);
int pte_capi_c_nulls(void);

#define FAIL_IF(cond, ...)                   \
  do {                                       \
    if (cond) {                              \
      snprintf(why, why_size, __VA_ARGS__);  \
      goto done;                             \
    }                                        \
  } while (0)

int pte_capi_c_add(const char* path, char* why, size_t why_size) {
  int rc = 1;
  pte_program* program = NULL;
  pte_method* method = NULL;
  void* memory = NULL;
  char* block;
  size_t need = 0, ni = 0, no = 0, i;
  pte_method_options mo;
  pte_value_info info;
  pte_tensor_view view;
  float x[6], y[6], out[6];
  pte_error_t e;

  e = pte_program_open_file(path, NULL, &program);
  FAIL_IF(e != PTE_OK, "open: %s: %s", pte_error_name(e), pte_last_error());
  e = pte_program_method_io(program, "forward", &ni, &no);
  FAIL_IF(e != PTE_OK || ni != 2 || no != 1, "method_io: %s (%zu inputs, %zu outputs)", pte_error_name(e), ni, no);
  e = pte_program_input_info(program, "forward", 0, &info);
  FAIL_IF(e != PTE_OK || info.kind != PTE_VALUE_TENSOR || info.dtype != PTE_DTYPE_FLOAT32 || info.rank != 2,
          "input_info: %s", pte_error_name(e));
  e = pte_method_memory_needed(program, "forward", NULL, &need);
  FAIL_IF(e != PTE_OK, "memory_needed: %s", pte_last_error());
  memory = malloc(need + 64);
  FAIL_IF(!memory, "malloc failed");
  block = (char*)memory + (64 - (size_t)((uintptr_t)memory % 64)) % 64; /* 64-byte aligned */
  pte_method_options_init(&mo);
  mo.memory = block;
  mo.memory_bytes = need;
  e = pte_method_load(program, "forward", &mo, &method);
  FAIL_IF(e != PTE_OK, "load: %s", pte_last_error());
  for (i = 0; i < 6; ++i) {
    x[i] = (float)i * 0.5f - 1.0f;
    y[i] = (float)(i * i);
  }
  e = pte_method_set_input(method, 0, PTE_DTYPE_FLOAT32, info.sizes, info.rank, x, sizeof(x));
  FAIL_IF(e != PTE_OK, "set_input 0: %s", pte_last_error());
  e = pte_method_set_input(method, 1, PTE_DTYPE_FLOAT32, info.sizes, info.rank, y, sizeof(y));
  FAIL_IF(e != PTE_OK, "set_input 1: %s", pte_last_error());
  e = pte_method_execute(method);
  FAIL_IF(e != PTE_OK, "execute: %s", pte_last_error());
  e = pte_method_output(method, 0, &view);
  FAIL_IF(e != PTE_OK || view.nbytes != sizeof(out) || view.rank != 2, "output: %s", pte_error_name(e));
  FAIL_IF((const char*)view.data < block || (const char*)view.data >= block + need,
          "the output does not lie in the caller's memory");
  e = pte_method_copy_output(method, 0, out, sizeof(out), NULL);
  FAIL_IF(e != PTE_OK, "copy_output: %s", pte_last_error());
  for (i = 0; i < 6; ++i) FAIL_IF(out[i] != x[i] + y[i], "out[%zu] = %g, expected %g", i, out[i], x[i] + y[i]);
  rc = 0;
done:
  pte_method_destroy(method);
  pte_program_destroy(program);
  free(memory);
  return rc;
}

/* Every function with NULL handles / pointers: each returns its code with a message. */
int pte_capi_c_nulls(void) {
  int bad = 0;
  size_t n = 0;
  pte_program* p = NULL;
  pte_method* m = NULL;
  pte_session* s = NULL;
  const char* name = NULL;
  pte_value_info vi;
  pte_tensor_view tv;
  pte_generation_stats st;
#define EXPECT(expr, code) bad += ((expr) != (code) || pte_last_error()[0] == '\0')
  EXPECT(pte_program_open_file(NULL, NULL, &p), PTE_ERR_NULL_POINTER);
  EXPECT(pte_program_open_memory(NULL, 1, NULL, &p), PTE_ERR_NULL_POINTER);
  EXPECT(pte_program_num_methods(NULL, &n), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_program_method_name(NULL, 0, &name), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_program_method_io(NULL, "forward", &n, &n), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_program_input_info(NULL, "forward", 0, &vi), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_program_output_info(NULL, "forward", 0, &vi), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_memory_needed(NULL, "forward", NULL, &n), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_load(NULL, "forward", NULL, &m), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_num_inputs(NULL, &n), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_num_outputs(NULL, &n), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_set_input(NULL, 0, PTE_DTYPE_FLOAT32, NULL, 0, NULL, 0), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_execute(NULL), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_output(NULL, 0, &tv), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_method_copy_output(NULL, 0, NULL, 0, NULL), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_session_create(NULL, NULL, &s), PTE_ERR_NULL_POINTER);
  EXPECT(pte_session_generate(NULL, "x", NULL, NULL, NULL, &st), PTE_ERR_NULL_HANDLE);
  EXPECT(pte_session_reset(NULL), PTE_ERR_NULL_HANDLE);
#undef EXPECT
  bad += strcmp(pte_error_name(PTE_ERR_MEMORY_TOO_SMALL), "PTE_ERR_MEMORY_TOO_SMALL") != 0;
  bad += pte_error_stage(PTE_ERR_INPUT_DTYPE) != PTE_ERR_INPUT;
  bad += pte_dtype_size(PTE_DTYPE_BFLOAT16) != 2;
  bad += strcmp(pte_dtype_name(PTE_DTYPE_FLOAT32), "float32") != 0;
  pte_program_destroy(NULL);
  pte_method_destroy(NULL);
  pte_session_destroy(NULL);
  return bad;
}
