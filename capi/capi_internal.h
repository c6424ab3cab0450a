// The C API's boundary (pte/pte.h): handles, the thread's last message, and the guard that
// turns every exception into an error code.
#pragma once
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "pte/program.h"
#include "pte/pte.h"
#include "pte/status.h"

struct pte_program {
  std::shared_ptr<pte::Program> program;
};

struct pte_method {
  std::shared_ptr<pte::Program> program;  // keeps the program alive
  std::unique_ptr<pte::Method> method;
  std::string prefix;                     // "file.pte: method forward"
  bool executed = false;                  // outputs are valid
};

namespace pte::capi {

// Records `message` as this thread's last error (truncated to a fixed buffer: no
// allocation, no exception) and returns `code`.
pte_error_t fail(pte_error_t code, const char* message) noexcept;
// printf-style into the thread's message buffer: no allocation (the error paths stay
// small and cannot throw).
pte_error_t failf(pte_error_t code, const char* format, ...) noexcept __attribute__((format(printf, 2, 3)));
// A failed Status: its code and message. An ok Status returns PTE_OK.
pte_error_t report(const Status& status) noexcept;

// Runs `body(function)` (returning pte_error_t), turning any exception into a code and message.
template <class F>
pte_error_t guard(const char* function, F&& body) noexcept {
  try {
    return body(function);
  } catch (const std::bad_alloc&) {
    return failf(PTE_ERR_OUT_OF_MEMORY, "%s: out of memory", function);
  } catch (const std::exception& e) {
    return failf(PTE_ERR_INTERNAL, "%s: %s", function, e.what());
  } catch (...) {
    return failf(PTE_ERR_INTERNAL, "%s: unknown exception", function);
  }
}

}  // namespace pte::capi

// A null argument (inside a guard body, whose parameter `fn` names the function): the code
// and a message naming the function and the argument.
#define PTE_C_NOT_NULL(arg, code) \
  do {                            \
    if (!(arg)) return ::pte::capi::failf(code, "%s: " #arg " is NULL", fn); \
  } while (0)
