/* F05's fault-injecting TCP proxy (sandprobe soak fault-proxy): loopback in,
 * loopback out, its mode re-read from a mode file at each connection. */
#ifndef SP_SOAK_FAULTPROXY_H
#define SP_SOAK_FAULTPROXY_H

#include <stddef.h>

enum sp_fp_mode { SP_FP_PASS,
		  SP_FP_DISCONNECT,
		  SP_FP_TRUNCATE,
		  SP_FP_STALL,
		  SP_FP_SLOW,
		  SP_FP_REDIRECT };

typedef struct {
	enum sp_fp_mode mode;
	long arg; /* truncate: bytes delivered; slow: bytes/s; redirect: port */
} sp_fp_mode_t;

/* Parse one mode line ("pass", "disconnect", "truncate:N", "stall",
 * "slow:BPS", "redirect:PORT"; a trailing newline allowed). 0, or -1 with a
 * reason in why. */
int sp_fp_mode_parse(const char *text, size_t len, sp_fp_mode_t *out, const char **why);

/* argv[0] is "fault-proxy"; returns the exit code */
int sp_soak_fault_proxy_main(int argc, char **argv);

#endif
