// pte-run: the verified program loader (see loader.h).
#include "interpreter/loader.h"

#include <cctype>
#include <cstdint>
#include <cstring>

#include "flatbuffers/flatbuffers.h"

namespace pte {

namespace {

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t read_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// a + b <= limit without overflow.
bool fits(uint64_t a, uint64_t b, uint64_t limit) { return a <= limit && b <= limit - a; }

std::string num(uint64_t v) { return std::to_string(v); }

// True when a name from the file holds no control characters (absent is fine).
bool plain_name(const flatbuffers::String* s) {
  if (!s) return true;
  for (unsigned char c : s->string_view())
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

// The verifier checks a vector's length word, not that 8-byte elements are 8-aligned;
// a corrupt offset can misalign them (reading those is undefined behaviour).
template <class V>
bool aligned8(const V* v) {
  return !v || reinterpret_cast<uintptr_t>(v->Data()) % 8 == 0;
}

constexpr size_t kMaxVerifierTables = 50'000'000;
constexpr size_t kMaxVerifierDepth = 64;

// Describes what the first bytes are when they are not a .pte.
std::string identify(const uint8_t* d, size_t n) {
  if (n < 8) return "file too short (" + num(n) + " bytes) to hold a program header";
  char id[5] = {0};
  std::memcpy(id, d + 4, 4);
  if (std::memcmp(id, "ET", 2) == 0 && id[2] >= '0' && id[2] <= '9' && id[3] >= '0' && id[3] <= '9')
    return std::string("unsupported program version '") + id + "' (this build reads ET12)";
  if (std::memcmp(id, "BP08", 4) == 0) return "this is a bundled program (BP08); use `pte-run verify`";
  if (std::memcmp(id, "FT01", 4) == 0) return "this is an external data file (FT01, .ptd); pass it with --data";
  for (char c : std::string(id, 4))
    if (c < 32 || c > 126) return "not an ExecuTorch program (no ET12 identifier)";
  return std::string("not an ExecuTorch program (identifier '") + id + "', expected 'ET12')";
}

}  // namespace

std::string printable(std::string_view s, size_t max) {
  std::string out;
  for (unsigned char c : s.substr(0, max)) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

// ---------------------------------------------------------------- .ptd files

// The FT01 layout written from January to June 2025 (same identifier and header):
//   FlatTensor     { 0 version:uint; 1 tensor_alignment:uint; 2 tensors:[TensorMetadata];
//                    3 segments:[DataSegment]; 4 named_data:[NamedData] }
//   TensorMetadata { 0 fully_qualified_name:string; 1 scalar_type:byte; 2 sizes:[int];
//                    3 dim_order:[ubyte]; 4 segment_index:uint; 5 offset:ulong }
// A tensor's bytes start at segment_base + segments[segment_index].offset + offset and
// are numel x element size long. DataSegment and NamedData match the current tables.
struct LegacyTensorMetadata : private flatbuffers::Table {
  enum : flatbuffers::voffset_t { VT_FQN = 4, VT_SCALAR_TYPE = 6, VT_SIZES = 8, VT_DIM_ORDER = 10, VT_SEGMENT_INDEX = 12, VT_OFFSET = 14 };
  const flatbuffers::String* fqn() const { return GetPointer<const flatbuffers::String*>(VT_FQN); }
  int8_t scalar_type() const { return GetField<int8_t>(VT_SCALAR_TYPE, 0); }
  const flatbuffers::Vector<int32_t>* sizes() const { return GetPointer<const flatbuffers::Vector<int32_t>*>(VT_SIZES); }
  const flatbuffers::Vector<uint8_t>* dim_order() const { return GetPointer<const flatbuffers::Vector<uint8_t>*>(VT_DIM_ORDER); }
  uint32_t segment_index() const { return GetField<uint32_t>(VT_SEGMENT_INDEX, 0); }
  uint64_t offset() const { return GetField<uint64_t>(VT_OFFSET, 0); }
  bool Verify(flatbuffers::Verifier& v) const {
    return VerifyTableStart(v) && VerifyOffset(v, VT_FQN) && v.VerifyString(fqn()) &&
           VerifyField<int8_t>(v, VT_SCALAR_TYPE, 1) && VerifyOffset(v, VT_SIZES) && v.VerifyVector(sizes()) &&
           VerifyOffset(v, VT_DIM_ORDER) && v.VerifyVector(dim_order()) && VerifyField<uint32_t>(v, VT_SEGMENT_INDEX, 4) &&
           VerifyField<uint64_t>(v, VT_OFFSET, 8) && v.EndTable();
  }
};

struct LegacyFlatTensor : private flatbuffers::Table {
  enum : flatbuffers::voffset_t { VT_VERSION = 4, VT_TENSOR_ALIGNMENT = 6, VT_TENSORS = 8, VT_SEGMENTS = 10, VT_NAMED_DATA = 12 };
  const flatbuffers::Vector<flatbuffers::Offset<LegacyTensorMetadata>>* tensors() const {
    return GetPointer<const flatbuffers::Vector<flatbuffers::Offset<LegacyTensorMetadata>>*>(VT_TENSORS);
  }
  const flatbuffers::Vector<flatbuffers::Offset<flat_tensor_flatbuffer::DataSegment>>* segments() const {
    return GetPointer<const flatbuffers::Vector<flatbuffers::Offset<flat_tensor_flatbuffer::DataSegment>>*>(VT_SEGMENTS);
  }
  const flatbuffers::Vector<flatbuffers::Offset<flat_tensor_flatbuffer::NamedData>>* named_data() const {
    return GetPointer<const flatbuffers::Vector<flatbuffers::Offset<flat_tensor_flatbuffer::NamedData>>*>(VT_NAMED_DATA);
  }
  bool Verify(flatbuffers::Verifier& v) const {
    return VerifyTableStart(v) && VerifyField<uint32_t>(v, VT_VERSION, 4) && VerifyField<uint32_t>(v, VT_TENSOR_ALIGNMENT, 4) &&
           VerifyOffset(v, VT_TENSORS) && v.VerifyVector(tensors()) && v.VerifyVectorOfTables(tensors()) &&
           VerifyOffset(v, VT_SEGMENTS) && v.VerifyVector(segments()) && v.VerifyVectorOfTables(segments()) &&
           VerifyOffset(v, VT_NAMED_DATA) && v.VerifyVector(named_data()) && v.VerifyVectorOfTables(named_data()) &&
           v.EndTable();
  }
};

namespace {

// Byte size of a legacy tensor entry; false when its metadata is unusable.
bool legacy_nbytes(const LegacyTensorMetadata* t, uint64_t* out) {
  int st = t->scalar_type();
  if (!dtype_valid(st)) return false;
  uint64_t n = dtype_size(static_cast<DType>(st));
  if (const auto* sz = t->sizes()) {
    if (sz->size() > static_cast<uint32_t>(kMaxDims)) return false;
    for (int32_t v : *sz) {
      if (v < 0) return false;
      if (v != 0 && n > (uint64_t{1} << 48) / static_cast<uint64_t>(v)) return false;
      n *= static_cast<uint64_t>(v);
    }
  }
  *out = n;
  return true;
}

}  // namespace

Status DataFile::open(const std::string& path) {
  path_ = path;
  PTE_TRY(map_.open(path));
  return parse();
}

size_t DataFile::entries() const {
  size_t n = named_ ? named_->size() : 0;
  if (legacy_ && legacy_->tensors()) n += legacy_->tensors()->size();
  return n;
}

Status DataFile::parse() {
  const uint8_t* d = map_.data();
  size_t n = map_.size();
  root_ = nullptr;
  legacy_ = nullptr;
  segments_ = nullptr;
  named_ = nullptr;
  data_bytes_ = 0;
  auto bad = [&](const std::string& why) { return Status::error(path_ + ": " + why); };
  if (n < 48) return bad("file too short (" + num(n) + " bytes) for a .ptd header");
  if (std::memcmp(d + 4, "FT01", 4) != 0) {
    if (std::memcmp(d + 4, "ET12", 4) == 0) return bad("this is a program (.pte), not a .ptd data file");
    return bad("not a .ptd data file (no FT01 identifier)");
  }
  if (std::memcmp(d + 8, "FH01", 4) != 0) return bad("missing FH01 header");
  uint32_t hlen = read_u32(d + 12);
  if (hlen < 40) return bad("FH01 header length " + num(hlen) + " is below 40");
  uint64_t fb_off = read_u64(d + 16), fb_size = read_u64(d + 24);
  uint64_t seg_base = read_u64(d + 32), seg_size = read_u64(d + 40);
  if (!fits(fb_off, fb_size, n)) return bad("flatbuffer region [" + num(fb_off) + "+" + num(fb_size) + "] exceeds the file (" + num(n) + " bytes): truncated?");
  if (!fits(seg_base, seg_size, n)) return bad("segment data [" + num(seg_base) + "+" + num(seg_size) + "] exceeds the file (" + num(n) + " bytes): truncated?");
  size_t fb_len = static_cast<size_t>(fb_off + fb_size);
  {
    flatbuffers::Verifier v(d, fb_len, kMaxVerifierDepth, kMaxVerifierTables);
    if (v.VerifyBuffer<flat_tensor_flatbuffer::FlatTensor>(nullptr)) {
      root_ = flatbuffers::GetRoot<flat_tensor_flatbuffer::FlatTensor>(d);
      segments_ = root_->segments();
      named_ = root_->named_data();
    }
  }
  if (!root_) {
    flatbuffers::Verifier v(d, fb_len, kMaxVerifierDepth, kMaxVerifierTables);
    if (!v.VerifyBuffer<LegacyFlatTensor>(nullptr)) return bad("flatbuffer verification failed (corrupt file)");
    legacy_ = flatbuffers::GetRoot<LegacyFlatTensor>(d);
    segments_ = legacy_->segments();
    named_ = legacy_->named_data();
  }
  segment_base_ = seg_base;
  Status s = check_tables();
  if (!s) {
    root_ = nullptr;
    legacy_ = nullptr;
    segments_ = nullptr;
    named_ = nullptr;
    data_bytes_ = 0;
  }
  return s;
}

Status DataFile::check_tables() {
  size_t n = map_.size();
  auto bad = [&](const std::string& why) { return Status::error(path_ + ": " + why); };
  uint32_t nseg = segments_ ? segments_->size() : 0;
  for (uint32_t i = 0; i < nseg; ++i) {
    const auto* s = segments_->Get(i);
    if (!fits(segment_base_, s->offset(), n) || !fits(segment_base_ + s->offset(), s->size(), n))
      return bad("segment " + num(i) + " [" + num(s->offset()) + "+" + num(s->size()) + "] lies outside the file: truncated?");
    data_bytes_ += s->size();
  }
  if (named_) {
    for (uint32_t i = 0; i < named_->size(); ++i) {
      if (!named_->Get(i)->key()) return bad("named data " + num(i) + " has no key");
      if (!plain_name(named_->Get(i)->key())) return bad("named data " + num(i) + " has a key with control characters");
      if (named_->Get(i)->segment_index() >= nseg)
        return bad("named data " + num(i) + " refers to segment " + num(named_->Get(i)->segment_index()) + " of " + num(nseg));
    }
  }
  if (legacy_ && legacy_->tensors()) {
    const auto* ts = legacy_->tensors();
    for (uint32_t i = 0; i < ts->size(); ++i) {
      const auto* t = ts->Get(i);
      if (!t->fqn()) return bad("tensor " + num(i) + " has no name");
      if (!plain_name(t->fqn())) return bad("tensor " + num(i) + " has a name with control characters");
      if (t->segment_index() >= nseg)
        return bad("tensor " + num(i) + " refers to segment " + num(t->segment_index()) + " of " + num(nseg));
      uint64_t nbytes = 0;
      if (!legacy_nbytes(t, &nbytes)) return bad("tensor " + num(i) + " has an unusable type or shape");
      if (!fits(t->offset(), nbytes, segments_->Get(t->segment_index())->size()))
        return bad("tensor " + num(i) + " [" + num(t->offset()) + "+" + num(nbytes) + "] lies outside its segment");
    }
  }
  return Status::ok();
}

bool DataFile::find(std::string_view key, Bytes* bytes,
                    const flat_tensor_flatbuffer::TensorLayout** layout) const {
  if (named_) {
    for (const auto* e : *named_) {
      if (e->key()->string_view() != key) continue;
      const auto* s = segments_->Get(e->segment_index());
      bytes->data = map_.data() + segment_base_ + s->offset();
      bytes->size = static_cast<size_t>(s->size());
      if (layout) *layout = root_ ? e->tensor_layout() : nullptr;
      return true;
    }
  }
  if (legacy_ && legacy_->tensors()) {
    for (const auto* t : *legacy_->tensors()) {
      if (t->fqn()->string_view() != key) continue;
      uint64_t nbytes = 0;
      legacy_nbytes(t, &nbytes);  // checked at parse
      const auto* s = segments_->Get(t->segment_index());
      bytes->data = map_.data() + segment_base_ + s->offset() + t->offset();
      bytes->size = static_cast<size_t>(nbytes);
      if (layout) *layout = nullptr;
      return true;
    }
  }
  return false;
}

bool DataFile::entry(size_t index, DataEntry* out) const {
  *out = DataEntry();
  size_t nnamed = named_ ? named_->size() : 0;
  if (index < nnamed) {
    const auto* e = named_->Get(static_cast<uint32_t>(index));
    const auto* s = segments_->Get(e->segment_index());
    out->key = e->key()->string_view();
    out->bytes = {map_.data() + segment_base_ + s->offset(), static_cast<size_t>(s->size())};
    const auto* l = root_ ? e->tensor_layout() : nullptr;
    if (l) {
      out->has_layout = true;
      out->scalar_type = static_cast<int>(l->scalar_type());
      if (l->sizes()) out->sizes.assign(l->sizes()->begin(), l->sizes()->end());
      if (l->dim_order()) out->dim_order.assign(l->dim_order()->begin(), l->dim_order()->end());
    }
    return true;
  }
  index -= nnamed;
  if (!legacy_ || !legacy_->tensors() || index >= legacy_->tensors()->size()) return false;
  const auto* t = legacy_->tensors()->Get(static_cast<uint32_t>(index));
  uint64_t nbytes = 0;
  legacy_nbytes(t, &nbytes);
  const auto* s = segments_->Get(t->segment_index());
  out->key = t->fqn()->string_view();
  out->bytes = {map_.data() + segment_base_ + s->offset() + t->offset(), static_cast<size_t>(nbytes)};
  out->has_layout = true;
  out->scalar_type = t->scalar_type();
  if (t->sizes()) out->sizes.assign(t->sizes()->begin(), t->sizes()->end());
  if (t->dim_order()) out->dim_order.assign(t->dim_order()->begin(), t->dim_order()->end());
  return true;
}

// ---------------------------------------------------------------- programs

Status Program::open_file(const std::string& path, const OpenOptions& options,
                          std::unique_ptr<Program>* out) {
  auto map = std::make_unique<FileMap>();
  Status s = map->open(path);
  if (!s) return s.with_default_code(ErrorCode::FileUnreadable);
  std::unique_ptr<LoadedProgram> p;
  s = LoadedProgram::create(std::move(map), path, options, &p);
  if (!s) return s.with_default_code(ErrorCode::Load);
  *out = std::move(p);
  return Status::ok();
}

Status Program::open_buffer(const void* data, size_t size, const std::string& name,
                            const OpenOptions& options, std::unique_ptr<Program>* out) {
  if (!data && size > 0) return Status::error(ErrorCode::InvalidArgument, name + ": a null buffer of " + num(size) + " bytes");
  auto map = std::make_unique<FileMap>();
  map->wrap(data, size);
  if (!map->data() && size > 0)
    return Status::error(ErrorCode::OutOfMemory, name + ": cannot allocate " + num(size) + " bytes for an aligned copy of the buffer");
  std::unique_ptr<LoadedProgram> p;
  Status s = LoadedProgram::create(std::move(map), name, options, &p);
  if (!s) return s.with_default_code(ErrorCode::Load);
  *out = std::move(p);
  return Status::ok();
}

Status LoadedProgram::create(std::unique_ptr<FileMap> map, const std::string& name,
                             const OpenOptions& options, std::unique_ptr<LoadedProgram>* out) {
  std::unique_ptr<LoadedProgram> p(new LoadedProgram());
  p->map_ = std::move(map);
  p->info_.path = name;
  p->info_.file_bytes = p->map_->size();
  Status s = p->parse(options);
  if (!s) return s.context(name).with_default_code(ErrorCode::Malformed);
  for (const std::string& f : options.data_files) {
    auto df = std::make_unique<DataFile>();
    s = df->open(f);
    if (!s) return s.with_default_code(ErrorCode::DataFileInvalid);
    p->info_.external_bytes += df->data_bytes();
    p->data_files_.push_back(std::move(df));
  }
  s = p->build_info();
  if (!s) return s.context(name).with_default_code(ErrorCode::Malformed);
  *out = std::move(p);
  return Status::ok();
}

Status LoadedProgram::parse(const OpenOptions& options) {
  const uint8_t* d = map_->data();
  const size_t n = map_->size();
  if (n < 8) return Status::error(ErrorCode::Truncated, identify(d, n));
  if (std::memcmp(d + 4, "ET12", 4) != 0)
    return Status::error(d[4] == 'E' && d[5] == 'T' && isdigit(d[6]) && isdigit(d[7]) ? ErrorCode::UnsupportedVersion : ErrorCode::NotAProgram,
                         identify(d, n));
  uint32_t root_off = read_u32(d);
  if (root_off < 8 || root_off > n - 4) return Status::error("root table offset " + num(root_off) + " lies outside the file (" + num(n) + " bytes)");

  program_size_ = n;
  segment_base_ = 0;
  uint64_t segment_data_size = 0;
  if (n >= 32 && std::memcmp(d + 8, "eh00", 4) == 0) {
    info_.extended_header = true;
    uint32_t hlen = read_u32(d + 12);
    if (hlen < 24) return Status::error("extended header length " + num(hlen) + " is below 24");
    program_size_ = read_u64(d + 16);
    segment_base_ = read_u64(d + 24);
    if (hlen >= 32 && n >= 40) segment_data_size = read_u64(d + 32);
    if (program_size_ > n)
      return Status::error(ErrorCode::Truncated, "header says the program is " + num(program_size_) + " bytes but the file has " + num(n) + ": truncated?");
    if (program_size_ < root_off + 4u) return Status::error("header program size " + num(program_size_) + " is smaller than the root offset");
    if (segment_base_ != 0 && segment_base_ < program_size_)
      return Status::error("segment base offset " + num(segment_base_) + " lies inside the program (" + num(program_size_) + " bytes)");
    if (segment_base_ > n) return Status::error(ErrorCode::Truncated, "segment base offset " + num(segment_base_) + " lies past the end of the file (" + num(n) + " bytes): truncated?");
    if (segment_data_size > 0 && !fits(segment_base_, segment_data_size, n))
      return Status::error(ErrorCode::Truncated, "segment data [" + num(segment_base_) + "+" + num(segment_data_size) + "] exceeds the file (" + num(n) + " bytes): truncated?");
  }

  if (options.verify || true) {
    // The verifier always runs: it is what makes every later table access safe.
    flatbuffers::Verifier v(d, static_cast<size_t>(program_size_), kMaxVerifierDepth, kMaxVerifierTables);
    if (!v.VerifyBuffer<fb::Program>(nullptr))
      return Status::error(ErrorCode::Malformed, "flatbuffer verification failed: the program is corrupt or truncated");
  }
  root_ = fb::GetProgram(d);
  PTE_TRY(check_tables());
  info_.version = root_->version();

  // Segments: absolute extent inside the file.
  const auto* segs = root_->segments();
  uint32_t nseg = segs ? segs->size() : 0;
  for (uint32_t i = 0; i < nseg; ++i) {
    const auto* s = segs->Get(i);
    uint64_t base = segment_base_;
    if (!fits(base, s->offset(), n) || !fits(base + s->offset(), s->size(), n))
      return Status::error(ErrorCode::Truncated, "segment " + num(i) + " [" + num(s->offset()) + "+" + num(s->size()) + "] from base " + num(base) +
                           " lies outside the file (" + num(n) + " bytes): truncated?");
    if (s->size() > 0 && base == 0 && !info_.extended_header)
      return Status::error("segment " + num(i) + " has data but the file has no extended header giving the segment base");
    info_.segments.push_back({base + s->offset(), s->size()});
  }

  // Constants: the current single segment, or the legacy inline buffers.
  const auto* cs = root_->constant_segment();
  bool have_segment_constants = cs && cs->offsets() && cs->offsets()->size() > 1;
  bool have_legacy = root_->constant_buffer() && root_->constant_buffer()->size() > 1;
  if (have_segment_constants && have_legacy)
    return Status::error("both constant_segment and the legacy constant_buffer hold data");
  if (have_segment_constants) {
    if (cs->segment_index() >= nseg)
      return Status::error("constant segment index " + num(cs->segment_index()) + " out of range (" + num(nseg) + " segments)");
    PTE_TRY(segment(cs->segment_index(), &constant_segment_));
    for (uint32_t k = 1; k < cs->offsets()->size(); ++k)
      if (cs->offsets()->Get(k) > constant_segment_.size)
        return Status::error("constant " + num(k) + " offset " + num(cs->offsets()->Get(k)) + " lies past its segment (" +
                             num(constant_segment_.size) + " bytes)");
    info_.constant_bytes = constant_segment_.size;
  } else if (have_legacy) {
    info_.legacy_constant_buffer = true;
    for (const auto* b : *root_->constant_buffer())
      if (b->storage()) info_.constant_bytes += b->storage()->size();
  }

  if (const auto* mds = root_->mutable_data_segments()) {
    for (uint32_t k = 0; k < mds->size(); ++k) {
      const auto* m = mds->Get(k);
      if (m->segment_index() >= nseg)
        return Status::error("mutable data segment " + num(k) + " refers to segment " + num(m->segment_index()) + " of " + num(nseg));
    }
  }
  if (const auto* nd = root_->named_data()) {
    std::vector<bool> counted(nseg, false);
    for (uint32_t k = 0; k < nd->size(); ++k) {
      const auto* e = nd->Get(k);
      if (!e->key()) return Status::error("named data entry " + num(k) + " has no key");
      if (e->segment_index() >= nseg)
        return Status::error("named data '" + printable(e->key()->string_view()) + "' refers to segment " + num(e->segment_index()) + " of " + num(nseg));
      if (!counted[e->segment_index()]) {
        counted[e->segment_index()] = true;
        info_.named_data_bytes += segs->Get(e->segment_index())->size();
      }
    }
    info_.named_data_entries = nd->size();
  }
  if (!root_->execution_plan() || root_->execution_plan()->size() == 0)
    return Status::error("the program has no methods");
  return Status::ok();
}

// Checks the verifier cannot make:
// - a union whose type is set but whose value is absent passes verification, and
//   every reader would then dereference null: such values and instructions are
//   refused here, so val_as_X() / instr_args_as_X() of the stated type are never
//   null afterwards;
// - identifiers that end up in error messages (method, operator, backend, named
//   data and tensor names) must not hold control characters, so every message
//   stays on one line.
Status LoadedProgram::check_tables() const {
  if (root_->constant_segment() && !aligned8(root_->constant_segment()->offsets()))
    return Status::error("constant segment offsets are misaligned (corrupt file)");
  if (const auto* mds = root_->mutable_data_segments())
    for (uint32_t k = 0; k < mds->size(); ++k)
      if (!aligned8(mds->Get(k)->offsets())) return Status::error("mutable data segment " + num(k) + " offsets are misaligned (corrupt file)");
  const auto* plans = root_->execution_plan();
  for (uint32_t p = 0; plans && p < plans->size(); ++p) {
    const auto* plan = plans->Get(p);
    std::string where = "method " + (plan->name() ? printable(plan->name()->string_view()) : "#" + num(p));
    if (!plain_name(plan->name())) return Status::error("method #" + num(p) + " has a name with control characters");
    if (const auto* values = plan->values()) {
      for (uint32_t k = 0; k < values->size(); ++k) {
        const auto* ev = values->Get(k);
        auto t = ev->val_type();
        if (static_cast<unsigned>(t) > static_cast<unsigned>(fb::KernelTypes::MAX))
          return Status::error(where + ": value " + num(k) + " has unknown type " + num(static_cast<unsigned>(t)));
        if (t != fb::KernelTypes::NONE && t != fb::KernelTypes::Null && !ev->val())
          return Status::error(where + ": value " + num(k) + " has type " + num(static_cast<unsigned>(t)) + " but no data");
        // Lists of 8-byte items are not always 8-aligned in real files (the corpus's
        // xor_training.pte has one); x86-64 and AArch64 read them fine, so they are
        // accepted (the sanitizer build turns off -fsanitize=alignment for this).
        if (t == fb::KernelTypes::Tensor) {
          const auto* extra = ev->val_as_Tensor()->extra_tensor_info();
          if (extra && !plain_name(extra->fully_qualified_name()))
            return Status::error(where + ": value " + num(k) + " has a tensor name with control characters");
        }
      }
    }
    if (!aligned8(plan->non_const_buffer_sizes()))
      return Status::error(where + ": non_const_buffer_sizes is misaligned (corrupt file)");
    if (const auto* ops = plan->operators())
      for (uint32_t k = 0; k < ops->size(); ++k)
        if (!plain_name(ops->Get(k)->name()) || !plain_name(ops->Get(k)->overload()))
          return Status::error(where + ": operator " + num(k) + " has a name with control characters");
    if (const auto* dels = plan->delegates())
      for (uint32_t k = 0; k < dels->size(); ++k)
        if (!plain_name(dels->Get(k)->id()))
          return Status::error(where + ": delegate " + num(k) + " has a backend id with control characters");
    if (const auto* chains = plan->chains()) {
      for (uint32_t c = 0; c < chains->size(); ++c) {
        const auto* ins = chains->Get(c)->instructions();
        if (!ins) continue;
        for (uint32_t k = 0; k < ins->size(); ++k) {
          const auto* in = ins->Get(k);
          auto t = in->instr_args_type();
          if (t == fb::InstructionArguments::NONE || static_cast<unsigned>(t) > static_cast<unsigned>(fb::InstructionArguments::MAX))
            return Status::error(where + ": instruction " + num(k) + " has unknown kind " + num(static_cast<unsigned>(t)));
          if (!in->instr_args())
            return Status::error(where + ": instruction " + num(k) + " has no arguments table");
        }
      }
    }
  }
  if (const auto* nd = root_->named_data())
    for (uint32_t k = 0; k < nd->size(); ++k)
      if (!plain_name(nd->Get(k)->key())) return Status::error("named data entry " + num(k) + " has a key with control characters");
  return Status::ok();
}

Status LoadedProgram::segment(uint32_t index, Bytes* out) const {
  const auto* segs = root_->segments();
  if (!segs || index >= segs->size())
    return Status::error("segment index " + num(index) + " out of range (" + num(segs ? segs->size() : 0) + " segments)");
  const auto* s = segs->Get(index);
  out->data = map_->data() + segment_base_ + s->offset();
  out->size = static_cast<size_t>(s->size());
  return Status::ok();
}

Status LoadedProgram::constant_data(uint32_t idx, size_t nbytes, const uint8_t** out) const {
  const auto* cs = root_->constant_segment();
  if (cs && cs->offsets() && cs->offsets()->size() > 1) {
    if (idx >= cs->offsets()->size())
      return Status::error("constant index " + num(idx) + " out of range (" + num(cs->offsets()->size()) + " constants)");
    uint64_t off = cs->offsets()->Get(idx);
    if (!fits(off, nbytes, constant_segment_.size))
      return Status::error("constant " + num(idx) + " [" + num(off) + "+" + num(nbytes) + "] exceeds the constant segment (" +
                           num(constant_segment_.size) + " bytes)");
    *out = constant_segment_.data + off;
    return Status::ok();
  }
  const auto* cb = root_->constant_buffer();
  if (cb && idx < cb->size()) {
    const auto* st = cb->Get(idx)->storage();
    size_t have = st ? st->size() : 0;
    if (nbytes > have)
      return Status::error("constant buffer " + num(idx) + " holds " + num(have) + " bytes, the tensor needs " + num(nbytes));
    *out = st ? st->data() : nullptr;
    return Status::ok();
  }
  return Status::error("constant index " + num(idx) + " refers to no constant data");
}

Status LoadedProgram::mutable_initial_data(uint32_t idx, size_t nbytes, const uint8_t** out) const {
  const auto* mds = root_->mutable_data_segments();
  if (!mds || mds->size() == 0) return Status::error("mutable tensor refers to initial data but the program has no mutable data segment");
  const auto* m = mds->Get(0);
  Bytes seg;
  PTE_TRY(segment(m->segment_index(), &seg));
  if (!m->offsets() || idx >= m->offsets()->size())
    return Status::error("mutable data index " + num(idx) + " out of range");
  uint64_t off = m->offsets()->Get(idx);
  if (!fits(off, nbytes, seg.size))
    return Status::error("mutable data " + num(idx) + " [" + num(off) + "+" + num(nbytes) + "] exceeds its segment (" + num(seg.size) + " bytes)");
  *out = seg.data + off;
  return Status::ok();
}

bool LoadedProgram::named_data(std::string_view key, Bytes* out) const {
  if (const auto* nd = root_->named_data()) {
    for (const auto* e : *nd) {
      if (e->key()->string_view() != key) continue;
      return segment(e->segment_index(), out).is_ok();
    }
  }
  for (const auto& df : data_files_)
    if (df->find(key, out, nullptr)) return true;
  return false;
}

bool LoadedProgram::external_tensor(std::string_view fqn, Bytes* out,
                                    const flat_tensor_flatbuffer::TensorLayout** layout) const {
  for (const auto& df : data_files_)
    if (df->find(fqn, out, layout)) return true;
  return false;
}

Status LoadedProgram::delegate_blob(const fb::BackendDelegate* del, Bytes* out) const {
  const auto* ref = del->processed();
  if (!ref) return Status::error("delegate has no processed data reference");
  if (ref->location() == fb::DataLocation::INLINE) {
    const auto* inl = root_->backend_delegate_data();
    if (!inl || ref->index() >= inl->size())
      return Status::error("delegate inline data index " + num(ref->index()) + " out of range");
    const auto* data = inl->Get(ref->index())->data();
    out->data = data ? data->data() : nullptr;
    out->size = data ? data->size() : 0;
    return Status::ok();
  }
  if (ref->location() == fb::DataLocation::SEGMENT) return segment(ref->index(), out);
  return Status::error("delegate data location " + num(static_cast<int>(ref->location())) + " is unknown");
}

void LoadedProgram::on_mapping(bool (FileMap::*op)(const void*, size_t) const, const void* p, size_t n) const {
  if (((*map_).*op)(p, n)) return;
  for (const auto& d : data_files_)
    if ((d->map().*op)(p, n)) return;
}

void LoadedProgram::release_pages(const void* p, size_t n) const { on_mapping(&FileMap::release, p, n); }
void LoadedProgram::populate_pages(const void* p, size_t n) const { on_mapping(&FileMap::populate, p, n); }
void LoadedProgram::prefetch_pages(const void* p, size_t n) const { on_mapping(&FileMap::prefetch, p, n); }

int LoadedProgram::find_plan(std::string_view name) const {
  const auto* plans = root_->execution_plan();
  for (uint32_t i = 0; i < plans->size(); ++i)
    if (plans->Get(i)->name() && plans->Get(i)->name()->string_view() == name) return static_cast<int>(i);
  return -1;
}

Status LoadedProgram::build_info() {
  const auto* plans = root_->execution_plan();
  for (uint32_t i = 0; i < plans->size(); ++i) {
    MethodInfo mi;
    Status s = describe_plan(*this, plans->Get(i), &mi);
    if (!s) return s.context("method " + (plans->Get(i)->name() ? printable(plans->Get(i)->name()->string_view()) : "#" + num(i)));
    info_.methods.push_back(std::move(mi));
  }
  return Status::ok();
}

}  // namespace pte
