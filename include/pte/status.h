// pte-run public API: Status, the one error type that crosses the library boundary.
#pragma once
#include <string>
#include <utility>

namespace pte {

// A result with a message. No exception ever leaves the library; every failure is a
// Status whose message names the file, method, instruction and operator it concerns.
class Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message), true); }

  bool is_ok() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with context ("file.pte: method forward: ...").
  Status& context(const std::string& prefix) {
    if (failed_) message_ = prefix + ": " + message_;
    return *this;
  }

 private:
  Status(std::string m, bool f) : message_(std::move(m)), failed_(f) {}
  std::string message_;
  bool failed_ = false;
};

#define PTE_TRY(expr)                       \
  do {                                      \
    ::pte::Status pte_try_status_ = (expr); \
    if (!pte_try_status_) return pte_try_status_; \
  } while (0)

}  // namespace pte
