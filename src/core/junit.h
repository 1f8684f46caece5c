/* XML text that always parses, and a JUnit XML writer shared by every verb
 * (doctor, live, verify).
 *
 * The JUnit files stay within the rules of the common JUnit schema that
 * Jenkins' xunit plugin, GitLab and GitHub test reporters read
 * (docs/schema/junit.xsd is ours, written from those rules): <testsuites>
 * carries name, tests, failures, errors and time only; every time is seconds
 * with at most 3 decimals; a <testsuite> has properties, then testcases; a
 * <testcase> holds at most one of failure/error/skipped, then system-out.
 *
 * Text is written as well-formed XML 1.0 whatever the bytes: a byte sequence
 * that is not well-formed UTF-8 (RFC 3629) and every code point XML 1.0 does
 * not allow (controls but tab, LF, CR; U+FFFE, U+FFFF) become U+FFFD. */
#ifndef SP_JUNIT_H
#define SP_JUNIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decode the UTF-8 sequence at s (n > 0 bytes available): 1 with its code
 * point in *cp and its length (1..4) in *len when it is well-formed (RFC
 * 3629); 0 when it is not (overlong forms, surrogates, above U+10FFFF,
 * truncated, stray continuation bytes), with *len the bytes of its maximal
 * subpart (>= 1), which one U+FFFD replaces (Unicode's recommended practice,
 * as Python's errors="replace" and WHATWG's decoder do). */
int sp_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp, size_t *len);
/* is cp a Char of XML 1.0 (tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF)? */
int sp_xml_char_ok(uint32_t cp);
/* Copy s into out (size outsz, NUL-terminated, never a split sequence) as
 * well-formed UTF-8: each ill-formed sequence becomes U+FFFD; with xml_only, code
 * points XML 1.0 forbids too; with no_controls, every C0 control and DEL
 * become a space. Returns the bytes written (without the NUL). */
size_t sp_utf8_sanitize(const char *s, char *out, size_t outsz, int xml_only, int no_controls);

/* element content: & < > escaped, CR as &#13; (a parser would drop it) */
void sp_xml_text(FILE *f, const char *s);
/* attribute value (double quotes): & < > " ' escaped, tab/LF/CR as
 * character references (attribute normalisation would turn them into spaces) */
void sp_xml_attr(FILE *f, const char *s);
/* HTML text or attribute value (report, gate): & < > " ' escaped; every
 * control but tab and LF, DEL and what is not well-formed UTF-8 become U+FFFD */
void sp_html_text(FILE *f, const char *s);

/* TAP 13 pieces (core/output.c): a test description (no '#', no controls,
 * valid UTF-8) and one single-quoted YAML scalar line "  key: '...'" of a
 * diagnostic block */
void sp_tap_desc(FILE *f, const char *s);
void sp_tap_yaml(FILE *f, const char *key, const char *v);

typedef enum sp_junit_kind { SP_JUNIT_PASS, SP_JUNIT_FAILURE, SP_JUNIT_ERROR, SP_JUNIT_SKIPPED } sp_junit_kind;

typedef struct sp_junit_case {
	const char *classname; /* may be NULL */
	const char *name;
	double seconds;
	sp_junit_kind kind;
	const char *message; /* the failure/error/skipped message attribute */
	const char *type;    /* failure/error type attribute (NULL: none) */
	const char *text;    /* the failure/error body (NULL: none) */
	const char *out;     /* <system-out> (NULL: none) */
} sp_junit_case;

/* "%.3f" seconds, never negative, never NaN */
void sp_junit_time(char *buf, size_t n, double seconds);
void sp_junit_begin(FILE *f, const char *name, size_t tests, size_t failures, size_t errors, double seconds);
/* timestamp: ISO 8601 (NULL: none) */
void sp_junit_suite_begin(FILE *f, const char *name, size_t tests, size_t failures, size_t errors, size_t skipped,
			  double seconds, const char *timestamp);
/* properties: name/value pairs, n of them (pairs[2*i], pairs[2*i+1]); none: no element */
void sp_junit_properties(FILE *f, const char *const *pairs, size_t n);
void sp_junit_case_write(FILE *f, const sp_junit_case *c);
void sp_junit_suite_end(FILE *f);
void sp_junit_end(FILE *f);

#endif
