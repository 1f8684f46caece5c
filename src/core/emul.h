/* User-mode emulation (qemu-user): a doctor built for another architecture
 * runs inside an emulator that translates its system calls, answers some
 * itself (ENOSYS for what it does not implement, EINVAL for clone flags it
 * cannot honour) and fakes /proc/self/exe. Checks whose verdict rests on
 * what the kernel answers such calls (SP_CHECK_NOEMU) skip there. */
#ifndef SP_EMUL_H
#define SP_EMUL_H

#include <stdbool.h>
#include <stddef.h>

/* True when the kernel runs another executable than the one this process
 * was told it is: readlink("/proc/self/exe"), which qemu-user rewrites to
 * the guest program, against readlinkat() of "exe" under an O_PATH handle
 * of /proc/self, which it passes to the kernel unchanged. how (if not NULL)
 * gets the evidence either way. Computed once per process. */
bool sp_user_emulation(char *how, size_t size);

#endif
