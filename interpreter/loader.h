// pte-run: the verified program loader. Maps a .pte (and any .ptd files), checks the
// header, every segment and offset against the file size, runs the flatbuffer
// verifier, and answers "where are the bytes of X" for the method loader.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "interpreter/file_map.h"
#include "pte/program.h"
#include "schema/flat_tensor_generated.h"
#include "schema/program_generated.h"

namespace pte {

namespace fb = executorch_flatbuffer;

struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

struct LegacyFlatTensor;  // FT01 as written Jan-Jun 2025 (loader.cpp)

// One entry of a .ptd, for listing (pte-run info).
struct DataEntry {
  std::string_view key;
  Bytes bytes;
  bool has_layout = false;         // dtype/sizes/dim_order below are valid
  int scalar_type = -1;            // raw ScalarType value
  std::vector<int64_t> sizes;
  std::vector<uint8_t> dim_order;
};

// One external data file (.ptd, FT01). Two layouts share the FT01 identifier:
// the current one (named_data entries with an optional tensor_layout) and the
// earlier one (Jan-Jun 2025: a `tensors` table of TensorMetadata with a byte offset
// inside a segment); both are read.
class DataFile {
 public:
  Status open(const std::string& path);
  Status parse();  // over map_ (set by open or by tests through wrap)
  const std::string& path() const { return path_; }
  // Finds a named entry; `layout` may be null in the file (always null for the
  // earlier layout, whose entries are exactly the tensor's bytes).
  bool find(std::string_view key, Bytes* bytes, const flat_tensor_flatbuffer::TensorLayout** layout) const;
  uint64_t data_bytes() const { return data_bytes_; }
  size_t entries() const;
  // Entry `index` (< entries()): named data first, then the earlier layout's tensors.
  bool entry(size_t index, DataEntry* out) const;
  bool legacy_layout() const { return legacy_ != nullptr; }
  FileMap& map() { return map_; }
  const FileMap& map() const { return map_; }
  void set_path(std::string p) { path_ = std::move(p); }

 private:
  Status check_tables();

  std::string path_;
  FileMap map_;
  const flat_tensor_flatbuffer::FlatTensor* root_ = nullptr;
  const LegacyFlatTensor* legacy_ = nullptr;
  const flatbuffers::Vector<flatbuffers::Offset<flat_tensor_flatbuffer::DataSegment>>* segments_ = nullptr;
  const flatbuffers::Vector<flatbuffers::Offset<flat_tensor_flatbuffer::NamedData>>* named_ = nullptr;
  uint64_t segment_base_ = 0;
  uint64_t data_bytes_ = 0;
};

class LoadedProgram final : public Program {
 public:
  // Parses and verifies the mapped bytes (file or buffer already in `map`).
  static Status create(std::unique_ptr<FileMap> map, const std::string& name,
                       const OpenOptions& options, std::unique_ptr<LoadedProgram>* out);

  const ProgramInfo& info() const override { return info_; }
  Status load_method(const std::string& name, const MethodOptions& options,
                     std::unique_ptr<Method>* out) override;
  Status memory_needed(const std::string& name, const MethodOptions& options, size_t* bytes) const override;
  Status method_index(const std::string& name, int* index) const;

  const fb::Program* root() const { return root_; }
  const uint8_t* file_data() const { return map_->data(); }
  // Constant bytes repacked at load and not read again: their pages leave the resident set
  // when the program or a .ptd file maps them (FileMap::release).
  void release_pages(const void* p, size_t n) const;
  // Constant bytes every run reads in place: their pages are mapped at load (FileMap::populate).
  void populate_pages(const void* p, size_t n) const;
  // Constant bytes some runs read (an embedding table: one row a token): read ahead into the
  // page cache now, without mapping them (FileMap::prefetch; no resident-set cost).
  void prefetch_pages(const void* p, size_t n) const;
  size_t file_size() const { return map_->size(); }

  // The bytes of segment `index` (absolute position checked at open).
  Status segment(uint32_t index, Bytes* out) const;
  // Constant tensor `data_buffer_idx` of `nbytes` bytes (constant segment or legacy buffer).
  Status constant_data(uint32_t data_buffer_idx, size_t nbytes, const uint8_t** out) const;
  // Initial bytes of a mutable buffer (mutable_data_segments[0]).
  Status mutable_initial_data(uint32_t data_buffer_idx, size_t nbytes, const uint8_t** out) const;
  // A named blob: the program's own named_data first, then the .ptd files.
  bool named_data(std::string_view key, Bytes* out) const;
  // An external tensor by fully qualified name (from the .ptd files).
  bool external_tensor(std::string_view fqn, Bytes* out,
                       const flat_tensor_flatbuffer::TensorLayout** layout) const;
  // The processed bytes of a delegate (inline or in a segment).
  Status delegate_blob(const fb::BackendDelegate* delegate, Bytes* out) const;
  // Index of the execution plan called `name`, or -1.
  int find_plan(std::string_view name) const;

 private:
  Status parse(const OpenOptions& options);
  Status check_tables() const;
  Status build_info();
  // Applies a FileMap range operation to the mapping (the program's or a data file's) that
  // holds [p, p + n); none of them: nothing.
  void on_mapping(bool (FileMap::*op)(const void*, size_t) const, const void* p, size_t n) const;

  std::unique_ptr<FileMap> map_;
  std::vector<std::unique_ptr<DataFile>> data_files_;
  const fb::Program* root_ = nullptr;
  uint64_t program_size_ = 0;
  uint64_t segment_base_ = 0;
  Bytes constant_segment_;
  ProgramInfo info_;
};

// A name from the file, safe to put in a one-line message: control characters
// escaped (\n -> "\\n", others as \xNN) and at most `max` bytes (then "...").
std::string printable(std::string_view s, size_t max = 200);

// Fills a MethodInfo from a verified plan (used by info and by the method loader).
Status describe_plan(const LoadedProgram& program, const fb::ExecutionPlan* plan, MethodInfo* out);

}  // namespace pte
