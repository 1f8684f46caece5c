#include "core/caps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

static const char *const cap_names[] = {
	"cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner", "cap_fsetid", "cap_kill",
	"cap_setgid", "cap_setuid", "cap_setpcap", "cap_linux_immutable", "cap_net_bind_service",
	"cap_net_broadcast", "cap_net_admin", "cap_net_raw", "cap_ipc_lock", "cap_ipc_owner",
	"cap_sys_module", "cap_sys_rawio", "cap_sys_chroot", "cap_sys_ptrace", "cap_sys_pacct",
	"cap_sys_admin", "cap_sys_boot", "cap_sys_nice", "cap_sys_resource", "cap_sys_time",
	"cap_sys_tty_config", "cap_mknod", "cap_lease", "cap_audit_write", "cap_audit_control",
	"cap_setfcap", "cap_mac_override", "cap_mac_admin", "cap_syslog", "cap_wake_alarm",
	"cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf", "cap_checkpoint_restore",
};

const char *sp_cap_name(unsigned cap)
{
	return cap < SP_ARRAY_SIZE(cap_names) ? cap_names[cap] : NULL;
}

int sp_cap_from_name(const char *name)
{
	char buf[64];
	const char *n = name;
	if (!strncasecmp(n, "cap_", 4))
		n += 4;
	snprintf(buf, sizeof buf, "cap_%s", n);
	for (char *p = buf; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	for (unsigned i = 0; i < SP_ARRAY_SIZE(cap_names); i++)
		if (!strcmp(buf, cap_names[i]))
			return (int)i;
	return -1;
}

unsigned sp_cap_last(void)
{
	char buf[32];
	unsigned long long v;
	if (sp_read_file("/proc/sys/kernel/cap_last_cap", buf, sizeof buf) > 0 && sp_parse_u64(sp_trim(buf), &v) == 0 &&
	    v < 64)
		return (unsigned)v;
	return (unsigned)SP_ARRAY_SIZE(cap_names) - 1;
}

void sp_caps_format(uint64_t mask, char *buf, size_t size)
{
	size_t off = 0;
	buf[0] = '\0';
	if (!mask) {
		snprintf(buf, size, "none");
		return;
	}
	unsigned last = sp_cap_last();
	uint64_t all = last >= 63 ? ~0ull : ((1ull << (last + 1)) - 1);
	if ((mask & all) == all && !(mask & ~all)) {
		snprintf(buf, size, "all %u capabilities", last + 1);
		return;
	}
	if (!(mask & ~all) && (unsigned)__builtin_popcountll(mask) > (last + 1) / 2) {
		/* mostly full: name what is missing */
		char missing[512];
		sp_caps_format(all & ~mask, missing, sizeof missing);
		snprintf(buf, size, "all but %s", missing);
		return;
	}
	for (unsigned i = 0; i < 64; i++) {
		if (!(mask & (1ull << i)))
			continue;
		const char *n = sp_cap_name(i);
		char tmp[32];
		if (!n) {
			snprintf(tmp, sizeof tmp, "cap_%u", i);
			n = tmp;
		}
		int w = snprintf(buf + off, size - off, "%s%s", off ? "," : "", n);
		if (w < 0 || (size_t)w >= size - off)
			break;
		off += (size_t)w;
	}
}

int sp_caps_parse(const char *hex, uint64_t *out)
{
	if (!hex || !*hex)
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(hex, &end, 16);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int sp_caps_mask(char *const *names, size_t n, uint64_t *out, const char **bad)
{
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(names[i], "all")) {
			unsigned last = sp_cap_last();
			m |= last >= 63 ? ~0ull : ((1ull << (last + 1)) - 1);
			continue;
		}
		int c = sp_cap_from_name(names[i]);
		if (c < 0) {
			*bad = names[i];
			return -1;
		}
		m |= 1ull << c;
	}
	*out = m;
	return 0;
}
