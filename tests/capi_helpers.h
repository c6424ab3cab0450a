// Helpers of the C API tests (capi_test.cpp, capi_bad_input_test.cpp).
#pragma once
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "pte/pte.h"

namespace pte_test {

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), path << " is missing");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline bool contains(const char* s, const char* part) { return std::strstr(s, part) != nullptr; }

}  // namespace pte_test

// A failure: `code`, with a message.
#define CHECK_FAILS(expr, code)                                                    \
  do {                                                                             \
    pte_error_t e_ = (expr);                                                       \
    CHECK_MESSAGE(e_ == (code), pte_error_name(e_) << ": " << pte_last_error());   \
    CHECK(std::strlen(pte_last_error()) > 0);                                      \
  } while (0)
