/* Unit tests for live/ctrd.c's reading of containerd's gRPC replies: the
 * length-prefixed messages of Containers/List, Tasks/List and (streamed,
 * several messages) Snapshots/List, built here byte by byte as protobuf
 * encodes them, with fields this code skips (varint, fixed32, fixed64,
 * nested) around the ids; every malformed body (cut prefix, compressed flag,
 * a length past the end, a bad varint, a group, field 1 of the wrong wire
 * type, an id field that is not bytes) is refused.
 * With SP_T_CTRD="ADDR NS" it prints the three lists of a live containerd,
 * one "KIND ID" line each, with SP_T_CTRD_HOLDS="ADDR NS ID" what
 * sp_ctrd_holds answers (tests/live/ctrd_api.t compares them with ctr's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/ctrd.h"
#include "unit/tap.h"

struct b {
	uint8_t v[4096];
	size_t n;
};

static void put(struct b *b, const void *p, size_t n)
{
	memcpy(b->v + b->n, p, n);
	b->n += n;
}

static void varint(struct b *b, uint64_t x)
{
	while (x >= 0x80) {
		b->v[b->n++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	b->v[b->n++] = (uint8_t)x;
}

static void field_bytes(struct b *b, uint32_t no, const void *p, size_t n)
{
	varint(b, (uint64_t)no << 3 | 2);
	varint(b, n);
	put(b, p, n);
}

static void field_str(struct b *b, uint32_t no, const char *s)
{
	field_bytes(b, no, s, strlen(s));
}

/* a gRPC frame around message m */
static void frame(struct b *out, const struct b *m)
{
	uint8_t h[5] = {0, (uint8_t)(m->n >> 24), (uint8_t)(m->n >> 16), (uint8_t)(m->n >> 8), (uint8_t)m->n};
	put(out, h, 5);
	put(out, m->v, m->n);
}

static char *joined(const sp_strv *ids)
{
	static char s[1024];
	s[0] = '\0';
	for (size_t i = 0; i < ids->n; i++)
		snprintf(s + strlen(s), sizeof s - strlen(s), "%s%s", i ? "," : "", ids->v[i]);
	return s;
}

static int parse(enum sp_ctrd_kind k, const struct b *body, char *out, size_t outsz)
{
	sp_strv ids;
	sp_strv_split(&ids, NULL, ",");
	int r = sp_ctrd_parse(k, body->v, body->n, &ids);
	snprintf(out, outsz, "%s", joined(&ids));
	sp_strv_free(&ids);
	return r;
}

static int live(const char *spec)
{
	char addr[512], ns[128];
	if (sscanf(spec, "%511s %127s", addr, ns) != 2)
		return 2;
	static const char *const names[] = {"container", "task", "snapshot"};
	for (int k = 0; k < 3; k++) {
		sp_strv ids;
		sp_strv_split(&ids, NULL, ",");
		sp_outcome o = {0};
		if (sp_ctrd_list(addr, ns, (enum sp_ctrd_kind)k, &ids, 5000, &o) < 0) {
			printf("error %s %.511s\n", names[k], o.why);
			sp_strv_free(&ids);
			return 1;
		}
		for (size_t i = 0; i < ids.n; i++)
			printf("%s %s\n", names[k], ids.v[i]);
		sp_strv_free(&ids);
	}
	return 0;
}

/* SP_T_CTRD_HOLDS="ADDR NS ID": sp_ctrd_holds over containers, tasks and snapshots */
static int holds(const char *spec)
{
	char addr[512], ns[128], id[128], what[600], by[600];
	if (sscanf(spec, "%511s %127s %127s", addr, ns, id) != 3)
		return 2;
	int r = sp_ctrd_holds(addr, ns, id, 7, what, sizeof what, by, sizeof by);
	printf("%d\n%s\n%s\n", r, what, by);
	return 0;
}

int main(void)
{
	if (getenv("SP_T_CTRD"))
		return live(getenv("SP_T_CTRD"));
	if (getenv("SP_T_CTRD_HOLDS"))
		return holds(getenv("SP_T_CTRD_HOLDS"));
	char got[1024];
	struct b body = {0}, msg = {0}, ent = {0};

	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), 0, "an empty body: no message, no id");
	is_str(got, "", "... none");

	/* ListContainersResponse { repeated Container containers = 1 }, Container { id = 1, labels = 2, ... } */
	field_str(&ent, 1, "c1");
	field_str(&ent, 3, "docker.io/library/x:1"); /* image */
	varint(&ent, 9 << 3 | 0);                    /* an unknown varint */
	varint(&ent, 300);
	field_bytes(&msg, 1, ent.v, ent.n);
	ent.n = 0;
	varint(&ent, 4 << 3 | 5); /* fixed32 */
	put(&ent, "abcd", 4);
	field_str(&ent, 1, "c2-long-name");
	varint(&ent, 5 << 3 | 1); /* fixed64 */
	put(&ent, "abcdefgh", 8);
	field_bytes(&msg, 1, ent.v, ent.n);
	varint(&msg, 2 << 3 | 0); /* a field of the response this code does not read */
	varint(&msg, 7);
	frame(&body, &msg);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), 0, "containers: a reply with two");
	is_str(got, "c1,c2-long-name", "containers: both ids, unknown fields skipped");

	/* a Container whose id field is given twice: protobuf keeps the last */
	body.n = msg.n = ent.n = 0;
	field_str(&ent, 1, "first");
	field_str(&ent, 1, "last");
	field_bytes(&msg, 1, ent.v, ent.n);
	ent.n = 0;
	field_str(&ent, 2, "no id here"); /* a container without an id is no id */
	field_bytes(&msg, 1, ent.v, ent.n);
	frame(&body, &msg);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), 0, "containers: a repeated id field");
	is_str(got, "last", "containers: the last id counts, an entry without one adds none");

	/* ListTasksResponse { repeated Process tasks = 1 }, Process { container_id = 1, id = 2, pid = 3 } */
	body.n = msg.n = ent.n = 0;
	field_str(&ent, 1, "ctr-a");
	field_str(&ent, 2, "ctr-a");
	varint(&ent, 3 << 3 | 0);
	varint(&ent, 4242);
	field_bytes(&msg, 1, ent.v, ent.n);
	ent.n = 0;
	field_str(&ent, 2, "exec-b");
	field_bytes(&msg, 1, ent.v, ent.n);
	frame(&body, &msg);
	is_int(parse(SP_CTRD_TASKS, &body, got, sizeof got), 0, "tasks: a reply with two");
	is_str(got, "ctr-a,ctr-a,exec-b", "tasks: each task's container id and process id");
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), 0, "the same read as containers");
	is_str(got, "ctr-a", "... only field 1 of each entry");

	/* Snapshots/List streams: several ListSnapshotsResponse { repeated Info info = 1 }, Info { name = 1 } */
	body.n = 0;
	for (int i = 0; i < 3; i++) {
		msg.n = ent.n = 0;
		char nm[16];
		snprintf(nm, sizeof nm, "snap%d", i);
		field_str(&ent, 1, nm);
		field_str(&ent, 2, "parent");
		field_bytes(&msg, 1, ent.v, ent.n);
		frame(&body, &msg);
	}
	msg.n = 0;
	frame(&body, &msg); /* an empty message */
	is_int(parse(SP_CTRD_SNAPSHOTS, &body, got, sizeof got), 0, "snapshots: a stream of four messages");
	is_str(got, "snap0,snap1,snap2", "snapshots: every message's names");

	/* malformed */
	struct b good = body;
	body.n = good.n - 1;
	is_int(parse(SP_CTRD_SNAPSHOTS, &body, got, sizeof got), -1, "a body cut inside its last frame: refused");
	body.n = 3;
	is_int(parse(SP_CTRD_SNAPSHOTS, &body, got, sizeof got), -1, "a cut frame prefix: refused");
	body = good;
	body.v[0] = 1;
	is_int(parse(SP_CTRD_SNAPSHOTS, &body, got, sizeof got), -1, "a compressed message (never asked for): refused");
	body = good;
	body.v[1] = 0x7f;
	is_int(parse(SP_CTRD_SNAPSHOTS, &body, got, sizeof got), -1, "a frame length past the end: refused");

	const uint8_t bad_varint[] = {0, 0, 0, 0, 11, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	body.n = 0;
	put(&body, bad_varint, 5 + 11);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), -1, "a varint of more than ten bytes: refused");
	const uint8_t group[] = {0, 0, 0, 0, 2, 0x0b, 0x0c};
	body.n = 0;
	put(&body, group, sizeof group);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), -1, "a group (wire type 3): refused");
	const uint8_t f1_varint[] = {0, 0, 0, 0, 2, 0x08, 0x01};
	body.n = 0;
	put(&body, f1_varint, sizeof f1_varint);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), -1, "field 1 of the reply as a varint: refused");
	const uint8_t id_varint[] = {0, 0, 0, 0, 4, 0x0a, 0x02, 0x08, 0x05};
	body.n = 0;
	put(&body, id_varint, sizeof id_varint);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), -1, "an entry whose id is a varint: refused");
	const uint8_t len_past[] = {0, 0, 0, 0, 3, 0x0a, 0x09, 0x0a};
	body.n = 0;
	put(&body, len_past, sizeof len_past);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), -1, "an entry longer than its message: refused");
	const uint8_t field0[] = {0, 0, 0, 0, 2, 0x02, 0x00};
	body.n = 0;
	put(&body, field0, sizeof field0);
	is_int(parse(SP_CTRD_CONTAINERS, &body, got, sizeof got), -1, "field number 0: refused");
	is_str(sp_ctrd_snapshotter(), getenv("CONTAINERD_SNAPSHOTTER") && *getenv("CONTAINERD_SNAPSHOTTER") ? getenv("CONTAINERD_SNAPSHOTTER") : "overlayfs",
	       "the default snapshotter is ctr's");
	return done_testing();
}
