// pte-run public API: Status, the one error type that crosses the library boundary.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

namespace pte {

// What failed, grouped by stage in numeric ranges (as ExecuTorch's runtime groups its
// errors): callers and tests match codes, not message text. The C API (pte/pte.h) uses the
// same numbers (pte_error_t). The low byte 00 of each range is the stage's generic code,
// given at the stage boundary when the failing site named nothing more specific.
enum class ErrorCode : int32_t {
  Ok = 0,
  Internal = 0x0001,              // unclassified (a site that gave no code, outside any stage)

  // 0x01xx: opening a program (file, header, flatbuffer, segments, .ptd data files)
  Load = 0x0100,
  FileNotFound = 0x0101,          // no such file
  FileUnreadable = 0x0102,        // cannot open / stat / map, not a regular file
  NotAProgram = 0x0103,           // bad magic: not an ET12 program (or a .ptd / bundle)
  UnsupportedVersion = 0x0104,    // an ETnn program of another version
  Truncated = 0x0105,             // shorter than its header or segments say
  Malformed = 0x0106,             // flatbuffer verification failed or inconsistent tables
  DataFileInvalid = 0x0107,       // an external .ptd data file is unreadable or malformed

  // 0x02xx: loading a method (Program::load_method, memory_needed)
  MethodLoad = 0x0200,
  UnknownMethod = 0x0201,         // no method of that name
  UnsupportedOperator = 0x0202,   // an operator this build has no kernel for
  UnsupportedDelegate = 0x0203,   // a delegate backend this build does not have
  MalformedMethod = 0x0204,       // bad indices, types, instructions or plan
  AllocationFailed = 0x0205,      // the heap refused planned buffers, scratch or a pool
  MemoryTooSmall = 0x0206,        // the caller's block (MethodOptions::memory) is too small
  ExternalDataMissing = 0x0207,   // an external tensor is in no data file
  KernelArguments = 0x0208,       // a kernel's load-time check refused an instruction's arguments (a dtype it never runs)

  // 0x03xx: setting inputs
  Input = 0x0300,
  InputIndex = 0x0301,            // index out of range
  InputDtype = 0x0302,            // wrong element type
  InputShape = 0x0303,            // wrong rank or sizes (or over a dynamic bound)
  InputKind = 0x0304,             // a tensor where a scalar is expected, or a scalar mismatch
  InputData = 0x0305,             // no data, or too few bytes
  InputNotSet = 0x0306,           // execute() before every input was set

  // 0x04xx: executing
  Execute = 0x0400,
  KernelFailed = 0x0401,          // a kernel refused its arguments or failed
  InstructionLimit = 0x0402,      // a jump loop that never ends
  Stopped = 0x0403,               // an observer stopped execution

  // 0x05xx: delegates (XNNPACK)
  Delegate = 0x0500,
  DelegateBlobMalformed = 0x0501, // the delegate's blob failed validation
  DelegateNodeUnsupported = 0x0502,  // a node type the backend does not execute
  DelegateExecuteFailed = 0x0503,

  // 0x06xx: arguments and state of the API itself
  InvalidArgument = 0x0600,
  NullHandle = 0x0601,
  NullPointer = 0x0602,
  NotExecuted = 0x0603,           // outputs read before a successful execute()
  OutputIndex = 0x0604,
  BufferTooSmall = 0x0605,        // a caller buffer (output copy, name) is too small
  NotATensor = 0x0606,            // the value asked for is not a tensor
  OutOfMemory = 0x0607,           // std::bad_alloc caught at the boundary

  // 0x07xx: tokenizer and text generation
  Generation = 0x0700,
  TokenizerUnavailable = 0x0701,  // no tokenizer next to the model (or at the path given), or unreadable
  NotADecoder = 0x0702,           // the program is not a text decoder we can drive
  ContextFull = 0x0703,           // the prompt does not fit the context
};

// "FileNotFound", ...; "Unknown" for a value outside the table.
inline const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Ok: return "Ok";
    case ErrorCode::Internal: return "Internal";
    case ErrorCode::Load: return "Load";
    case ErrorCode::FileNotFound: return "FileNotFound";
    case ErrorCode::FileUnreadable: return "FileUnreadable";
    case ErrorCode::NotAProgram: return "NotAProgram";
    case ErrorCode::UnsupportedVersion: return "UnsupportedVersion";
    case ErrorCode::Truncated: return "Truncated";
    case ErrorCode::Malformed: return "Malformed";
    case ErrorCode::DataFileInvalid: return "DataFileInvalid";
    case ErrorCode::MethodLoad: return "MethodLoad";
    case ErrorCode::UnknownMethod: return "UnknownMethod";
    case ErrorCode::UnsupportedOperator: return "UnsupportedOperator";
    case ErrorCode::UnsupportedDelegate: return "UnsupportedDelegate";
    case ErrorCode::MalformedMethod: return "MalformedMethod";
    case ErrorCode::AllocationFailed: return "AllocationFailed";
    case ErrorCode::MemoryTooSmall: return "MemoryTooSmall";
    case ErrorCode::ExternalDataMissing: return "ExternalDataMissing";
    case ErrorCode::KernelArguments: return "KernelArguments";
    case ErrorCode::Input: return "Input";
    case ErrorCode::InputIndex: return "InputIndex";
    case ErrorCode::InputDtype: return "InputDtype";
    case ErrorCode::InputShape: return "InputShape";
    case ErrorCode::InputKind: return "InputKind";
    case ErrorCode::InputData: return "InputData";
    case ErrorCode::InputNotSet: return "InputNotSet";
    case ErrorCode::Execute: return "Execute";
    case ErrorCode::KernelFailed: return "KernelFailed";
    case ErrorCode::InstructionLimit: return "InstructionLimit";
    case ErrorCode::Stopped: return "Stopped";
    case ErrorCode::Delegate: return "Delegate";
    case ErrorCode::DelegateBlobMalformed: return "DelegateBlobMalformed";
    case ErrorCode::DelegateNodeUnsupported: return "DelegateNodeUnsupported";
    case ErrorCode::DelegateExecuteFailed: return "DelegateExecuteFailed";
    case ErrorCode::InvalidArgument: return "InvalidArgument";
    case ErrorCode::NullHandle: return "NullHandle";
    case ErrorCode::NullPointer: return "NullPointer";
    case ErrorCode::NotExecuted: return "NotExecuted";
    case ErrorCode::OutputIndex: return "OutputIndex";
    case ErrorCode::BufferTooSmall: return "BufferTooSmall";
    case ErrorCode::NotATensor: return "NotATensor";
    case ErrorCode::OutOfMemory: return "OutOfMemory";
    case ErrorCode::Generation: return "Generation";
    case ErrorCode::TokenizerUnavailable: return "TokenizerUnavailable";
    case ErrorCode::NotADecoder: return "NotADecoder";
    case ErrorCode::ContextFull: return "ContextFull";
  }
  return "Unknown";
}
// The stage's generic code (its range base: Load, MethodLoad, ...), Internal or Ok.
inline ErrorCode error_stage(ErrorCode code) {
  int32_t c = static_cast<int32_t>(code);
  return c < 0x0100 ? code : static_cast<ErrorCode>(c & ~0xff);
}

// A result with a message. No exception ever leaves the library; every failure is a
// Status whose message names the file, method, instruction and operator it concerns,
// and whose code says what failed.
class Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  // A failure whose site names no code: ErrorCode::Internal until a stage boundary
  // (with_default_code) gives it that stage's.
  static Status error(std::string message) { return Status(ErrorCode::Internal, std::move(message)); }
  static Status error(ErrorCode code, std::string message) { return Status(code, std::move(message)); }

  bool is_ok() const { return code_ == ErrorCode::Ok; }
  explicit operator bool() const { return is_ok(); }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with context ("file.pte: method forward: ...").
  Status& context(const std::string& prefix) {
    if (!is_ok()) message_ = prefix + ": " + message_;
    return *this;
  }
  // At a stage boundary: a failure that carries no code yet (Internal) gets `code`.
  Status& with_default_code(ErrorCode code) {
    if (code_ == ErrorCode::Internal) code_ = code;
    return *this;
  }
  // Replaces the code of a failure (a site that knows better than the one it called).
  Status& with_code(ErrorCode code) {
    if (!is_ok()) code_ = code;
    return *this;
  }

 private:
  Status(ErrorCode c, std::string m) : message_(std::move(m)), code_(c == ErrorCode::Ok ? ErrorCode::Internal : c) {}
  std::string message_;
  ErrorCode code_ = ErrorCode::Ok;
};

#define PTE_TRY(expr)                       \
  do {                                      \
    ::pte::Status pte_try_status_ = (expr); \
    if (!pte_try_status_) return pte_try_status_; \
  } while (0)

}  // namespace pte
