/* The soak runner's per-thread buffers (src/soak/proc.c): one slot per use,
 * the same slot from one call to the next in a thread, another thread's own
 * slots, and a captured text that stays valid while the redaction buffer of
 * the same thread is used. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "soak/bundle.h"
#include "soak/proc.h"
#include "tap.h"

static void *other_thread(void *arg)
{
	sp_soak_tlbuf **out = arg;
	for (int i = 0; i < SP_SOAK_TL_N; i++)
		out[i] = sp_soak_thread_buf((enum sp_soak_tl)i);
	sp_soak_tlbuf *t = out[SP_SOAK_TL_TEXT];
	t->p = malloc(64); /* freed when the thread ends (leak-checked under ASan) */
	t->cap = 64;
	return NULL;
}

int main(void)
{
	sp_soak_tlbuf *mine[SP_SOAK_TL_N], *theirs[SP_SOAK_TL_N];
	for (int i = 0; i < SP_SOAK_TL_N; i++)
		mine[i] = sp_soak_thread_buf((enum sp_soak_tl)i);
	ok(mine[SP_SOAK_TL_CAPTURE] != mine[SP_SOAK_TL_TEXT] && mine[SP_SOAK_TL_TEXT] != mine[SP_SOAK_TL_REDACT] &&
		   mine[SP_SOAK_TL_CAPTURE] != mine[SP_SOAK_TL_REDACT],
	   "one slot per use");
	ok(!mine[SP_SOAK_TL_TEXT]->p && !mine[SP_SOAK_TL_TEXT]->cap, "a slot starts empty");
	ok(sp_soak_thread_buf(SP_SOAK_TL_TEXT) == mine[SP_SOAK_TL_TEXT], "the same slot on the next call");

	pthread_t th;
	ok(pthread_create(&th, NULL, other_thread, theirs) == 0 && pthread_join(th, NULL) == 0, "a second thread runs");
	ok(theirs[SP_SOAK_TL_TEXT] != mine[SP_SOAK_TL_TEXT] && theirs[SP_SOAK_TL_REDACT] != mine[SP_SOAK_TL_REDACT],
	   "another thread has its own slots");
	ok(!mine[SP_SOAK_TL_TEXT]->p, "and fills none of this thread's");

	/* a capture reused from one child to the next: reset each time */
	sp_soak_capture *c = sp_capture_for_thread(64);
	sp_capture_add(c, "hello\n", 6);
	size_t len = 0;
	const char *text = sp_capture_text_thread(c, &len);
	is_str(text, "hello\n", "the captured text");
	ok(sp_capture_for_thread(64) == c && c->head_len == 0 && c->total == 0, "the thread's capture is reset on reuse");
	ok(mine[SP_SOAK_TL_CAPTURE]->p == c, "kept in the capture slot");

	/* the text handed to sp_bundle_log is not the buffer it redacts into */
	sp_capture_add(c, "token=AKIAIOSFODNN7EXAMPLE\n", 27);
	text = sp_capture_text_thread(c, &len);
	char *copy = strdup(text);
	char dir[] = "/tmp/sandprobe-unit.XXXXXX";
	sp_soak_bundle b;
	sp_error err = {0};
	int made = mkdtemp(dir) ? sp_bundle_create(&b, dir, &err) : -1;
	ok(made == 0, "bundle opens: %s", err.msg);
	if (made == 0) {
		sp_bundle_log(&b, "t.log", "## header", text, len);
		is_str(text, copy, "the captured text survives the redaction of the same thread");
		ok(mine[SP_SOAK_TL_REDACT]->p && mine[SP_SOAK_TL_REDACT]->p != mine[SP_SOAK_TL_TEXT]->p,
		   "the redaction has its own buffer");
		sp_bundle_close(&b);
	}
	free(copy);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ok(system(cmd) == 0, "bundle dir removed");
	return done_testing();
}
