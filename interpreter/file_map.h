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

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  uint8_t* owned_ = nullptr;
};

}  // namespace pte
