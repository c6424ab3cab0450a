// C API: error names and stages, the thread's last message, dtypes (pte/pte.h).
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "capi/capi_internal.h"
#include "pte/dtype.h"

namespace pte::capi {
namespace {

thread_local char t_message[4096];

// The C codes are pte::ErrorCode's numbers (checked here, one line per code).
#define PTE_C_ERRORS(X)                                                                              \
  X(PTE_OK, Ok) X(PTE_ERR_INTERNAL, Internal) X(PTE_ERR_LOAD, Load) X(PTE_ERR_FILE_NOT_FOUND, FileNotFound) \
  X(PTE_ERR_FILE_UNREADABLE, FileUnreadable) X(PTE_ERR_NOT_A_PROGRAM, NotAProgram)                   \
  X(PTE_ERR_UNSUPPORTED_VERSION, UnsupportedVersion) X(PTE_ERR_TRUNCATED, Truncated)                 \
  X(PTE_ERR_MALFORMED, Malformed) X(PTE_ERR_DATA_FILE_INVALID, DataFileInvalid)                      \
  X(PTE_ERR_METHOD_LOAD, MethodLoad) X(PTE_ERR_UNKNOWN_METHOD, UnknownMethod)                        \
  X(PTE_ERR_UNSUPPORTED_OPERATOR, UnsupportedOperator) X(PTE_ERR_UNSUPPORTED_DELEGATE, UnsupportedDelegate) \
  X(PTE_ERR_MALFORMED_METHOD, MalformedMethod) X(PTE_ERR_ALLOCATION_FAILED, AllocationFailed)        \
  X(PTE_ERR_MEMORY_TOO_SMALL, MemoryTooSmall) X(PTE_ERR_EXTERNAL_DATA_MISSING, ExternalDataMissing) X(PTE_ERR_KERNEL_ARGUMENTS, KernelArguments)  \
  X(PTE_ERR_INPUT, Input) X(PTE_ERR_INPUT_INDEX, InputIndex) X(PTE_ERR_INPUT_DTYPE, InputDtype)      \
  X(PTE_ERR_INPUT_SHAPE, InputShape) X(PTE_ERR_INPUT_KIND, InputKind) X(PTE_ERR_INPUT_DATA, InputData) \
  X(PTE_ERR_INPUT_NOT_SET, InputNotSet) X(PTE_ERR_EXECUTE, Execute) X(PTE_ERR_KERNEL_FAILED, KernelFailed) \
  X(PTE_ERR_INSTRUCTION_LIMIT, InstructionLimit) X(PTE_ERR_STOPPED, Stopped) X(PTE_ERR_DELEGATE, Delegate) \
  X(PTE_ERR_DELEGATE_BLOB_MALFORMED, DelegateBlobMalformed)                                          \
  X(PTE_ERR_DELEGATE_NODE_UNSUPPORTED, DelegateNodeUnsupported)                                      \
  X(PTE_ERR_DELEGATE_EXECUTE_FAILED, DelegateExecuteFailed) X(PTE_ERR_INVALID_ARGUMENT, InvalidArgument) \
  X(PTE_ERR_NULL_HANDLE, NullHandle) X(PTE_ERR_NULL_POINTER, NullPointer) X(PTE_ERR_NOT_EXECUTED, NotExecuted) \
  X(PTE_ERR_OUTPUT_INDEX, OutputIndex) X(PTE_ERR_BUFFER_TOO_SMALL, BufferTooSmall)                   \
  X(PTE_ERR_NOT_A_TENSOR, NotATensor) X(PTE_ERR_OUT_OF_MEMORY, OutOfMemory) X(PTE_ERR_GENERATION, Generation) \
  X(PTE_ERR_TOKENIZER_UNAVAILABLE, TokenizerUnavailable) X(PTE_ERR_NOT_A_DECODER, NotADecoder)      \
  X(PTE_ERR_CONTEXT_FULL, ContextFull)

#define PTE_C_CHECK(c, cpp) static_assert(static_cast<int>(c) == static_cast<int>(ErrorCode::cpp), #c);
PTE_C_ERRORS(PTE_C_CHECK)
#undef PTE_C_CHECK

static_assert(PTE_DTYPE_UINT8 == static_cast<int>(DType::UInt8) && PTE_DTYPE_INT8 == static_cast<int>(DType::Int8) &&
              PTE_DTYPE_INT16 == static_cast<int>(DType::Int16) && PTE_DTYPE_INT32 == static_cast<int>(DType::Int32) &&
              PTE_DTYPE_INT64 == static_cast<int>(DType::Int64) && PTE_DTYPE_FLOAT16 == static_cast<int>(DType::Half) &&
              PTE_DTYPE_FLOAT32 == static_cast<int>(DType::Float) && PTE_DTYPE_FLOAT64 == static_cast<int>(DType::Double) &&
              PTE_DTYPE_BOOL == static_cast<int>(DType::Bool) && PTE_DTYPE_BFLOAT16 == static_cast<int>(DType::BFloat16));

}  // namespace

pte_error_t fail(pte_error_t code, const char* message) noexcept {
  std::snprintf(t_message, sizeof(t_message), "%s", message && *message ? message : pte_error_name(code));
  return code;
}

pte_error_t failf(pte_error_t code, const char* format, ...) noexcept {
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(t_message, sizeof(t_message), format, ap);
  va_end(ap);
  return code;
}

pte_error_t report(const Status& status) noexcept {
  if (status.is_ok()) return PTE_OK;
  return fail(static_cast<pte_error_t>(status.code()), status.message().c_str());
}

}  // namespace pte::capi

extern "C" {

const char* pte_error_name(pte_error_t code) {
  switch (code) {
#define PTE_C_NAME(c, cpp) \
  case c: return #c;
    PTE_C_ERRORS(PTE_C_NAME)
#undef PTE_C_NAME
    default: break;
  }
  return "PTE_ERR_UNKNOWN";
}

pte_error_t pte_error_stage(pte_error_t code) {
  return static_cast<pte_error_t>(pte::error_stage(static_cast<pte::ErrorCode>(code)));
}

const char* pte_last_error(void) { return pte::capi::t_message; }

size_t pte_dtype_size(pte_dtype dtype) {
  if (!pte::dtype_valid(static_cast<int>(dtype))) return 0;
  return pte::dtype_size(static_cast<pte::DType>(dtype));
}

const char* pte_dtype_name(pte_dtype dtype) {
  if (!pte::dtype_valid(static_cast<int>(dtype))) return "unknown";
  return pte::dtype_name(static_cast<pte::DType>(dtype));
}

}  // extern "C"
