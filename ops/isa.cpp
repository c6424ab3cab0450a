// ISA detection (see isa.h): cpuinfo for everything it knows; what Debian bookworm's
// cpuinfo (a 2022 snapshot) does not know comes from the same sources it reads: x86 AMX
// from CPUID leaf 7 and Linux's tile-state permission, ARM i8mm from the kernel's
// hardware capabilities (getauxval). Where cpuinfo cannot initialise on ARM (it parses
// /proc/cpuinfo, which under qemu-user is the host's), the hardware capabilities answer.
#include "ops/isa.h"

#include <cpuinfo.h>

#include <cstdlib>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace pte::isa {

namespace {

#if defined(__x86_64__) || defined(__i386__)
// CPUID.(7, 0):EDX bit 24 AMX-TILE, bit 25 AMX-INT8, and Linux's permission for the tile
// data state (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA; process-wide).
bool detect_amx_int8() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  if (!((d >> 24) & 1) || !((d >> 25) & 1)) return false;
#if defined(__linux__) && defined(SYS_arch_prctl)
  return syscall(SYS_arch_prctl, 0x1023, 18) == 0;
#else
  return false;
#endif
}
#endif

Features detect() {
  Features f;
  const bool ok = cpuinfo_initialize();
#if defined(__x86_64__) || defined(__i386__)
  if (!ok) return f;
  f.avx = cpuinfo_has_x86_avx();
  f.avx2 = cpuinfo_has_x86_avx2();
  f.fma3 = cpuinfo_has_x86_fma3();
  f.bmi2 = cpuinfo_has_x86_bmi2();
  f.f16c = cpuinfo_has_x86_f16c();
  f.avx512f = cpuinfo_has_x86_avx512f();
  f.avx512bw = cpuinfo_has_x86_avx512bw();
  f.avx512vl = cpuinfo_has_x86_avx512vl();
  f.avx512vnni = cpuinfo_has_x86_avx512vnni();
  f.avx512bf16 = cpuinfo_has_x86_avx512bf16();
  f.amx_int8 = f.avx512_vnni() && detect_amx_int8();
  if (const cpuinfo_core* core = cpuinfo_get_core(0))
    f.vendor = core->vendor == cpuinfo_vendor_amd     ? Vendor::Amd
               : core->vendor == cpuinfo_vendor_intel ? Vendor::Intel
                                                      : Vendor::Other;
#elif defined(__aarch64__)
  if (ok) {
    f.neon = cpuinfo_has_arm_neon();
    f.dotprod = cpuinfo_has_arm_neon_dot();
    f.fp16_arith = cpuinfo_has_arm_neon_fp16_arith();
    f.bf16 = cpuinfo_has_arm_bf16();
    f.sve = cpuinfo_has_arm_sve();
  }
#if defined(__linux__)
  const unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
  if (!ok) {
    f.neon = (hw >> 1) & 1;         // HWCAP_ASIMD
    f.dotprod = (hw >> 20) & 1;     // HWCAP_ASIMDDP
    f.fp16_arith = (hw >> 10) & 1;  // HWCAP_ASIMDHP
    f.sve = (hw >> 22) & 1;         // HWCAP_SVE
    f.bf16 = (hw2 >> 14) & 1;       // HWCAP2_BF16
  }
  f.i8mm = (hw2 >> 13) & 1;  // HWCAP2_I8MM
#endif
#elif defined(__arm__)
  // 32-bit ARM: neon means NEON with VFPv4's fused multiply-adds (NEONv2: Cortex-A7, A15 and
  // later), which the armv7 NEON kernels use; NEON without VFPv4 (A8, A9) takes the scalar ones
  if (ok) f.neon = cpuinfo_has_arm_neon_fma();
#if defined(__linux__)
  const unsigned long hw = getauxval(AT_HWCAP);
  if (!ok) f.neon = ((hw >> 12) & 1) && ((hw >> 16) & 1);  // HWCAP_NEON, HWCAP_VFPv4
#endif
#endif
  (void)ok;
  return f;
}

// The features by the names describe() prints (one table for both).
struct Named {
  bool Features::*field;
  const char* name;
};
constexpr Named kNames[] = {
    {&Features::avx, "avx"},           {&Features::avx2, "avx2"},         {&Features::fma3, "fma3"},
    {&Features::bmi2, "bmi2"},         {&Features::f16c, "f16c"},         {&Features::avx512f, "avx512f"},   {&Features::avx512bw, "avx512bw"},
    {&Features::avx512vl, "avx512vl"}, {&Features::avx512vnni, "avx512vnni"}, {&Features::avx512bf16, "avx512bf16"},
    {&Features::amx_int8, "amx-int8"}, {&Features::neon, "neon"},         {&Features::dotprod, "dotprod"},
    {&Features::i8mm, "i8mm"},         {&Features::fp16_arith, "fp16"},   {&Features::bf16, "bf16"},
    {&Features::sve, "sve"}};

// PTE_ISA_OFF=name,name,... (or "all") turns detected features off, so that every
// dispatch below them runs on this CPU (A/B checks, instruction counts of the scalar
// references under qemu). Unknown names are ignored.
void apply_off(Features* f) {
  const char* e = std::getenv("PTE_ISA_OFF");
  if (!e) return;
  const std::string list = std::string(",") + e + ",";
  for (const Named& n : kNames)
    if (list.find(std::string(",") + n.name + ",") != std::string::npos || list == ",all,") f->*n.field = false;
}

}  // namespace

const Features& cpu() {
  static const Features f = [] {
    Features d = detect();
    apply_off(&d);
    return d;
  }();
  return f;
}

const char* describe() {
  static const std::string s = [] {
    const Features& f = cpu();
#if defined(__x86_64__)
    std::string r = f.vendor == Vendor::Amd ? "x86-64 (AMD):" : f.vendor == Vendor::Intel ? "x86-64 (Intel):" : "x86-64:";
#elif defined(__aarch64__)
    std::string r = "aarch64:";
#elif defined(__arm__)
    std::string r = "arm:";
#else
    std::string r = "other:";
#endif
    for (const Named& n : kNames)
      if (f.*n.field) r += std::string(" ") + n.name;
    return r;
  }();
  return s.c_str();
}

}  // namespace pte::isa
