/* The floor of the live module: what every runtime adapter, the lane and the
 * host checks share and none of them owns (a lane's notes, a runtime's error
 * message, the namespace names). It calls nothing of live/ above it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "live/live.h"

const char *const sp_ns_names[7] = {"pid", "net", "mnt", "uts", "ipc", "user", "cgroup"};

void sp_lane_note(sp_live_lane *l, const char *fmt, ...)
{
	size_t len = strlen(l->notes);
	if (len && len < sizeof l->notes - 2)
		len += (size_t)snprintf(l->notes + len, sizeof l->notes - len, "; ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->notes + len, sizeof l->notes - len, fmt, ap);
	va_end(ap);
}

void sp_runtime_message(const char *text, char *out, size_t outsz)
{
	out[0] = '\0';
	if (!text)
		return;
	/* the first line that names an error (engines add usage hints after it), else the last line */
	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "\n");
		if (memmem(s, n, "rror", 4) || memmem(s, n, "ERRO", 4) || memmem(s, n, "failed", 6) ||
		    memmem(s, n, "invalid", 7) || memmem(s, n, "unknown", 7)) {
			snprintf(out, outsz, "%.*s", (int)n, s);
			for (char *c = out; *c; c++)
				if ((unsigned char)*c < 0x20)
					*c = ' ';
			return;
		}
		s += n + (s[n] == '\n');
	}
	sp_last_line(text, out, outsz);
}
