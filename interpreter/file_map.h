// pte-run: a read-only view of a whole file, memory-mapped (zero copy) when possible.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "pte/status.h"

namespace pte {

class FileMap {
 public:
  FileMap() = default;
  FileMap(const FileMap&) = delete;
  FileMap& operator=(const FileMap&) = delete;
  ~FileMap();

  Status open(const std::string& path);
  // Wraps caller memory; copies it only when it is not 16-byte aligned.
  void wrap(const void* data, size_t size);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // The bytes [p, p + n) will not be read again soon (weights repacked at load): when they
  // lie in a mapping of ours, the whole pages inside the range leave the process's resident
  // set (a later read faults them in again from the file). Caller memory is left alone.
  // False when the range is not ours.
  bool release(const void* p, size_t n) const;
  // The bytes [p, p + n) will be read by every run (weights the kernels read in place): when
  // they lie in a mapping of ours, their pages are mapped now (MADV_POPULATE_READ, Linux 5.14;
  // older kernels: a read-ahead hint) so the first run does not take their page faults one by
  // one. False when the range is not ours.
  bool populate(const void* p, size_t n) const;
  // The bytes [p, p + n) may be read later (a row at a time): when they lie in a mapping of
  // ours, the kernel reads them into the page cache in the background (MADV_WILLNEED), so a
  // first run after the file left the cache does not wait on the disk for each row. Nothing
  // is mapped (no resident-set cost). The kernel reads at most the device's read-ahead window
  // per request, so the range goes in steps of that window (its bdi's read_ahead_kb, read at
  // open; 128 KB when unknown). False when the range is not ours.
  bool prefetch(const void* p, size_t n) const;

 private:
  bool ours(const void* p, size_t n) const;  // [p, p + n) lies in our mapping
  // the whole pages that hold [p, p + n), clipped to the mapping
  void outer_pages(const void* p, size_t n, uintptr_t* from, uintptr_t* to) const;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  size_t readahead_ = 128 << 10;  // the file's device read-ahead window (bytes): prefetch's step
  uint8_t* owned_ = nullptr;
};

}  // namespace pte
