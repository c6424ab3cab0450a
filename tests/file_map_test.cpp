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

namespace {

// A file of n patterned bytes in the temp directory (removed by the caller).
std::filesystem::path pattern_file(const char* stem, size_t n) {
  std::filesystem::path path = std::filesystem::temp_directory_path() / (stem + std::to_string(getpid()));
  std::vector<char> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 40503u) >> 7);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
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
  std::vector<uint8_t> mine(4096, 7);
  CHECK(!map.populate(mine.data(), mine.size()));
  CHECK(!map.populate(map.data() + n - 10, 20));
  pte::FileMap wrapped;
  wrapped.wrap(mine.data(), mine.size());
  CHECK(!wrapped.populate(mine.data(), mine.size()));
  std::filesystem::remove(path);
}

TEST_CASE("file map: prefetch reads a range into the page cache window by window without mapping it") {
  // (in the working directory: a tmpfs temp directory keeps its pages whatever is asked)
  const size_t n = size_t{12} << 20;  // past an 8 MB read-ahead window and many 128 KB ones
  std::filesystem::path path;
  {
    std::vector<char> bytes(n);
    for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 40503u) >> 7);
    for (const auto& dir : {std::filesystem::current_path(), std::filesystem::temp_directory_path()}) {
      path = dir / ("pte_file_prefetch_" + std::to_string(getpid()));
      if (std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n)).good()) break;
    }
  }
  const long page = sysconf(_SC_PAGESIZE);
  const size_t pages = (n + static_cast<size_t>(page) - 1) / static_cast<size_t>(page);
  auto cached_pages = [&](const void* base) {  // page-cache residency of the file's pages
    std::vector<unsigned char> v(pages);
    if (mincore(const_cast<void*>(base), n, v.data()) != 0) return size_t{0};
    size_t c = 0;
    for (unsigned char b : v) c += b & 1;
    return c;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  fdatasync(fd);
  posix_fadvise(fd, 0, static_cast<off_t>(n), POSIX_FADV_DONTNEED);  // clean pages leave the cache
  ::close(fd);
  // Does MADV_WILLNEED read ahead here at all? (qemu-user accepts it and does nothing.) Asked of
  // the file's first 64 KB through a mapping of its own.
  bool willneed = false;
  {
    int pfd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    void* q = pfd >= 0 ? mmap(nullptr, n, PROT_READ, MAP_PRIVATE, pfd, 0) : MAP_FAILED;
    if (pfd >= 0) ::close(pfd);
    if (q != MAP_FAILED) {
      madvise(q, 64 << 10, MADV_WILLNEED);
      std::vector<unsigned char> v((64 << 10) / page);
      for (int i = 0; i < 100 && !willneed; ++i) {
        willneed = mincore(q, 64 << 10, v.data()) == 0 && (v.back() & 1);
        if (!willneed) usleep(10000);
      }
      munmap(q, n);
    }
  }
  pte::FileMap map;
  REQUIRE(map.open(path.string()).is_ok());
  const size_t before = cached_pages(map.data());
  if (!willneed) {
    MESSAGE("MADV_WILLNEED reads nothing ahead here (qemu-user, or no read-ahead): prefetch not checked");
  } else if (before > pages / 4) {
    MESSAGE("the file's pages stay in the page cache here (" << before << " of " << pages << "): prefetch not checked");
  } else {
    const size_t rss0 = resident_bytes();
    CHECK(map.prefetch(map.data() + 100, n - 200));
    size_t after = 0;
    for (int i = 0; i < 200 && (after = cached_pages(map.data())) < pages * 9 / 10; ++i) usleep(10000);
    CAPTURE(before);
    CAPTURE(after);
    CHECK(after >= pages * 9 / 10);                      // the whole range, not only a first window
    CHECK(resident_bytes() < rss0 + n / 4);              // read into the cache, not mapped
  }
  std::vector<uint8_t> mine(4096, 7);
  CHECK(!map.prefetch(mine.data(), mine.size()));       // caller memory
  CHECK(!map.prefetch(map.data() + n - 10, 20));         // past the mapping
  std::filesystem::remove(path);
}
