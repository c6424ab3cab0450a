/* Runs the "forward" method of a .pte program through pte-run's C API: the method's
 * planned memory is one block the program allocates itself (sized by
 * pte_method_memory_needed), so the library allocates nothing after load.
 *
 *   run_program MODEL.pte [VALUE...]
 *
 * The input tensors are filled in order with the VALUEs given (the rest with zeros),
 * converted to each input's dtype; every output is printed (dtype, shape, values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/pte.h"

/* Writes `v` as element `i` of a `dtype` buffer; 0 for a dtype this example does not fill. */
static int put(void* data, pte_dtype dtype, size_t i, double v) {
  switch (dtype) {
    case PTE_DTYPE_FLOAT32: ((float*)data)[i] = (float)v; return 1;
    case PTE_DTYPE_FLOAT64: ((double*)data)[i] = v; return 1;
    case PTE_DTYPE_INT64: ((int64_t*)data)[i] = (int64_t)v; return 1;
    case PTE_DTYPE_INT32: ((int32_t*)data)[i] = (int32_t)v; return 1;
    case PTE_DTYPE_INT16: ((int16_t*)data)[i] = (int16_t)v; return 1;
    case PTE_DTYPE_INT8: ((int8_t*)data)[i] = (int8_t)v; return 1;
    case PTE_DTYPE_UINT8: ((uint8_t*)data)[i] = (uint8_t)v; return 1;
    case PTE_DTYPE_BOOL: ((uint8_t*)data)[i] = v != 0; return 1;
    default: return 0;
  }
}

static void print_value(const void* data, pte_dtype dtype, size_t i) {
  switch (dtype) {
    case PTE_DTYPE_FLOAT32: printf("%g", ((const float*)data)[i]); break;
    case PTE_DTYPE_FLOAT64: printf("%g", ((const double*)data)[i]); break;
    case PTE_DTYPE_INT64: printf("%lld", (long long)((const int64_t*)data)[i]); break;
    case PTE_DTYPE_INT32: printf("%d", (int)((const int32_t*)data)[i]); break;
    case PTE_DTYPE_INT16: printf("%d", (int)((const int16_t*)data)[i]); break;
    case PTE_DTYPE_INT8: printf("%d", (int)((const int8_t*)data)[i]); break;
    case PTE_DTYPE_UINT8: printf("%u", (unsigned)((const uint8_t*)data)[i]); break;
    case PTE_DTYPE_BOOL: printf("%s", ((const uint8_t*)data)[i] ? "true" : "false"); break;
    default: printf("?"); break;
  }
}

static int fail(const char* what, pte_error_t e) {
  fprintf(stderr, "run_program: %s: %s (%s)\n", what, pte_last_error(), pte_error_name(e));
  return 1;
}

int main(int argc, char** argv) {
  pte_program* program = NULL;
  pte_method* method = NULL;
  pte_method_options options;
  void* block = NULL;
  void** inputs = NULL;
  size_t need = 0, num_inputs = 0, num_outputs = 0, k, i;
  int next_value = 2, rc = 1;
  pte_error_t e;

  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.pte [VALUE...]\n", argv[0]);
    return 2;
  }
  if ((e = pte_program_open_file(argv[1], NULL, &program)) != PTE_OK) return fail("open", e);
  if ((e = pte_program_method_io(program, "forward", &num_inputs, &num_outputs)) != PTE_OK) {
    rc = fail("forward", e);
    goto done;
  }
  /* the planned buffers and kernel scratch in one block of ours (64-byte aligned) */
  if ((e = pte_method_memory_needed(program, "forward", NULL, &need)) != PTE_OK) {
    rc = fail("memory_needed", e);
    goto done;
  }
  block = malloc(need + 64);
  if (!block) {
    fprintf(stderr, "run_program: cannot allocate %zu bytes\n", need);
    goto done;
  }
  pte_method_options_init(&options);
  options.memory = (char*)block + (64 - (size_t)((uintptr_t)block % 64)) % 64;
  options.memory_bytes = need;
  if ((e = pte_method_load(program, "forward", &options, &method)) != PTE_OK) {
    rc = fail("load", e);
    goto done;
  }
  printf("forward: %zu inputs, %zu outputs, %zu bytes of planned memory\n", num_inputs, num_outputs, need);

  inputs = calloc(num_inputs ? num_inputs : 1, sizeof(void*));
  if (!inputs) goto done;
  for (k = 0; k < num_inputs; ++k) {
    pte_value_info info;
    size_t numel = 1, size;
    if ((e = pte_program_input_info(program, "forward", k, &info)) != PTE_OK) {
      rc = fail("input_info", e);
      goto done;
    }
    if (info.kind != PTE_VALUE_TENSOR) {
      fprintf(stderr, "run_program: input %zu is not a tensor (this example sets tensors only)\n", k);
      goto done;
    }
    for (i = 0; i < info.rank; ++i) numel *= (size_t)info.sizes[i];
    size = numel * pte_dtype_size(info.dtype);
    inputs[k] = calloc(size ? size : 1, 1);
    if (!inputs[k]) goto done;
    for (i = 0; i < numel && next_value < argc; ++i)
      if (!put(inputs[k], info.dtype, i, atof(argv[next_value++]))) {
        fprintf(stderr, "run_program: input %zu is %s, which this example does not fill\n", k, pte_dtype_name(info.dtype));
        goto done;
      }
    /* the declared sizes (upper bounds of a dynamic shape) */
    if ((e = pte_method_set_input(method, k, info.dtype, info.sizes, info.rank, inputs[k], size)) != PTE_OK) {
      rc = fail("set_input", e);
      goto done;
    }
  }
  if ((e = pte_method_execute(method)) != PTE_OK) {
    rc = fail("execute", e);
    goto done;
  }
  for (k = 0; k < num_outputs; ++k) {
    pte_tensor_view out;
    size_t numel = 1;
    if ((e = pte_method_output(method, k, &out)) != PTE_OK) {
      rc = fail("output", e);
      goto done;
    }
    printf("output %zu: %s[", k, pte_dtype_name(out.dtype));
    for (i = 0; i < out.rank; ++i) {
      printf("%s%lld", i ? ", " : "", (long long)out.sizes[i]);
      numel *= (size_t)out.sizes[i];
    }
    printf("] =");
    for (i = 0; i < numel && i < 16; ++i) {
      printf(" ");
      print_value(out.data, out.dtype, i);
    }
    printf("%s\n", numel > 16 ? " ..." : "");
  }
  rc = 0;
done:
  pte_method_destroy(method);
  pte_program_destroy(program);
  if (inputs)
    for (k = 0; k < num_inputs; ++k) free(inputs[k]);
  free(inputs);
  free(block);
  return rc;
}
