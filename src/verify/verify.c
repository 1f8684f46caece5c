/* The verify dispatch (verify.h). */
#include "verify/verify.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "a3s/a3s.h"

int sp_verify(const char *dir, const sp_ev_verify_opts *o, sp_ev_verdict *v, sp_error *err)
{
	struct stat st;
	memset(v, 0, sizeof *v);
	if (stat(dir, &st) < 0)
		return sp_usage(err, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sp_usage(err, "%s: not a directory", dir);
	enum sp_input in = o->input == SP_INPUT_AUTO ? sp_input_detect(dir) : o->input;
	if (in == SP_INPUT_A3S)
		return sp_a3s_verify(dir, o, v, err);
	return sp_ev_verify(dir, o, v, err);
}
