/* A qemu-user TCG plugin that counts the guest instructions a program executes and prints
 * the total at exit ("insns N" on stderr). Used by bench/arm/insn_per_token.sh to compare
 * kernels on ARM where timing under emulation means nothing.
 *
 * Written against qemu's plugin ABI version 1 (qemu 7.2, Debian bookworm); only the few
 * entry points below are used, declared here rather than taken from qemu's header, which
 * is not packaged. Build: cc -shared -fPIC -O2 -o insn_count.so insn_count.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb* tb,
                                          void (*cb)(unsigned int vcpu_index, void* userdata),
                                          enum qemu_plugin_cb_flags flags, void* userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t id, void* userdata),
                                    void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t total;  /* every guest thread adds here (atomically) */

static void on_exec(unsigned int vcpu, void* n) {
  (void)vcpu;
  __atomic_fetch_add(&total, (uint64_t)(uintptr_t)n, __ATOMIC_RELAXED);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS,
                                       (void*)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void* p) {
  (void)id;
  (void)p;
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
