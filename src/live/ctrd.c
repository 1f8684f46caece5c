/* containerd's gRPC API for the teardown proof's lists, spoken directly:
 * HTTP/2 (libnghttp2: framing, HPACK, flow control) with prior knowledge on
 * the unix socket, one POST per list with the namespace in the
 * containerd-namespace header, as ctr sends it; the reply's messages decoded
 * here (a protobuf walker for the three fields read). See ctrd.h. */
#include "live/ctrd.h"

#include "core/spawn.h"
#include "live/live.h"

#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- protobuf: the fields of one message, in order */

struct pb_field {
	uint32_t no, wt;
	uint64_t v;         /* a varint's value; a LEN field's length */
	const uint8_t *val; /* a LEN field's bytes */
};

static int pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* the next field of [*p, end): 1, 0 at the end, -1 malformed */
static int pb_next(const uint8_t **p, const uint8_t *end, struct pb_field *f)
{
	if (*p >= end)
		return 0;
	uint64_t key;
	if (pb_varint(p, end, &key) < 0 || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -1;
	f->no = (uint32_t)(key >> 3);
	f->wt = (uint32_t)(key & 7);
	f->val = NULL;
	switch (f->wt) {
	case 0: return pb_varint(p, end, &f->v) < 0 ? -1 : 1;
	case 1:
	case 5: {
		size_t n = f->wt == 1 ? 8 : 4;
		if ((size_t)(end - *p) < n)
			return -1;
		*p += n;
		return 1;
	}
	case 2:
		if (pb_varint(p, end, &f->v) < 0 || f->v > (uint64_t)(end - *p))
			return -1;
		f->val = *p;
		*p += f->v;
		return 1;
	default: return -1; /* groups (3, 4) are not in these messages; 6, 7 do not exist */
	}
}

/* string field `no` of a message (the last one given, as protobuf reads it); 0 with none */
static int pb_string(const uint8_t *m, size_t len, uint32_t no, const uint8_t **s, size_t *slen)
{
	const uint8_t *p = m, *end = m + len;
	struct pb_field f;
	int r;
	*s = NULL;
	*slen = 0;
	while ((r = pb_next(&p, end, &f)) == 1)
		if (f.no == no) {
			if (f.wt != 2)
				return -1;
			*s = f.val;
			*slen = (size_t)f.v;
		}
	return r;
}

static void push_id(sp_strv *ids, const uint8_t *s, size_t n)
{
	char *t = sp_xstrndup((const char *)s, n);
	sp_strv_push(ids, t);
	free(t);
}

/* one reply message: its repeated field 1 (containers, tasks, info), each entry's id fields */
static int parse_msg(enum sp_ctrd_kind kind, const uint8_t *m, size_t len, sp_strv *ids)
{
	const uint8_t *p = m, *end = m + len;
	struct pb_field f;
	int r;
	while ((r = pb_next(&p, end, &f)) == 1) {
		if (f.no != 1)
			continue;
		if (f.wt != 2)
			return -1;
		const uint8_t *s;
		size_t n;
		/* Container.id = 1, Snapshot Info.name = 1; a task's Process: container_id = 1, id = 2 */
		if (pb_string(f.val, (size_t)f.v, 1, &s, &n) < 0)
			return -1;
		if (s && n)
			push_id(ids, s, n);
		if (kind == SP_CTRD_TASKS) {
			if (pb_string(f.val, (size_t)f.v, 2, &s, &n) < 0)
				return -1;
			if (s && n)
				push_id(ids, s, n);
		}
	}
	return r;
}

int sp_ctrd_parse(enum sp_ctrd_kind kind, const uint8_t *body, size_t len, sp_strv *ids)
{
	size_t off = 0;
	while (off < len) {
		if (len - off < 5)
			return -1;
		if (body[off] != 0) /* compressed: never asked for */
			return -1;
		uint32_t n = (uint32_t)body[off + 1] << 24 | (uint32_t)body[off + 2] << 16 | (uint32_t)body[off + 3] << 8 |
			     body[off + 4];
		off += 5;
		if (n > len - off)
			return -1;
		if (parse_msg(kind, body + off, n, ids) < 0)
			return -1;
		off += n;
	}
	return 0;
}

const char *sp_ctrd_snapshotter(void)
{
	const char *e = getenv("CONTAINERD_SNAPSHOTTER");
	return e && *e ? e : "overlayfs";
}

/* ---- one unary (or server-streaming) call */

#define REPLY_MAX (16u << 20)

struct call {
	int fd;
	const uint8_t *req;
	size_t reqlen, sent;
	int32_t sid;
	uint8_t *body;
	size_t blen, bcap;
	bool closed, too_big;
	uint32_t h2_error;
	int http_status, grpc_status; /* -1: not given */
	char grpc_msg[160];
};

static ssize_t on_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *ud)
{
	(void)s;
	(void)flags;
	struct call *c = ud;
	ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? NGHTTP2_ERR_WOULDBLOCK : NGHTTP2_ERR_CALLBACK_FAILURE;
	return n;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t sid, const uint8_t *data, size_t len, void *ud)
{
	(void)s;
	(void)flags;
	struct call *c = ud;
	if (sid != c->sid)
		return 0;
	if (len > REPLY_MAX - c->blen) {
		c->too_big = true;
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	if (c->blen + len > c->bcap) {
		c->bcap = (c->blen + len) * 2;
		c->body = sp_xrealloc(c->body, c->bcap);
	}
	memcpy(c->body + c->blen, data, len);
	c->blen += len;
	return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *fr, const uint8_t *name, size_t nlen, const uint8_t *value,
		     size_t vlen, uint8_t flags, void *ud)
{
	(void)s;
	(void)flags;
	struct call *c = ud;
	if (fr->hd.stream_id != c->sid)
		return 0;
	char v[160];
	snprintf(v, sizeof v, "%.*s", (int)(vlen < sizeof v ? vlen : sizeof v - 1), (const char *)value);
	if (nlen == 7 && !memcmp(name, ":status", 7))
		c->http_status = atoi(v);
	else if (nlen == 11 && !memcmp(name, "grpc-status", 11))
		c->grpc_status = atoi(v);
	else if (nlen == 12 && !memcmp(name, "grpc-message", 12))
		snprintf(c->grpc_msg, sizeof c->grpc_msg, "%s", v);
	return 0;
}

static int on_close(nghttp2_session *s, int32_t sid, uint32_t code, void *ud)
{
	(void)s;
	struct call *c = ud;
	if (sid == c->sid) {
		c->closed = true;
		c->h2_error = code;
	}
	return 0;
}

static ssize_t on_read_req(nghttp2_session *s, int32_t sid, uint8_t *buf, size_t len, uint32_t *dflags,
			   nghttp2_data_source *src, void *ud)
{
	(void)s;
	(void)sid;
	(void)src;
	struct call *c = ud;
	size_t n = c->reqlen - c->sent;
	if (n > len)
		n = len;
	memcpy(buf, c->req + c->sent, n);
	c->sent += n;
	if (c->sent == c->reqlen)
		*dflags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static int dial(const char *addr, sp_outcome *o)
{
	const char *path = strncmp(addr, "unix://", 7) ? addr : addr + 7;
	int fd = sp_unix_connect(path, false, o);
	if (fd < 0)
		sp_why_errno(o, o->errnum, "cannot connect to containerd at %s: %s", path, strerror(o->errnum));
	return fd;
}

static nghttp2_nv hdr(const char *n, const char *v)
{
	nghttp2_nv h = {(uint8_t *)n, (uint8_t *)v, strlen(n), strlen(v), NGHTTP2_NV_FLAG_NONE};
	return h;
}

static int call_api(const char *addr, const char *ns, const char *method, const uint8_t *msg, size_t msglen,
		    struct call *c, unsigned timeout_ms, sp_outcome *o)
{
	uint8_t req[600];
	memset(c, 0, sizeof *c);
	if (msglen > sizeof req - 5) {
		sp_why(o, "request too long");
		return -1;
	}
	req[0] = 0;
	req[1] = (uint8_t)(msglen >> 24);
	req[2] = (uint8_t)(msglen >> 16);
	req[3] = (uint8_t)(msglen >> 8);
	req[4] = (uint8_t)msglen;
	if (msglen)
		memcpy(req + 5, msg, msglen);
	c->req = req;
	c->reqlen = msglen + 5;
	c->http_status = c->grpc_status = -1;
	c->fd = dial(addr, o);
	if (c->fd < 0)
		return -1;
	nghttp2_session_callbacks *cbs;
	nghttp2_session *s = NULL;
	int ret = -1;
	if (nghttp2_session_callbacks_new(&cbs) != 0) {
		sp_why(o, "out of memory");
		close(c->fd);
		return -1;
	}
	nghttp2_session_callbacks_set_send_callback(cbs, on_send);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data);
	nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_close);
	int nr = nghttp2_session_client_new(&s, cbs, c);
	nghttp2_session_callbacks_del(cbs);
	if (nr != 0) {
		sp_why(o, "HTTP/2 session: %s", nghttp2_strerror(nr));
		close(c->fd);
		return -1;
	}
	nghttp2_nv h[] = {hdr(":method", "POST"),
			  hdr(":scheme", "http"),
			  hdr(":path", method),
			  hdr(":authority", "localhost"),
			  hdr("content-type", "application/grpc"),
			  hdr("te", "trailers"),
			  hdr("containerd-namespace", ns)};
	nghttp2_data_provider dp = {.read_callback = on_read_req};
	nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, NULL, 0);
	c->sid = nghttp2_submit_request(s, NULL, h, sizeof h / sizeof *h, &dp, NULL);
	if (c->sid < 0) {
		sp_why(o, "HTTP/2 request: %s", nghttp2_strerror(c->sid));
		goto out;
	}
	uint64_t end = sp_now_ns() + (uint64_t)timeout_ms * SP_NS_PER_MS;
	uint8_t buf[16384];
	while (!c->closed) {
		int e = nghttp2_session_send(s);
		if (e != 0) {
			sp_why(o, "HTTP/2 send to containerd: %s", nghttp2_strerror(e));
			goto out;
		}
		uint64_t now = sp_now_ns();
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		int pr = now < end ? poll(&pfd, 1, (int)((end - now) / SP_NS_PER_MS) + 1) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			sp_why(o, "containerd at %s did not answer %s in %u ms", addr, method, timeout_ms);
			goto out;
		}
		ssize_t n = read(c->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sp_why(o, "containerd at %s closed the connection during %s", addr, method);
			goto out;
		}
		ssize_t m = nghttp2_session_mem_recv(s, buf, (size_t)n);
		if (m < 0) {
			sp_why(o, "%s from containerd at %s: %s", c->too_big ? "a reply over 16 MiB" : "bad HTTP/2", addr,
			       nghttp2_strerror((int)m));
			goto out;
		}
	}
	if (c->h2_error) {
		sp_why(o, "containerd reset %s (HTTP/2 error %u)", method, c->h2_error);
	} else if (c->http_status != 200) {
		sp_why(o, "containerd answered %s with HTTP status %d", method, c->http_status);
	} else if (c->grpc_status != 0) {
		sp_why(o, "containerd answered %s with gRPC status %d%s%s", method, c->grpc_status,
		       c->grpc_msg[0] ? ": " : "", c->grpc_msg);
	} else {
		ret = 0;
	}
out:
	nghttp2_session_del(s);
	close(c->fd);
	return ret;
}

int sp_ctrd_list(const char *addr, const char *ns, enum sp_ctrd_kind kind, sp_strv *ids, unsigned timeout_ms, sp_outcome *o)
{
	static const char *const methods[] = {
		[SP_CTRD_CONTAINERS] = "/containerd.services.containers.v1.Containers/List",
		[SP_CTRD_TASKS] = "/containerd.services.tasks.v1.Tasks/List",
		[SP_CTRD_SNAPSHOTS] = "/containerd.services.snapshots.v1.Snapshots/List",
	};
	uint8_t msg[300];
	size_t mlen = 0;
	if (kind == SP_CTRD_SNAPSHOTS) { /* ListSnapshotsRequest.snapshotter = 1 */
		const char *sn = sp_ctrd_snapshotter();
		size_t n = strlen(sn);
		if (n > 127) {
			sp_why(o, "snapshotter name too long: %.40s...", sn);
			return -1;
		}
		msg[0] = (1 << 3) | 2;
		msg[1] = (uint8_t)n;
		memcpy(msg + 2, sn, n);
		mlen = n + 2;
	}
	struct call c;
	if (call_api(addr, ns, methods[kind], msg, mlen, &c, timeout_ms, o) < 0) {
		free(c.body);
		return -1;
	}
	int r = sp_ctrd_parse(kind, c.body, c.blen, ids);
	if (r < 0)
		sp_why(o, "containerd's reply to %s is malformed (%zu bytes)", methods[kind], c.blen);
	free(c.body);
	return r;
}

static const char *const kind_names[] = {"container", "task", "snapshot"};

static int holds_ctr(const char *addr, const char *ns, const char *id, unsigned mask, char *what, size_t whatsz)
{
	static const char *const sub[] = {"containers", "tasks", "snapshots"};
	char *argvs_store[3][10];
	char **argvs[3];
	int kinds[3];
	size_t n = 0;
	for (int k = 0; k < 3; k++) {
		if (!(mask & (1u << k)))
			continue;
		char **a = argvs_store[n];
		size_t i = 0;
		a[i++] = "ctr";
		a[i++] = "--address";
		a[i++] = (char *)addr;
		a[i++] = "--namespace";
		a[i++] = (char *)ns;
		a[i++] = (char *)sub[k];
		a[i++] = "ls";
		if (k != SP_CTRD_SNAPSHOTS)
			a[i++] = "-q";
		a[i] = NULL;
		argvs[n] = a;
		kinds[n++] = k;
	}
	int rc[3];
	char *out[3] = {0}, *err[3] = {0};
	sp_run_cmds((char **const *)argvs, n, rc, out, err, 20000);
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		if (rc[i] != 0) {
			char msg[200];
			sp_runtime_message(err[i], msg, sizeof msg);
			snprintf(what, whatsz, "ctr %s ls fails (exit %d): %s", sub[kinds[i]], rc[i], msg);
			ret = -1;
		} else if (out[i] && strstr(out[i], id)) {
			snprintf(what, whatsz, "containerd still lists %s %s in namespace %s", kind_names[kinds[i]], id, ns);
			ret = 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		free(out[i]);
		free(err[i]);
	}
	return ret;
}

int sp_ctrd_holds(const char *addr, const char *ns, const char *id, unsigned mask, char *what, size_t whatsz, char *by,
		  size_t bysz)
{
	sp_outcome o = {0};
	int ret = 0;
	for (int k = 0; k < 3 && !ret; k++) {
		if (!(mask & (1u << k)))
			continue;
		sp_strv ids;
		sp_strv_split(&ids, NULL, ",");
		if (sp_ctrd_list(addr, ns, (enum sp_ctrd_kind)k, &ids, 10000, &o) < 0) {
			sp_strv_free(&ids);
			char p[4096];
			if (!sp_which("ctr", p, sizeof p)) {
				snprintf(what, whatsz, "cannot ask containerd: its API: %.399s; ctr not installed", o.why);
				snprintf(by, bysz, "neither containerd's API nor ctr");
				return -1;
			}
			snprintf(by, bysz, "ctr (containerd's API: %.399s)", o.why);
			return holds_ctr(addr, ns, id, mask, what, whatsz);
		}
		for (size_t i = 0; i < ids.n && !ret; i++)
			if (strstr(ids.v[i], id)) {
				snprintf(what, whatsz, "containerd still lists %s %s in namespace %s", kind_names[k], ids.v[i], ns);
				ret = 1;
			}
		sp_strv_free(&ids);
	}
	snprintf(by, bysz, "containerd's API");
	return ret;
}
