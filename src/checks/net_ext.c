/* The children other modules add to the network batch (see net_ext.h). */
#include "checks/net_ext.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static struct {
	sp_netchild *c;
	size_t n, cap;
	unsigned max_ms;
} ext;

/* the registered modules, sorted by order (filled before main runs) */
static struct {
	const sp_net_ext_module *m[SP_NET_EXT_MAX];
	size_t n;
} mods;

void sp_net_ext_register(const sp_net_ext_module *m)
{
	if (mods.n == SP_NET_EXT_MAX)
		abort(); /* a program error: raise SP_NET_EXT_MAX */
	size_t i = mods.n++;
	for (; i > 0 && mods.m[i - 1]->order > m->order; i--)
		mods.m[i] = mods.m[i - 1];
	mods.m[i] = m;
}

size_t sp_net_ext_add(int (*fn)(void *arg, int fd), void *arg, void *out, size_t outsz, unsigned timeout_ms)
{
	if (ext.n == ext.cap) {
		ext.cap = ext.cap ? ext.cap * 2 : 16;
		ext.c = sp_xrealloc(ext.c, ext.cap * sizeof *ext.c);
	}
	sp_netchild *c = &ext.c[ext.n];
	memset(c, 0, sizeof *c);
	c->fn = fn;
	c->arg = arg;
	c->out = out;
	c->outsz = outsz;
	/* the probe keeps its own deadline of timeout_ms; the engine gives it a
	 * little more to report what it saw at that deadline */
	c->timeout_ms = timeout_ms + SP_NET_EXT_GRACE_MS;
	c->fd = -1;
	c->pid = -1;
	if (c->timeout_ms > ext.max_ms)
		ext.max_ms = c->timeout_ms;
	return ext.n++;
}

unsigned sp_net_ext_build(const sp_ctx *ctx, const sp_proxy_plan *proxy, unsigned egress_timeout_ms)
{
	sp_net_ext_reset();
	for (size_t i = 0; i < mods.n; i++)
		mods.m[i]->build(ctx, proxy, egress_timeout_ms);
	return ext.max_ms;
}

sp_netchild *sp_net_ext_children(size_t *n)
{
	*n = ext.n;
	return ext.c;
}

size_t sp_net_ext_wire_size(void)
{
	size_t s = ext.n * sizeof *ext.c;
	for (size_t i = 0; i < ext.n; i++)
		s += ext.c[i].outsz;
	return s;
}

int sp_net_ext_write(int fd)
{
	int w = ext.n ? sp_write_all(fd, ext.c, ext.n * sizeof *ext.c) : 0;
	for (size_t i = 0; i < ext.n && !w; i++)
		w = sp_write_all(fd, ext.c[i].out, ext.c[i].outsz);
	return w;
}

void sp_net_ext_read(const char *buf)
{
	/* the children are the same objects in the batch child (a fork): the
	 * pointers they hold are valid here */
	if (ext.n)
		memcpy(ext.c, buf, ext.n * sizeof *ext.c);
	buf += ext.n * sizeof *ext.c;
	for (size_t i = 0; i < ext.n; i++) {
		memcpy(ext.c[i].out, buf, ext.c[i].outsz);
		buf += ext.c[i].outsz;
	}
}

const sp_netchild *sp_net_ext_get(size_t idx)
{
	return idx < ext.n ? &ext.c[idx] : NULL;
}

const char *sp_net_ext_failure(size_t idx)
{
	const sp_netchild *c = sp_net_ext_get(idx);
	if (!c)
		return "the probe was not run";
	if (c->start_err)
		return "could not fork the probe";
	if (c->timed_out)
		return "no answer before the deadline (the probe was killed)";
	if (!c->done)
		return "the probe died without a verdict";
	return NULL;
}

void sp_net_ext_reset(void)
{
	for (size_t i = 0; i < mods.n; i++)
		mods.m[i]->reset();
	free(ext.c);
	memset(&ext, 0, sizeof ext);
}
