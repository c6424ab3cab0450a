/* A qemu-user TCG plugin that counts the guest instructions executed per function of the
 * main program (the ELF symbol qemu finds for each translated block's first instruction)
 * and prints, at exit, one line per symbol: "prof COUNT SYMBOL" (mangled; pipe through
 * c++filt), then "insns TOTAL". Code of shared libraries (libc, libXNNPACK) has no symbol
 * here and is summed under "?". Used by bench/arm/insn_profile.sh.
 *
 * Written against qemu's plugin ABI version 1 (qemu 7.2, Debian bookworm), declared here as
 * in insn_count.c. Build: cc -shared -fPIC -O2 -o insn_profile.so insn_profile.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb* tb,
                                          void (*cb)(unsigned int vcpu_index, void* userdata),
                                          enum qemu_plugin_cb_flags flags, void* userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
const char* qemu_plugin_insn_symbol(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t id, void* userdata),
                                    void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One slot per symbol (open addressing on the name pointer qemu returns, which stays
 * valid: it points into qemu's copy of the symbol table). Translated blocks point at
 * their slot; execution adds the block's length there. */
#define SLOTS 65536
struct slot {
  const char* name;
  uint64_t count;
};
static struct slot slots[SLOTS];
static uint64_t total;

static struct slot* slot_for(const char* name) {
  uintptr_t h = ((uintptr_t)name >> 3) * 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < SLOTS; ++i) {
    struct slot* s = &slots[(h + i) & (SLOTS - 1)];
    if (s->name == name) return s;
    if (!s->name) {
      s->name = name;
      return s;
    }
  }
  return &slots[0];  /* full: lumped (never seen with a few thousand functions) */
}

struct block {
  struct slot* s;
  uint64_t n;
};
static struct block blocks[1 << 20];
static size_t nblocks;

static void on_exec(unsigned int vcpu, void* p) {
  (void)vcpu;
  const struct block* b = (const struct block*)p;
  __atomic_fetch_add(&b->s->count, b->n, __ATOMIC_RELAXED);
  __atomic_fetch_add(&total, b->n, __ATOMIC_RELAXED);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  const char* name = n ? qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0)) : NULL;
  size_t i = __atomic_fetch_add(&nblocks, 1, __ATOMIC_RELAXED);
  if (i >= sizeof blocks / sizeof blocks[0]) i = 0;  /* (re-translations past 1 M share a slot) */
  blocks[i].s = slot_for(name ? name : "?");
  blocks[i].n = n;
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, &blocks[i]);
}

static void on_exit(qemu_plugin_id_t id, void* p) {
  (void)id;
  (void)p;
  for (size_t i = 0; i < SLOTS; ++i)
    if (slots[i].name && slots[i].count) fprintf(stderr, "prof %llu %s\n", (unsigned long long)slots[i].count, slots[i].name);
  fprintf(stderr, "insns %llu\n", (unsigned long long)__atomic_load_n(&total, __ATOMIC_RELAXED));
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info,
                                                               int argc, char** argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
