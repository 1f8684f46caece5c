/* The set-user-ID probe program: a minimal static ELF that exits with the
 * low byte of its effective uid (geteuid, exit). fs.nosuid makes a copy of
 * it set-user-ID to another owner on a mount and runs it: the exit status
 * says whether the bit raised the euid. The live tier plants one in each
 * lane's rootfs (/sandprobe-setuid-probe, owned by nobody) for a doctor that
 * cannot make one; the doctor runs a found one only when its bytes are
 * exactly these. x86-64 only (sp_suid_probe_len 0 elsewhere). */
#ifndef SP_SUID_PROBE_H
#define SP_SUID_PROBE_H

#include <sys/types.h> /* size_t; a libc header, so the object is built fortified like every other */

#define SP_SUID_PROBE_PATH "/sandprobe-setuid-probe"

extern const unsigned char sp_suid_probe_elf[];
extern const size_t sp_suid_probe_len;

#endif
