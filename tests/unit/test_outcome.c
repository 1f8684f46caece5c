/* sp_outcome: the reason a helper hands its caller. */
#include <errno.h>
#include <string.h>

#include "core/outcome.h"
#include "tap.h"

static int parse_port(const char *s, sp_outcome *o)
{
	if (!*s)
		return sp_why(o, "port: empty");
	if (strcmp(s, "80"))
		return sp_why_errno(o, ERANGE, "port %s: %s", s, strerror(ERANGE));
	return 80;
}

int main(void)
{
	sp_outcome o = {0};
	is_int(parse_port("80", &o), 80, "success leaves the outcome alone");
	is_str(o.why, "", "no reason on success");
	is_int(parse_port("", &o), -1, "a failure returns -1");
	is_str(o.why, "port: empty", "the reason is the format's text");
	is_int(o.errnum, 0, "no errno when no call failed");
	is_int(parse_port("99999", &o), -1, "a failure with an errno");
	is_int(o.errnum, ERANGE, "the errno is kept");
	is_str(o.why, "port 99999: Numerical result out of range", "the text is the format's, nothing appended");
	sp_why_prefix(&o, "policy key %s", "net.port");
	is_str(o.why, "policy key net.port: port 99999: Numerical result out of range", "the prefix goes first");
	char big[2000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	sp_why(&o, "%s", big);
	is_int((int)strlen(o.why), (int)sizeof o.why - 1, "a long reason is cut to the buffer");
	sp_why_prefix(&o, "ctx");
	is_int((int)strlen(o.why), (int)sizeof o.why - 1, "a prefix never overruns");
	like_str(o.why, "ctx: xxx", "the prefix survives the cut");
	return done_testing();
}
