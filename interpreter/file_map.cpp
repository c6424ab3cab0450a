#include "interpreter/file_map.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pte {

FileMap::~FileMap() {
  if (mapped_) munmap(mapped_, mapped_size_);
  std::free(owned_);
}

Status FileMap::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return Status::error(e == ENOENT || e == ENOTDIR ? ErrorCode::FileNotFound : ErrorCode::FileUnreadable,
                         path + ": cannot open: " + std::strerror(e));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::error(ErrorCode::FileUnreadable, path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::error(ErrorCode::FileUnreadable, path + ": not a regular file");
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    data_ = nullptr;
    size_ = 0;
    return Status::ok();
  }
  {  // the read-ahead window of the file's device (its backing device info, by st_dev)
    char path_ra[96];
    std::snprintf(path_ra, sizeof(path_ra), "/sys/class/bdi/%u:%u/read_ahead_kb", major(st.st_dev), minor(st.st_dev));
    if (FILE* f = std::fopen(path_ra, "re")) {
      unsigned long kb = 0;
      const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      if (std::fscanf(f, "%lu", &kb) == 1 && kb >= 128 && kb <= (64ul << 10)) readahead_ = (kb << 10) / page * page;
      std::fclose(f);
    }
  }
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Status::error(ErrorCode::FileUnreadable, path + ": cannot map: " + std::strerror(e));
  mapped_ = p;
  mapped_size_ = size;
  data_ = static_cast<const uint8_t*>(p);
  size_ = size;
  return Status::ok();
}

bool FileMap::ours(const void* p, size_t n) const {
  const auto* b = static_cast<const uint8_t*>(p);
  const auto* base = static_cast<const uint8_t*>(mapped_);
  return mapped_ && b >= base && n <= mapped_size_ && static_cast<size_t>(b - base) <= mapped_size_ - n;
}

void FileMap::outer_pages(const void* p, size_t n, uintptr_t* from, uintptr_t* to) const {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)), b = reinterpret_cast<uintptr_t>(p);
  *from = b / page * page;
  *to = std::min<uintptr_t>((b + n + page - 1) / page * page, reinterpret_cast<uintptr_t>(mapped_) + mapped_size_);
}

bool FileMap::release(const void* p, size_t n) const {
  if (!ours(p, n)) return false;
  const auto* b = static_cast<const uint8_t*>(p);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t from = (reinterpret_cast<uintptr_t>(b) + page - 1) / page * page;
  const uintptr_t to = (reinterpret_cast<uintptr_t>(b) + n) / page * page;
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  return true;
}

bool FileMap::populate(const void* p, size_t n) const {
  if (!ours(p, n)) return false;
  if (n == 0) return true;
  uintptr_t from, to;
  outer_pages(p, n, &from, &to);
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
  if (madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_READ) != 0)
    madvise(reinterpret_cast<void*>(from), to - from, MADV_WILLNEED);
  return true;
}

bool FileMap::prefetch(const void* p, size_t n) const {
  if (!ours(p, n)) return false;
  if (n == 0) return true;
  uintptr_t from, to;
  outer_pages(p, n, &from, &to);
  // one request a window: the kernel reads at most that much per request (6.18: a whole-range
  // MADV_WILLNEED on a 113 MB table read its first 8 MB); pages already cached cost a lookup
  for (uintptr_t at = from; at < to; at += readahead_)
    madvise(reinterpret_cast<void*>(at), std::min<uintptr_t>(readahead_, to - at), MADV_WILLNEED);
  return true;
}

void FileMap::wrap(const void* data, size_t size) {
  if (reinterpret_cast<uintptr_t>(data) % 16 == 0 || size == 0) {
    data_ = static_cast<const uint8_t*>(data);
    size_ = size;
    return;
  }
  owned_ = static_cast<uint8_t*>(std::aligned_alloc(16, (size + 15) / 16 * 16));
  std::memcpy(owned_, data, size);
  data_ = owned_;
  size_ = size;
}

}  // namespace pte
