// ops/isa.h: what the CPU reports. The kernel tests of a variant skip (visibly) on a CPU
// without its feature; under CI's emulated CPUs that feature must not go missing unseen, so
// scripts/test.sh names what each emulated CPU has in PTE_EXPECT_ISA and this test fails
// when detection does not find it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "ops/isa.h"

TEST_CASE("isa: the features this CPU is expected to have (PTE_EXPECT_ISA) are detected") {
  const std::string have = std::string(pte::isa::describe()) + " ";
  MESSAGE("this CPU: " << have);
  const char* want = std::getenv("PTE_EXPECT_ISA");
  if (!want || !*want) {
    MESSAGE("skipped: PTE_EXPECT_ISA is not set (scripts/test.sh sets it for the emulated ARM CPUs)");
    return;
  }
  std::istringstream in(want);
  std::string name;
  int checked = 0;
  while (in >> name) {
    CHECK_MESSAGE(have.find(" " + name + " ") != std::string::npos, "expected '" << name << "' in " << have);
    ++checked;
  }
  CHECK(checked > 0);
}
