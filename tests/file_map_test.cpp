// FileMap::release / populate: pages of repacked weights leave the resident set; the bytes read back
// the same (faulted in again from the file); caller memory and foreign ranges are left alone.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "interpreter/file_map.h"

namespace {

// Resident pages of this process (/proc/self/statm, second field), in bytes.
size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

}  // namespace

TEST_CASE("file map: release drops a mapped range's pages from the resident set, the bytes read back the same") {
  const size_t n = size_t{16} << 20;
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("pte_file_map_" + std::to_string(getpid()));
  {
    std::vector<char> bytes(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
  }
  pte::FileMap map;
  REQUIRE(map.open(path.string()).is_ok());
  REQUIRE(map.size() == n);
  unsigned sum_before = 0;
  for (size_t i = 0; i < n; i += 512) sum_before += map.data()[i];  // touch every page
  const size_t touched = resident_bytes();
  CHECK(map.release(map.data() + 100, n - 200));  // (partial first and last pages stay)
  const size_t released = resident_bytes();
  if (touched == 0) {
    MESSAGE("skipped the resident-set check: no /proc/self/statm");
  } else {
    CAPTURE(touched);
    CAPTURE(released);
    CHECK(released + n / 2 <= touched);  // (no unsigned wrap when the set grew)
  }
  unsigned sum_after = 0;
  for (size_t i = 0; i < n; i += 512) sum_after += map.data()[i];
  CHECK(sum_after == sum_before);
  // not ours: outside the mapping, or wrapped caller memory
  std::vector<uint8_t> mine(4096, 7);
  CHECK(!map.release(mine.data(), mine.size()));
  CHECK(!map.release(map.data() + n - 10, 20));
  pte::FileMap wrapped;
  wrapped.wrap(mine.data(), mine.size());
  CHECK(!wrapped.release(mine.data(), mine.size()));
  CHECK(mine[4095] == 7);
  std::filesystem::remove(path);
}

TEST_CASE("file map: populate maps a range's pages at once (MADV_POPULATE_READ), foreign ranges are refused") {
  const size_t n = size_t{16} << 20;
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("pte_file_pop_" + std::to_string(getpid()));
  {
    std::vector<char> bytes(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 40503u) >> 7);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
  }
  // Does this kernel (5.14+) populate at all? An emulator (qemu-user) or an older kernel
  // may accept the advice and do nothing: a second mapping of the file asked directly.
  bool env_populates = false;
  {
    int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    void* q = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    REQUIRE(q != MAP_FAILED);
    const size_t r0 = resident_bytes();
    const int rc = madvise(q, n, 22 /* MADV_POPULATE_READ */);
    const size_t r1 = resident_bytes();
    env_populates = r0 > 0 && rc == 0 && r1 >= r0 + n / 2;
    munmap(q, n);
  }
  pte::FileMap map;
  REQUIRE(map.open(path.string()).is_ok());
  const size_t before = resident_bytes();
  CHECK(map.populate(map.data() + 100, n - 200));
  const size_t after = resident_bytes();
  if (!env_populates) {
    MESSAGE("skipped the resident-set check: MADV_POPULATE_READ maps nothing here (kernel before 5.14, or an emulator)");
  } else {
    CAPTURE(before);
    CAPTURE(after);
    CHECK(after >= before + n / 2);
  }
  unsigned sum = 0;
  for (size_t i = 0; i < n; i += 4096) sum += map.data()[i];
  unsigned expect = 0;
  for (size_t i = 0; i < n; i += 4096) expect += static_cast<uint8_t>((i * 40503u) >> 7);
  CHECK(sum == expect);
  std::vector<uint8_t> mine(4096, 7);
  CHECK(!map.populate(mine.data(), mine.size()));
  CHECK(!map.populate(map.data() + n - 10, 20));
  pte::FileMap wrapped;
  wrapped.wrap(mine.data(), mine.size());
  CHECK(!wrapped.populate(mine.data(), mine.size()));
  std::filesystem::remove(path);
}
