// FileMap::release / populate / prefetch: pages of repacked weights leave the resident set; the bytes
// read back the same (faulted in again from the file); a prefetched range reaches the page cache
// without being mapped; caller memory and foreign ranges are left alone.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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

// Writes n patterned bytes (byte i: (i * 40503) >> 7) to `path`; false if it could not.
bool write_pattern(const std::filesystem::path& path, size_t n) {
  std::vector<char> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 40503u) >> 7);
  return std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n)).good();
}

// `op` (release, populate or prefetch) refuses what is not the map's: caller memory, a range
// running past the mapping (n: the mapped size), and caller memory a map wraps; and leaves
// that memory alone.
void check_refusals(bool (pte::FileMap::*op)(const void*, size_t) const, const pte::FileMap& map, size_t n) {
  std::vector<uint8_t> mine(4096, 7);
  CHECK(!(map.*op)(mine.data(), mine.size()));
  CHECK(!(map.*op)(map.data() + n - 10, 20));
  pte::FileMap wrapped;
  wrapped.wrap(mine.data(), mine.size());
  CHECK(!(wrapped.*op)(mine.data(), mine.size()));
  CHECK(mine[4095] == 7);
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
  check_refusals(&pte::FileMap::release, map, n);  // not ours: outside the mapping, or wrapped caller memory
  std::filesystem::remove(path);
}

namespace {

// A file of n patterned bytes in the temp directory (removed by the caller).
std::filesystem::path pattern_file(const char* stem, size_t n) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / (stem + std::to_string(getpid()));
  write_pattern(path, n);
  return path;
}

// Does MADV_POPULATE_READ map pages here? Kernels before 5.14 refuse it, and qemu-user
// accepts it and does nothing. Asked once, of a 4 MB temp file mapped as FileMap maps.
bool kernel_populates() {
  static const bool yes = [] {
    const size_t n = size_t{4} << 20;
    const std::filesystem::path path = pattern_file("pte_file_probe_", n);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    void* q = fd >= 0 ? mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (fd >= 0) ::close(fd);
    std::filesystem::remove(path);
    if (q == MAP_FAILED) return false;
    const size_t r0 = resident_bytes();
    const int rc = madvise(q, n, 22 /* MADV_POPULATE_READ */);
    const size_t r1 = resident_bytes();
    munmap(q, n);
    return r0 > 0 && rc == 0 && r1 >= r0 + n / 2;
  }();
  return yes;
}

}  // namespace

TEST_CASE("file map: populate maps a range's pages at once (MADV_POPULATE_READ)" *
          doctest::skip(!kernel_populates())) {
  const size_t n = size_t{16} << 20;
  const std::filesystem::path path = pattern_file("pte_file_pop_", n);
  pte::FileMap map;
  REQUIRE(map.open(path.string()).is_ok());
  const size_t before = resident_bytes();
  CHECK(map.populate(map.data() + 100, n - 200));
  const size_t after = resident_bytes();
  CAPTURE(before);
  CAPTURE(after);
  CHECK(after >= before + n / 2);
  std::filesystem::remove(path);
}

TEST_CASE("file map: populated bytes read back the same; foreign ranges and caller memory are refused") {
  const size_t n = size_t{1} << 20;
  const std::filesystem::path path = pattern_file("pte_file_pop2_", n);
  pte::FileMap map;
  REQUIRE(map.open(path.string()).is_ok());
  CHECK(map.populate(map.data() + 100, n - 200));
  unsigned sum = 0, expect = 0;
  for (size_t i = 0; i < n; i += 4096) sum += map.data()[i], expect += static_cast<uint8_t>((i * 40503u) >> 7);
  CHECK(sum == expect);
  check_refusals(&pte::FileMap::populate, map, n);
  std::filesystem::remove(path);
}

namespace {

// A pattern file on a disk-backed folder (the working directory; a tmpfs temp directory keeps
// its pages whatever is asked), with its pages dropped from the page cache.
std::filesystem::path evicted_file(const char* stem, size_t n) {
  std::filesystem::path path;
  for (const auto& dir : {std::filesystem::current_path(), std::filesystem::temp_directory_path()}) {
    path = dir / (stem + std::to_string(getpid()));
    if (write_pattern(path, n)) break;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    fdatasync(fd);
    posix_fadvise(fd, 0, static_cast<off_t>(n), POSIX_FADV_DONTNEED);  // clean pages leave the cache
    ::close(fd);
  }
  return path;
}

// Page-cache residency of the pages of [base, base + n) (a file mapping).
size_t cached_pages(const void* base, size_t n) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((n + page - 1) / page);
  if (mincore(const_cast<void*>(base), n, v.data()) != 0) return 0;
  size_t c = 0;
  for (unsigned char b : v) c += b & 1;
  return c;
}

// Can a file's pages be dropped from the page cache here, and does MADV_WILLNEED read them
// back? (qemu-user accepts MADV_WILLNEED and does nothing; tmpfs keeps its pages.) Asked once,
// of a 1 MB file's first 64 KB through a mapping of its own.
bool kernel_reads_ahead() {
  static const bool yes = [] {
    const size_t n = size_t{1} << 20, probe = size_t{64} << 10;
    const std::filesystem::path path = evicted_file("pte_file_ra_probe_", n);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    void* q = fd >= 0 ? mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (fd >= 0) ::close(fd);
    bool ok = false;
    if (q != MAP_FAILED) {
      const size_t pages = probe / static_cast<size_t>(sysconf(_SC_PAGESIZE));
      if (cached_pages(q, probe) == 0) {
        madvise(q, probe, MADV_WILLNEED);
        for (int i = 0; i < 100 && !ok; ++i) {
          ok = cached_pages(q, probe) == pages;
          if (!ok) usleep(10000);
        }
      }
      munmap(q, n);
    }
    std::filesystem::remove(path);
    return ok;
  }();
  return yes;
}

}  // namespace

TEST_CASE("file map: prefetch reads a range into the page cache window by window without mapping it" *
          doctest::skip(!kernel_reads_ahead())) {
  const size_t n = size_t{12} << 20;  // past an 8 MB read-ahead window and many 128 KB ones
  const size_t pages = (n + static_cast<size_t>(sysconf(_SC_PAGESIZE)) - 1) / static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const std::filesystem::path path = evicted_file("pte_file_prefetch_", n);
  pte::FileMap map;
  REQUIRE(map.open(path.string()).is_ok());
  const size_t before = cached_pages(map.data(), n);
  REQUIRE(before <= pages / 4);  // evicted (the probe showed eviction works here)
  const size_t rss0 = resident_bytes();
  CHECK(map.prefetch(map.data() + 100, n - 200));
  size_t after = 0;
  for (int i = 0; i < 200 && (after = cached_pages(map.data(), n)) < pages * 9 / 10; ++i) usleep(10000);
  CAPTURE(before);
  CAPTURE(after);
  CHECK(after >= pages * 9 / 10);          // the whole range, not only a first window
  CHECK(resident_bytes() < rss0 + n / 4);  // read into the cache, not mapped
  std::filesystem::remove(path);
}

TEST_CASE("file map: prefetch refuses caller memory and ranges past the mapping") {
  const size_t n = size_t{1} << 20;
  const std::filesystem::path path = pattern_file("pte_file_pf2_", n);
  pte::FileMap map;
  REQUIRE(map.open(path.string()).is_ok());
  CHECK(map.prefetch(map.data() + 100, n - 200));
  CHECK(map.prefetch(map.data(), 0));
  check_refusals(&pte::FileMap::prefetch, map, n);
  std::filesystem::remove(path);
}
