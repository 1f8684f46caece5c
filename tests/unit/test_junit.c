/* The XML/UTF-8 layer under every JUnit file (core/junit.c): the UTF-8
 * decoder against RFC 3629's table and against an independent decoder
 * (Python's, errors="replace", the same maximal-subpart rule), the escapers
 * against an independent XML parser (expat, through Python) and libxml2
 * (xmllint), and the JUnit writer against docs/schema/junit.xsd. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/junit.h"
#include "core/util.h"
#include "unit/tap.h"

static char dir[] = "/tmp/sp-test-junit.XXXXXX";

static int decode(const char *s, uint32_t *cp, size_t *len)
{
	return sp_utf8_decode((const unsigned char *)s, strlen(s), cp, len);
}

static void table(void)
{
	static const struct {
		const char *in;
		int good;
		size_t len;
		uint32_t cp;
	} t[] = {
		{"A", 1, 1, 0x41},
		{"\x7f", 1, 1, 0x7F},
		{"\xc2\x80", 1, 2, 0x80},
		{"\xdf\xbf", 1, 2, 0x7FF},
		{"\xe0\xa0\x80", 1, 3, 0x800},
		{"\xed\x9f\xbf", 1, 3, 0xD7FF},
		{"\xee\x80\x80", 1, 3, 0xE000},
		{"\xef\xbf\xbd", 1, 3, 0xFFFD},
		{"\xf0\x90\x80\x80", 1, 4, 0x10000},
		{"\xf4\x8f\xbf\xbf", 1, 4, 0x10FFFF},
		{"\x80", 0, 1, 0},             /* stray continuation */
		{"\xc0\xaf", 0, 1, 0},         /* overlong '/' */
		{"\xc1\xbf", 0, 1, 0},         /* overlong */
		{"\xe0\x9f\xbf", 0, 1, 0},     /* overlong 3-byte */
		{"\xed\xa0\x80", 0, 1, 0},     /* surrogate U+D800 */
		{"\xf0\x8f\xbf\xbf", 0, 1, 0}, /* overlong 4-byte */
		{"\xf4\x90\x80\x80", 0, 1, 0}, /* above U+10FFFF */
		{"\xf5\x80\x80\x80", 0, 1, 0},
		{"\xff", 0, 1, 0},
		{"\xe2\x82", 0, 2, 0},         /* truncated: maximal subpart of 2 */
		{"\xf0\x9f\x98", 0, 3, 0},     /* truncated 4-byte: 3 */
		{"\xe2\x28\xa1", 0, 1, 0},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(t); i++) {
		uint32_t cp = 0;
		size_t len = 0;
		int good = decode(t[i].in, &cp, &len);
		ok(good == t[i].good && len == t[i].len && (!good || cp == t[i].cp), "decode case %zu: good %d len %zu cp U+%04X",
		   i, good, len, (unsigned)cp);
	}
	char out[64];
	sp_utf8_sanitize("a\xff" "b\x01" "c", out, sizeof out, 1, 0);
	is_str(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c", "sanitize for XML: invalid byte and C0 control become U+FFFD");
	sp_utf8_sanitize("a\tb\nc", out, sizeof out, 1, 1);
	is_str(out, "a b c", "sanitize without controls: tab and LF become spaces");
	sp_utf8_sanitize("\xe2\x82\xac\xe2\x82\xac", out, 6, 1, 0);
	is_str(out, "\xe2\x82\xac", "sanitize never splits a sequence at the buffer's end");

	char t1[40];
	sp_junit_time(t1, sizeof t1, 0.0004);
	is_str(t1, "0.000", "time: 3 decimals");
	sp_junit_time(t1, sizeof t1, 1.23456);
	is_str(t1, "1.235", "time rounds to milliseconds");
	sp_junit_time(t1, sizeof t1, -1);
	is_str(t1, "0.000", "negative time is 0");
	sp_junit_time(t1, sizeof t1, NAN);
	is_str(t1, "0.000", "NaN time is 0");
}

/* random strings biased to the bytes where UTF-8 and XML have edges */
static void random_string(char *buf, size_t max, unsigned *seed)
{
	static const unsigned char edge[] = {0x01, 0x09, 0x0a, 0x0d, 0x1f, 0x7f, '&', '<', '>', '"', '\'', ']', 'a', ' ',
					     0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1,
					     0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xfe, 0xff, 0xbe};
	size_t n = 1 + (size_t)(rand_r(seed) % (int)(max - 1));
	for (size_t i = 0; i < n; i++) {
		int r = rand_r(seed);
		unsigned char b = (r & 1) ? edge[(r >> 1) % (int)sizeof edge] : (unsigned char)(1 + (r >> 1) % 255);
		buf[i] = (char)b;
	}
	buf[n] = '\0';
}

static void hex(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		fprintf(f, "%02x", *p);
	fputc('\n', f);
}

static const char *const PY_DECODE =
	"import sys\n"
	"def xmlok(c):\n"
	"    o = ord(c)\n"
	"    return o in (9, 10, 13) or 0x20 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or 0x10000 <= o <= 0x10FFFF\n"
	"bad = 0; n = 0\n"
	"for line in open(sys.argv[1]):\n"
	"    i, a, x = line.split()\n"
	"    u = bytes.fromhex(i).decode('utf-8', 'replace')\n"
	"    ux = ''.join(c if xmlok(c) else '\\ufffd' for c in u)\n"
	"    n += 1\n"
	"    if u.encode().hex() != a or ux.encode().hex() != x:\n"
	"        bad += 1\n"
	"        if bad < 5: print('# mismatch', i, a, u.encode().hex(), x, ux.encode().hex())\n"
	"print(n, bad)\n";

static const char *const PY_XML =
	"import sys, xml.etree.ElementTree as ET\n"
	"root = ET.parse(sys.argv[1]).getroot()\n"
	"want = [bytes.fromhex(l.strip()).decode() for l in open(sys.argv[2])]\n"
	"bad = 0; n = 0\n"
	"for e, w in zip(root, want):\n"
	"    n += 1\n"
	"    if e.get('a') != w or (e.text or '') != w:\n"
	"        bad += 1\n"
	"        if bad < 5: print('# mismatch', repr(w), repr(e.get('a')), repr(e.text))\n"
	"print(n, bad)\n";

static int run_py(const char *script, const char *a1, const char *a2, long *n, long *bad)
{
	char *sp = sp_xasprintf("%s/s.py", dir);
	FILE *f = fopen(sp, "w");
	fputs(script, f);
	fclose(f);
	char *cmd = sp_xasprintf("/usr/bin/python3 %s %s %s", sp, a1, a2 ? a2 : "");
	FILE *p = popen(cmd, "r");
	char line[512];
	int got = 0;
	while (p && fgets(line, sizeof line, p)) {
		if (line[0] == '#')
			fputs(line, stdout);
		else if (sscanf(line, "%ld %ld", n, bad) == 2)
			got = 1;
	}
	int rc = p ? pclose(p) : -1;
	free(cmd);
	free(sp);
	return got && rc == 0 ? 0 : -1;
}

static void against_python_and_libxml2(void)
{
	enum { N = 20000 };
	char *in = sp_xasprintf("%s/strings", dir), *xmlp = sp_xasprintf("%s/doc.xml", dir),
	     *want = sp_xasprintf("%s/want", dir);
	FILE *fi = fopen(in, "w"), *fx = fopen(xmlp, "w"), *fw = fopen(want, "w");
	unsigned seed = 17;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r>\n", fx);
	for (int i = 0; i < N + 65536; i++) {
		char s[16], a[64], x[64];
		if (i < 65536) { /* every 2-byte string (and 1-byte ones, where the low byte is 0) */
			s[0] = (char)(i >> 8 ? i >> 8 : 'a');
			s[1] = (char)(i & 0xff);
			s[2] = '\0';
			if (!s[1])
				s[1] = '\0';
		} else {
			random_string(s, sizeof s, &seed);
		}
		sp_utf8_sanitize(s, a, sizeof a, 0, 0);
		sp_utf8_sanitize(s, x, sizeof x, 1, 0);
		for (const unsigned char *p = (const unsigned char *)s; *p; p++)
			fprintf(fi, "%02x", *p);
		fputc(' ', fi);
		for (const unsigned char *p = (const unsigned char *)a; *p; p++)
			fprintf(fi, "%02x", *p);
		fputc(' ', fi);
		for (const unsigned char *p = (const unsigned char *)x; *p; p++)
			fprintf(fi, "%02x", *p);
		fputc('\n', fi);
		fputs("<e a=\"", fx);
		sp_xml_attr(fx, s);
		fputs("\">", fx);
		sp_xml_text(fx, s);
		fputs("</e>\n", fx);
		hex(fw, x);
	}
	fputs("</r>\n", fx);
	fclose(fi);
	fclose(fx);
	fclose(fw);
	long n = 0, bad = -1;
	if (run_py(PY_DECODE, in, NULL, &n, &bad) < 0) {
		ok(0, "python3 decodes the strings");
	} else {
		is_int(n, N + 65536, "python3 decoded every string");
		is_int(bad, 0, "sanitize agrees with Python's UTF-8 decoder (errors=replace) and XML's Char rule on %ld strings", n);
	}
	n = 0, bad = -1;
	if (run_py(PY_XML, xmlp, want, &n, &bad) < 0) {
		ok(0, "expat parses the escaped document");
	} else {
		is_int(n, N + 65536, "expat read every element");
		is_int(bad, 0, "attribute and text read back exactly as the sanitized string (%ld elements)", n);
	}
	char *cmd = sp_xasprintf("xmllint --noout %s 2>&1", xmlp);
	FILE *p = popen(cmd, "r");
	char line[512];
	int lines = 0;
	while (fgets(line, sizeof line, p))
		if (lines++ < 3)
			printf("# %s", line);
	is_int(pclose(p), 0, "xmllint (libxml2) parses the escaped document");
	is_int(lines, 0, "with no message");
	free(cmd);
	free(in);
	free(xmlp);
	free(want);
}

static void junit_schema(void)
{
	char *path = sp_xasprintf("%s/junit.xml", dir);
	FILE *f = fopen(path, "w");
	sp_junit_begin(f, "n\xff<&>\"'", 3, 1, 1, 1234.56789);
	sp_junit_suite_begin(f, "suite \x01\xc0", 3, 1, 1, 1, 0.5, "2026-01-01T00:00:00Z");
	const char *props[] = {"k\"", "v\t\n\r]]>", "path", "/tmp/\xfe\xff"};
	sp_junit_properties(f, props, 2);
	sp_junit_case c = {.classname = "cat\x7f", .name = "id\xed\xa0\x80", .seconds = 1e-7, .kind = SP_JUNIT_FAILURE,
			   .message = "m]]>\x02", .type = "t", .text = "expected: a\nobserved: \xe2\x82"};
	sp_junit_case_write(f, &c);
	c.kind = SP_JUNIT_ERROR;
	c.out = "out ]]> <![CDATA[ x";
	sp_junit_case_write(f, &c);
	c.kind = SP_JUNIT_SKIPPED;
	c.out = NULL;
	sp_junit_case_write(f, &c);
	sp_junit_suite_end(f);
	sp_junit_end(f);
	fclose(f);
	const char *root = getenv("SP_ROOT");
	char *cmd = sp_xasprintf("xmllint --noout --schema %s/docs/schema/junit.xsd %s 2>&1", root ? root : ".", path);
	FILE *p = popen(cmd, "r");
	char line[1024];
	int errors = 0;
	while (fgets(line, sizeof line, p))
		if (!strstr(line, "validates")) {
			errors++;
			printf("# %s", line);
		}
	is_int(pclose(p), 0, "hostile strings in every field: the JUnit file validates against docs/schema/junit.xsd");
	is_int(errors, 0, "no schema or parser message");
	char *ts = sp_xasprintf("grep -c 'time=\"1234.568\"' %s", path);
	FILE *q = popen(ts, "r");
	int cnt = 0;
	if (fscanf(q, "%d", &cnt) != 1)
		cnt = -1;
	pclose(q);
	is_int(cnt, 1, "the testsuites time is seconds with 3 decimals");
	free(ts);
	free(cmd);
	free(path);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	table();
	against_python_and_libxml2();
	junit_schema();
	char *rm = sp_xasprintf("rm -rf %s", dir);
	if (system(rm) != 0)
		printf("# could not remove %s\n", dir);
	free(rm);
	return done_testing();
}
