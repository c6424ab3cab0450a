// pte-run: what this CPU can run, asked in one place (cpuinfo, initialised once).
//
// Every kernel dispatch asks isa::cpu() (x86: AVX, AVX2, FMA3, AVX-512 F/BW/VL/VNNI/BF16,
// BMI2, AMX-INT8; ARM: NEON, dotprod, i8mm, fp16 arithmetic, bf16, SVE). The fields of
// another architecture are false. Also here: the per-ISA forms of a spin-wait pause and of
// flush-to-zero mode, so that code outside the ISA-guarded kernels needs no intrinsics.
#pragma once
#include <cstdint>

namespace pte::isa {

enum class Vendor : uint8_t { Other, Intel, Amd };

struct Features {
  Vendor vendor = Vendor::Other;  // x86: the first core's vendor (kernels tuned per vendor)
  // x86-64
  bool avx = false, avx2 = false, fma3 = false, bmi2 = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512vnni = false, avx512bf16 = false;
  bool amx_int8 = false;  // AMX-TILE + AMX-INT8 with the OS's permission for the tile state
  // ARM (aarch64; armhf reports neon only, and only with VFPv4's fused multiply-adds)
  bool neon = false, dotprod = false, i8mm = false, fp16_arith = false, bf16 = false, sve = false;

  // The classes the kernels dispatch on.
  bool avx2_fma() const { return avx2 && fma3; }
  bool avx512_vnni() const { return avx512f && avx512bw && avx512vl && avx512vnni; }
};

// The features of this CPU (detected on first call; thread-safe).
const Features& cpu();

// One line naming the architecture and the features present ("x86-64: avx2 fma3 ...").
const char* describe();

// A pause inside a spin-wait loop (x86 PAUSE, ARM YIELD).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// Scoped flush-to-zero (results) and denormals-are-zero (inputs), restored on exit:
// x86 MXCSR FTZ | DAZ; aarch64 FPCR.FZ; armhf FPSCR.FZ (ARM's FZ flushes both).
class DenormalsOff {
 public:
  DenormalsOff() : saved_(read()) { write(saved_ | kBits); }
  ~DenormalsOff() { write(saved_); }
  DenormalsOff(const DenormalsOff&) = delete;
  DenormalsOff& operator=(const DenormalsOff&) = delete;
  // The calling thread's whole floating-point control word (MXCSR / FPCR / FPSCR): the claim
  // pool's helpers take the caller's for each job (ops/linalg/claim_pool.cpp).
  static uint64_t control() { return read(); }
  static void set_control(uint64_t v) { write(v); }
  // Whether flush-to-zero is on for the calling thread.
  static bool on() { return kBits != 0 && (read() & kBits) == kBits; }

 private:
#if defined(__x86_64__) || defined(__i386__)
  static constexpr uint64_t kBits = 0x8040u;
  static uint64_t read() { return __builtin_ia32_stmxcsr(); }
  static void write(uint64_t v) { __builtin_ia32_ldmxcsr(static_cast<unsigned>(v)); }
#elif defined(__aarch64__)
  static constexpr uint64_t kBits = uint64_t{1} << 24;
  static uint64_t read() {
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return v;
  }
  static void write(uint64_t v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v)); }
#elif defined(__arm__) && defined(__ARM_FP)
  static constexpr uint64_t kBits = uint64_t{1} << 24;
  static uint64_t read() {
    uint32_t v;
    __asm__ __volatile__("vmrs %0, fpscr" : "=r"(v));
    return v;
  }
  static void write(uint64_t v) { __asm__ __volatile__("vmsr fpscr, %0" : : "r"(static_cast<uint32_t>(v))); }
#else
  static constexpr uint64_t kBits = 0;
  static uint64_t read() { return 0; }
  static void write(uint64_t) {}
#endif
  uint64_t saved_;
};

}  // namespace pte::isa
