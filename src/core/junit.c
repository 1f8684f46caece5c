#include "core/junit.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/util.h"

int sp_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp, size_t *len)
{
	*len = 1;
	if (n == 0)
		return 0;
	unsigned char b = s[0];
	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	/* RFC 3629 section 4: the first byte fixes the length and the range of
	 * the second byte; every later byte is 80..BF */
	size_t want;
	unsigned char lo = 0x80, hi = 0xBF;
	uint32_t v;
	if (b >= 0xC2 && b <= 0xDF) {
		want = 2;
		v = b & 0x1F;
	} else if (b >= 0xE0 && b <= 0xEF) {
		want = 3;
		v = b & 0x0F;
		if (b == 0xE0)
			lo = 0xA0; /* no overlong form */
		else if (b == 0xED)
			hi = 0x9F; /* no surrogate */
	} else if (b >= 0xF0 && b <= 0xF4) {
		want = 4;
		v = b & 0x07;
		if (b == 0xF0)
			lo = 0x90; /* no overlong form */
		else if (b == 0xF4)
			hi = 0x8F; /* nothing above U+10FFFF */
	} else {
		return 0; /* 80..C1 (continuation, overlong lead) and F5..FF */
	}
	/* an ill-formed sequence: *len is its maximal subpart (the longest
	 * prefix of a well-formed one), as Unicode chapter 3 recommends */
	for (size_t i = 1; i < want; i++) {
		unsigned char lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
		if (i >= n || s[i] < lo_i || s[i] > hi_i) {
			*len = i;
			return 0;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	*cp = v;
	*len = want;
	return 1;
}

int sp_xml_char_ok(uint32_t cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
	       (cp >= 0x10000 && cp <= 0x10FFFF);
}

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

size_t sp_utf8_sanitize(const char *s, char *out, size_t outsz, int xml_only, int no_controls)
{
	if (outsz == 0)
		return 0;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), o = 0;
	while (n) {
		uint32_t cp = 0;
		size_t len;
		int good = sp_utf8_decode(p, n, &cp, &len);
		const char *w;
		size_t wl;
		char sp = ' ';
		if (good && no_controls && (cp < 0x20 || cp == 0x7F)) {
			w = &sp;
			wl = 1;
		} else if (good && (!xml_only || sp_xml_char_ok(cp))) {
			w = (const char *)p;
			wl = len;
		} else {
			w = replacement;
			wl = 3;
		}
		if (o + wl >= outsz)
			break; /* never a split sequence */
		memcpy(out + o, w, wl);
		o += wl;
		p += len;
		n -= len;
	}
	out[o] = '\0';
	return o;
}

/* the one escaper, in three modes: XML element content, XML attribute value
 * (quotes and whitespace controls escaped too) and HTML text (quotes escaped,
 * every control but tab and LF, and DEL, replaced) */
enum esc_mode { ESC_TEXT, ESC_ATTR, ESC_HTML };

static void xml_write(FILE *f, const char *s, enum esc_mode mode)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	bool attr = mode == ESC_ATTR, html = mode == ESC_HTML;
	while (n) {
		uint32_t cp = 0;
		size_t len;
		if (!sp_utf8_decode(p, n, &cp, &len) || !sp_xml_char_ok(cp) ||
		    (html && ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f))) {
			fputs(replacement, f);
		} else {
			switch (cp) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break; /* keeps "]]>" out of content */
			case '\r': fputs("&#13;", f); break;
			case '"':
				if (attr || html)
					fputs("&quot;", f);
				else
					fputc('"', f);
				break;
			case '\'':
				if (attr)
					fputs("&apos;", f);
				else if (html)
					fputs("&#39;", f);
				else
					fputc('\'', f);
				break;
			case '\n':
				if (attr)
					fputs("&#10;", f);
				else
					fputc('\n', f);
				break;
			case '\t':
				if (attr)
					fputs("&#9;", f);
				else
					fputc('\t', f);
				break;
			default: fwrite(p, 1, len, f);
			}
		}
		p += len;
		n -= len;
	}
}

void sp_xml_text(FILE *f, const char *s)
{
	xml_write(f, s, ESC_TEXT);
}

void sp_xml_attr(FILE *f, const char *s)
{
	xml_write(f, s, ESC_ATTR);
}

void sp_html_text(FILE *f, const char *s)
{
	xml_write(f, s, ESC_HTML);
}

void sp_junit_time(char *buf, size_t n, double seconds)
{
	if (!(seconds > 0) || isnan(seconds))
		seconds = 0;
	if (seconds > 1e12)
		seconds = 1e12;
	snprintf(buf, n, "%.3f", seconds);
}

void sp_junit_begin(FILE *f, const char *name, size_t tests, size_t failures, size_t errors, double seconds)
{
	char t[40];
	sp_junit_time(t, sizeof t, seconds);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", f);
	sp_xml_attr(f, name);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%s\">\n", tests, failures, errors, t);
}

void sp_junit_suite_begin(FILE *f, const char *name, size_t tests, size_t failures, size_t errors, size_t skipped,
			  double seconds, const char *timestamp)
{
	char t[40];
	sp_junit_time(t, sizeof t, seconds);
	fputs("  <testsuite name=\"", f);
	sp_xml_attr(f, name);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%s\"", tests, failures, errors,
		skipped, t);
	if (timestamp && *timestamp) {
		fputs(" timestamp=\"", f);
		sp_xml_attr(f, timestamp);
		fputc('"', f);
	}
	fputs(">\n", f);
}

void sp_junit_properties(FILE *f, const char *const *pairs, size_t n)
{
	if (!n)
		return;
	fputs("    <properties>\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs("      <property name=\"", f);
		sp_xml_attr(f, pairs[2 * i]);
		fputs("\" value=\"", f);
		sp_xml_attr(f, pairs[2 * i + 1]);
		fputs("\"/>\n", f);
	}
	fputs("    </properties>\n", f);
}

void sp_junit_case_write(FILE *f, const sp_junit_case *c)
{
	char t[40];
	sp_junit_time(t, sizeof t, c->seconds);
	fputs("    <testcase", f);
	if (c->classname) {
		fputs(" classname=\"", f);
		sp_xml_attr(f, c->classname);
		fputc('"', f);
	}
	fputs(" name=\"", f);
	sp_xml_attr(f, c->name);
	fprintf(f, "\" time=\"%s\">\n", t);
	const char *tag = NULL;
	switch (c->kind) {
	case SP_JUNIT_FAILURE: tag = "failure"; break;
	case SP_JUNIT_ERROR: tag = "error"; break;
	case SP_JUNIT_SKIPPED: tag = "skipped"; break;
	case SP_JUNIT_PASS: break;
	}
	if (tag) {
		fprintf(f, "      <%s message=\"", tag);
		sp_xml_attr(f, c->message);
		fputc('"', f);
		if (c->type && c->kind != SP_JUNIT_SKIPPED) {
			fputs(" type=\"", f);
			sp_xml_attr(f, c->type);
			fputc('"', f);
		}
		if (c->text && *c->text && c->kind != SP_JUNIT_SKIPPED) {
			fputc('>', f);
			sp_xml_text(f, c->text);
			fprintf(f, "</%s>\n", tag);
		} else {
			fputs("/>\n", f);
		}
	}
	if (c->out && *c->out) {
		fputs("      <system-out>", f);
		sp_xml_text(f, c->out);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

void sp_junit_suite_end(FILE *f)
{
	fputs("  </testsuite>\n", f);
}

void sp_junit_end(FILE *f)
{
	fputs("</testsuites>\n", f);
}
