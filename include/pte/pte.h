/* pte-run C API: open an ExecuTorch .pte program (from a file or from memory), load a
 * method into caller-provided memory, set inputs, execute, read outputs; and a text
 * generation session with a token callback. C99; every function returns a pte_error_t
 * (0 is success) and never lets a C++ exception out.
 *
 *   pte_program* prog = NULL;
 *   if (pte_program_open_file("model.pte", NULL, &prog) != PTE_OK)
 *     fprintf(stderr, "%s\n", pte_last_error());
 *
 * Errors: the code says what failed (grouped by stage, the numbers of pte::ErrorCode);
 * pte_last_error() gives the message of the last call that failed on the calling thread
 * (naming file, method, instruction, operator), valid until that thread's next failing call.
 *
 * Ownership: every handle is released by its destroy function (each accepts NULL). A method
 * keeps its program alive, so handles may be destroyed in any order. A handle may be used
 * by one thread at a time; different handles may be used from different threads. Memory
 * the caller passes in (a program buffer, planned memory, input data) is never freed by
 * the library and must outlive its use, as each function says. */
#ifndef PTE_PTE_H
#define PTE_PTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

typedef enum pte_error {
  PTE_OK = 0,
  PTE_ERR_INTERNAL = 0x0001,               /* unclassified */

  /* 0x01xx: opening a program */
  PTE_ERR_LOAD = 0x0100,
  PTE_ERR_FILE_NOT_FOUND = 0x0101,
  PTE_ERR_FILE_UNREADABLE = 0x0102,
  PTE_ERR_NOT_A_PROGRAM = 0x0103,          /* bad magic (not ET12) */
  PTE_ERR_UNSUPPORTED_VERSION = 0x0104,
  PTE_ERR_TRUNCATED = 0x0105,
  PTE_ERR_MALFORMED = 0x0106,              /* verification failed, inconsistent tables */
  PTE_ERR_DATA_FILE_INVALID = 0x0107,      /* an external .ptd file */

  /* 0x02xx: loading a method */
  PTE_ERR_METHOD_LOAD = 0x0200,
  PTE_ERR_UNKNOWN_METHOD = 0x0201,
  PTE_ERR_UNSUPPORTED_OPERATOR = 0x0202,
  PTE_ERR_UNSUPPORTED_DELEGATE = 0x0203,
  PTE_ERR_MALFORMED_METHOD = 0x0204,
  PTE_ERR_ALLOCATION_FAILED = 0x0205,
  PTE_ERR_MEMORY_TOO_SMALL = 0x0206,       /* the caller's planned memory block */
  PTE_ERR_EXTERNAL_DATA_MISSING = 0x0207,
  PTE_ERR_KERNEL_ARGUMENTS = 0x0208,       /* an instruction's dtypes its kernel never runs */

  /* 0x03xx: inputs */
  PTE_ERR_INPUT = 0x0300,
  PTE_ERR_INPUT_INDEX = 0x0301,
  PTE_ERR_INPUT_DTYPE = 0x0302,
  PTE_ERR_INPUT_SHAPE = 0x0303,            /* rank or sizes */
  PTE_ERR_INPUT_KIND = 0x0304,             /* tensor vs scalar */
  PTE_ERR_INPUT_DATA = 0x0305,             /* no data, or too few bytes */
  PTE_ERR_INPUT_NOT_SET = 0x0306,

  /* 0x04xx: executing */
  PTE_ERR_EXECUTE = 0x0400,
  PTE_ERR_KERNEL_FAILED = 0x0401,
  PTE_ERR_INSTRUCTION_LIMIT = 0x0402,
  PTE_ERR_STOPPED = 0x0403,

  /* 0x05xx: delegates */
  PTE_ERR_DELEGATE = 0x0500,
  PTE_ERR_DELEGATE_BLOB_MALFORMED = 0x0501,
  PTE_ERR_DELEGATE_NODE_UNSUPPORTED = 0x0502,
  PTE_ERR_DELEGATE_EXECUTE_FAILED = 0x0503,

  /* 0x06xx: arguments and state of the API */
  PTE_ERR_INVALID_ARGUMENT = 0x0600,
  PTE_ERR_NULL_HANDLE = 0x0601,
  PTE_ERR_NULL_POINTER = 0x0602,
  PTE_ERR_NOT_EXECUTED = 0x0603,           /* outputs read before a successful execute */
  PTE_ERR_OUTPUT_INDEX = 0x0604,
  PTE_ERR_BUFFER_TOO_SMALL = 0x0605,
  PTE_ERR_NOT_A_TENSOR = 0x0606,
  PTE_ERR_OUT_OF_MEMORY = 0x0607,

  /* 0x07xx: tokenizer and text generation */
  PTE_ERR_GENERATION = 0x0700,
  PTE_ERR_TOKENIZER_UNAVAILABLE = 0x0701,
  PTE_ERR_NOT_A_DECODER = 0x0702,
  PTE_ERR_CONTEXT_FULL = 0x0703,

  PTE_ERR_ENUM_MAX_ = 0x7fffffff          /* not a code: any int32 >= 0 is a valid value */
} pte_error_t;

/* "PTE_ERR_FILE_NOT_FOUND", ...; "PTE_ERR_UNKNOWN" for a number outside the table. */
const char* pte_error_name(pte_error_t code);
/* The stage of a code: its range base (PTE_ERR_LOAD, PTE_ERR_METHOD_LOAD, ...). */
pte_error_t pte_error_stage(pte_error_t code);
/* The message of the last failing call on this thread ("" if none). */
const char* pte_last_error(void);

/* ------------------------------------------------------------------ values */

/* Element types, numbered as ExecuTorch's ScalarType. */
typedef enum pte_dtype {
  PTE_DTYPE_UINT8 = 0,
  PTE_DTYPE_INT8 = 1,
  PTE_DTYPE_INT16 = 2,
  PTE_DTYPE_INT32 = 3,
  PTE_DTYPE_INT64 = 4,
  PTE_DTYPE_FLOAT16 = 5,
  PTE_DTYPE_FLOAT32 = 6,
  PTE_DTYPE_FLOAT64 = 7,
  PTE_DTYPE_BOOL = 11,
  PTE_DTYPE_BFLOAT16 = 15,
  PTE_DTYPE_ENUM_MAX_ = 0x7fffffff        /* not a dtype: any int32 >= 0 is a valid value */
} pte_dtype;

/* Bytes per element; 0 for a number that is not a dtype. */
size_t pte_dtype_size(pte_dtype dtype);
/* "float32", "int64", ...; "unknown" otherwise. */
const char* pte_dtype_name(pte_dtype dtype);

typedef enum pte_value_kind {
  PTE_VALUE_NONE = 0,
  PTE_VALUE_INT = 1,
  PTE_VALUE_DOUBLE = 2,
  PTE_VALUE_BOOL = 3,
  PTE_VALUE_STRING = 4,
  PTE_VALUE_TENSOR = 5,
  PTE_VALUE_OTHER = 6                       /* lists */
} pte_value_kind;

/* A method input or output as the program declares it. `sizes` points into the program
 * (valid while it lives); for a dynamic shape they are upper bounds. */
typedef struct pte_value_info {
  pte_value_kind kind;
  pte_dtype dtype;                          /* tensors */
  size_t rank;
  const int64_t* sizes;
  int dynamic;                              /* 1: sizes are upper bounds */
} pte_value_info;

/* An output tensor after execute: valid until the next execute or the method's destroy. */
typedef struct pte_tensor_view {
  pte_dtype dtype;
  size_t rank;
  const int64_t* sizes;
  const void* data;                         /* contiguous, in the method's memory */
  size_t nbytes;
} pte_tensor_view;

/* ------------------------------------------------------------------ programs */

typedef struct pte_program pte_program;
typedef struct pte_method pte_method;

typedef struct pte_open_options {
  /* Run the flatbuffer verifier (1, the default). This build verifies always: every
   * later table read relies on it, so 0 is accepted and changes nothing. */
  int verify;
  /* External weight files (.ptd) the program refers to (paths); may be NULL. */
  const char* const* data_files;
  size_t num_data_files;
} pte_open_options;

/* The defaults (verify on, no data files). */
void pte_open_options_init(pte_open_options* options);

/* Maps the file (zero copy). `options` may be NULL. */
pte_error_t pte_program_open_file(const char* path, const pte_open_options* options, pte_program** out);
/* A program in caller memory (flash, a static array): not copied when 16-byte aligned,
 * so it must outlive the program (and every method of it). No file system is used. */
pte_error_t pte_program_open_memory(const void* data, size_t size, const pte_open_options* options,
                                    pte_program** out);
void pte_program_destroy(pte_program* program);

pte_error_t pte_program_num_methods(const pte_program* program, size_t* count);
/* The name of method `index` (owned by the program). */
pte_error_t pte_program_method_name(const pte_program* program, size_t index, const char** name);
pte_error_t pte_program_method_io(const pte_program* program, const char* method, size_t* num_inputs,
                                  size_t* num_outputs);
pte_error_t pte_program_input_info(const pte_program* program, const char* method, size_t index,
                                   pte_value_info* info);
pte_error_t pte_program_output_info(const pte_program* program, const char* method, size_t index,
                                    pte_value_info* info);

/* ------------------------------------------------------------------ methods */

typedef struct pte_method_options {
  int num_threads;        /* 0: the library decides (physical cores; 1 for small methods) */
  /* Caller memory for the planned buffers and kernel scratch (an arena, as TFLite Micro
   * takes one): at least pte_method_memory_needed() bytes, best 64-byte aligned (else up
   * to 63 more bytes are needed). It must outlive the method. NULL: the library allocates
   * them at load. Either way nothing is allocated after load. */
  void* memory;
  size_t memory_bytes;
  /* Kernel scratch inside that memory: 0 takes the library's default (4 MiB); a small
   * program runs with less (a kernel that finds too little takes a path without scratch
   * or fails execute with a message). */
  size_t scratch_bytes;
} pte_method_options;

void pte_method_options_init(pte_method_options* options);

/* Bytes `memory` must hold for this method with these options (a 64-byte aligned block). */
pte_error_t pte_method_memory_needed(const pte_program* program, const char* method,
                                     const pte_method_options* options, size_t* bytes);
/* `options` may be NULL. The method keeps the program alive. Loading a method checks that
 * this build has every operator and delegate it calls (one message naming the missing). */
pte_error_t pte_method_load(pte_program* program, const char* method, const pte_method_options* options,
                            pte_method** out);
void pte_method_destroy(pte_method* method);

pte_error_t pte_method_num_inputs(const pte_method* method, size_t* count);
pte_error_t pte_method_num_outputs(const pte_method* method, size_t* count);

/* A tensor input from caller memory: contiguous, `dtype` and `sizes` as the method
 * declares (within the bounds of a dynamic shape), `data_bytes` at least the tensor's
 * bytes. A planned input is copied in; an unplanned one is read in place, so `data` must
 * stay valid until execute returns. */
pte_error_t pte_method_set_input(pte_method* method, size_t index, pte_dtype dtype, const int64_t* sizes,
                                 size_t rank, const void* data, size_t data_bytes);
/* Runs the method. Allocates nothing. */
pte_error_t pte_method_execute(pte_method* method);
/* Output `index` of the last successful execute. */
pte_error_t pte_method_output(const pte_method* method, size_t index, pte_tensor_view* view);
/* Copies output `index` into `dst` (`dst_bytes` must hold it); `written` may be NULL. */
pte_error_t pte_method_copy_output(const pte_method* method, size_t index, void* dst, size_t dst_bytes,
                                   size_t* written);

/* ------------------------------------------------------------------ text generation */

typedef struct pte_session pte_session;

typedef struct pte_session_options {
  const char* tokenizer_path;  /* NULL: the tokenizer next to the model (tokenizer.json, tokenizer.bin or tokenizer.model) */
  int num_threads;             /* 0: the library decides */
} pte_session_options;

void pte_session_options_init(pte_session_options* options);

typedef struct pte_generation_params {
  int max_new_tokens;          /* default 128; < 0: until EOS or the context is full */
  float temperature;           /* 0: greedy (the default) */
  int top_k;                   /* 0: off */
  float top_p;                 /* 1: off */
  uint64_t seed;
  int ignore_eos;              /* 1: keep going past EOS */
} pte_generation_params;

void pte_generation_params_init(pte_generation_params* params);

typedef enum pte_stop_reason {
  PTE_STOP_EOS = 0,
  PTE_STOP_MAX_TOKENS = 1,
  PTE_STOP_CONTEXT_FULL = 2,
  PTE_STOP_CALLBACK = 3        /* the token callback returned non-zero */
} pte_stop_reason;

typedef struct pte_generation_stats {
  int prompt_tokens;
  int generated_tokens;        /* a final EOS included */
  double prefill_ms;
  double decode_ms;
  pte_stop_reason stop_reason;
} pte_generation_stats;

/* Called once per generated token with the text it completes (NUL-terminated; "" for a
 * final EOS or while a UTF-8 character is split across tokens). Return 0 to continue,
 * non-zero to stop. */
typedef int (*pte_token_callback)(const char* text, int32_t token_id, void* user);

/* A decoder program (a static KV cache, as optimum-executorch and ExecuTorch's LLM export
 * write) with its tokenizer. `options` may be NULL. */
pte_error_t pte_session_create(const char* model_path, const pte_session_options* options, pte_session** out);
void pte_session_destroy(pte_session* session);
/* Encodes `prompt` (special tokens added at the start of a conversation), appends it to
 * what the session holds and generates. `params`, `callback` and `stats` may be NULL. */
pte_error_t pte_session_generate(pte_session* session, const char* prompt, const pte_generation_params* params,
                                 pte_token_callback callback, void* user, pte_generation_stats* stats);
/* Forgets the conversation (the next generate starts from an empty cache). */
pte_error_t pte_session_reset(pte_session* session);

#ifdef __cplusplus
}
#endif

#endif /* PTE_PTE_H */
