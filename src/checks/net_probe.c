/* The network probe engine (see net_probe.h). */
#include "checks/net_probe.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/errqueue.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/probe.h"
#include "checks/types.h"
#include "core/policy.h"
#include "core/util.h"

const char *sp_netclass_name(sp_netclass c)
{
	switch (c) {
	case SP_NC_PENDING: return "pending";
	case SP_NC_CONNECTED: return "connected";
	case SP_NC_REPLIED: return "replied";
	case SP_NC_REFUSED: return "refused";
	case SP_NC_UNREACH: return "unreachable";
	case SP_NC_TIMEOUT: return "timeout";
	case SP_NC_FILTERED: return "filtered";
	case SP_NC_NOFAMILY: return "no-family";
	case SP_NC_ERROR: return "error";
	}
	return "error";
}

bool sp_netclass_leaked(sp_netclass c)
{
	return c == SP_NC_CONNECTED || c == SP_NC_REPLIED || c == SP_NC_REFUSED;
}

bool sp_netclass_blocked(sp_netclass c)
{
	return c == SP_NC_UNREACH || c == SP_NC_TIMEOUT || c == SP_NC_FILTERED || c == SP_NC_NOFAMILY;
}

sp_netclass sp_net_classify_errno(int e)
{
	switch (e) {
	case 0: return SP_NC_CONNECTED;
	case ECONNREFUSED:
	case ECONNRESET: return SP_NC_REFUSED;
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EADDRNOTAVAIL:
	case ENETDOWN:
	case EHOSTDOWN: return SP_NC_UNREACH;
	case ETIMEDOUT: return SP_NC_TIMEOUT;
	case EPERM:
	case EACCES: return SP_NC_FILTERED;
	case EAFNOSUPPORT:
	case EPROTONOSUPPORT:
	case ESOCKTNOSUPPORT:
	case ENOSYS: return SP_NC_NOFAMILY;
	default: return SP_NC_ERROR;
	}
}

static int parse_part(const char *s, size_t len, unsigned long long *v)
{
	if (len == 0)
		return -1;
	unsigned base = 10;
	size_t i = 0;
	if (len > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
		if (len == 2)
			return -1;
	} else if (len > 1 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	unsigned long long acc = 0;
	for (; i < len; i++) {
		unsigned d;
		char ch = s[i];
		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			return -1;
		if (d >= base)
			return -1;
		acc = acc * base + d;
		if (acc > 0xffffffffull)
			return -1;
	}
	*v = acc;
	return 0;
}

int sp_net_parse_ipv4_any(const char *s, uint32_t *out)
{
	unsigned long long parts[4];
	size_t n = 0;
	const char *p = s;
	if (!s || !*s)
		return -1;
	for (;;) {
		size_t len = strcspn(p, ".");
		if (n == 4 || parse_part(p, len, &parts[n]) < 0)
			return -1;
		n++;
		p += len;
		if (!*p)
			break;
		p++; /* '.' */
		if (!*p)
			return -1;
	}
	unsigned long long v;
	switch (n) {
	case 1: v = parts[0]; break;
	case 2:
		if (parts[0] > 0xff || parts[1] > 0xffffff)
			return -1;
		v = parts[0] << 24 | parts[1];
		break;
	case 3:
		if (parts[0] > 0xff || parts[1] > 0xff || parts[2] > 0xffff)
			return -1;
		v = parts[0] << 24 | parts[1] << 16 | parts[2];
		break;
	default:
		for (size_t i = 0; i < 4; i++)
			if (parts[i] > 0xff)
				return -1;
		v = parts[0] << 24 | parts[1] << 16 | parts[2] << 8 | parts[3];
		break;
	}
	*out = (uint32_t)v;
	return 0;
}

const char *sp_ipform_name(sp_ipform f)
{
	static const char *const names[] = {"dotted", "octal", "hex", "integer", "hex-integer", "v4-mapped-ipv6"};
	return f < SP_IPF_COUNT ? names[f] : "?";
}

void sp_ipv4_format(uint32_t a, sp_ipform f, char *buf, size_t size)
{
	unsigned b0 = a >> 24, b1 = (a >> 16) & 0xff, b2 = (a >> 8) & 0xff, b3 = a & 0xff;
	switch (f) {
	case SP_IPF_OCTAL: snprintf(buf, size, "0%o.0%o.0%o.0%o", b0, b1, b2, b3); break;
	case SP_IPF_HEX: snprintf(buf, size, "0x%02x.0x%02x.0x%02x.0x%02x", b0, b1, b2, b3); break;
	case SP_IPF_INTEGER: snprintf(buf, size, "%u", a); break;
	case SP_IPF_HEXINT: snprintf(buf, size, "0x%08x", a); break;
	case SP_IPF_MAPPED: snprintf(buf, size, "::ffff:%u.%u.%u.%u", b0, b1, b2, b3); break;
	case SP_IPF_DOTTED:
	case SP_IPF_COUNT:
	default: snprintf(buf, size, "%u.%u.%u.%u", b0, b1, b2, b3); break;
	}
}

int sp_net_parse_hostport(const char *s, int defport, struct sockaddr_storage *sa, socklen_t *salen, sp_outcome *o)
{
	char host[128];
	const char *port = NULL;
	memset(sa, 0, sizeof *sa);
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (size_t)(end - s - 1) >= sizeof host) {
			sp_why(o, "'%s': unterminated [IPv6] literal", s);
			return -1;
		}
		memcpy(host, s + 1, (size_t)(end - s - 1));
		host[end - s - 1] = '\0';
		if (end[1] == ':')
			port = end + 2;
		else if (end[1]) {
			sp_why(o, "'%s': expected ':port' after ']'", s);
			return -1;
		}
	} else {
		const char *colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon) {
			sp_why(o, "'%s': write IPv6 addresses as [addr]:port", s);
			return -1;
		}
		size_t hl = colon ? (size_t)(colon - s) : strlen(s);
		if (hl >= sizeof host) {
			sp_why(o, "'%s': host too long", s);
			return -1;
		}
		memcpy(host, s, hl);
		host[hl] = '\0';
		if (colon)
			port = colon + 1;
	}
	unsigned pv = (unsigned)defport;
	if (port ? sp_net_parse_port(port, &pv) < 0 : defport <= 0) {
		sp_why(o, "'%s': expected host:port with a port between 1 and 65535", s);
		return -1;
	}
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)pv);
		*salen = sizeof *in4;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)pv);
		*salen = sizeof *in6;
		return 0;
	}
	sp_why(o, "'%s': '%s' is not an IP literal (egress targets are addresses, not names)", s, host);
	return -1;
}

int sp_net_parse_port(const char *s, unsigned *port)
{
	unsigned long long v;
	if (sp_parse_u64(s, &v) < 0 || v == 0 || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

int sp_dns_name_check(const char *name, sp_outcome *o)
{
	size_t total = strlen(name);
	if (total == 0 || total > 254 || (total == 254 && name[253] != '.')) {
		sp_why(o, "'%.80s': a DNS name has 1 to 253 characters", name);
		return -1;
	}
	for (const char *p = name; *p;) {
		size_t len = strcspn(p, ".");
		if (len == 0 || len > 63) {
			sp_why(o, "'%.80s': each label of a DNS name has 1 to 63 characters", name);
			return -1;
		}
		for (size_t i = 0; i < len; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '-' && p[i] != '_') {
				sp_why(o, "'%.80s': '%c' cannot be in a DNS name (letters, digits, '-', '_')",
				       name, p[i]);
				return -1;
			}
		p += len;
		if (*p == '.')
			p++;
	}
	return 0;
}

int sp_net_parse_ip(const char *s, char *canon, size_t size, sp_outcome *o)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, s, &a4) == 1) {
		inet_ntop(AF_INET, &a4, canon, (socklen_t)size);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6) == 1) {
		inet_ntop(AF_INET6, &a6, canon, (socklen_t)size);
		return 0;
	}
	sp_why(o, "'%.80s': expected an IPv4 or IPv6 address", s);
	return -1;
}

int sp_net_parse_name_port(const char *s, unsigned defport, char *host, size_t hsz, unsigned *port, sp_outcome *o)
{
	const char *p = NULL;
	host[0] = '\0';
	*port = defport;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end) {
			sp_why(o, "'%.80s': unterminated [IPv6] literal", s);
			return -1;
		}
		if (end[1] == ':')
			p = end + 2;
		else if (end[1]) {
			sp_why(o, "'%.80s': expected ':port' after ']'", s);
			return -1;
		}
		struct in6_addr a6;
		if ((size_t)(end - s - 1) >= hsz) {
			sp_why(o, "'%.80s': host too long", s);
			return -1;
		}
		snprintf(host, hsz, "%.*s", (int)(end - s - 1), s + 1);
		if (inet_pton(AF_INET6, host, &a6) != 1) {
			sp_why(o, "'%.80s': '%s' is not an IPv6 address", s, host);
			return -1;
		}
	} else {
		const char *colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon) {
			sp_why(o, "'%.80s': write IPv6 addresses as [addr]:port", s);
			return -1;
		}
		size_t hl = colon ? (size_t)(colon - s) : strlen(s);
		if (hl >= hsz) {
			sp_why(o, "'%.80s': host too long", s);
			return -1;
		}
		snprintf(host, hsz, "%.*s", (int)hl, s);
		if (colon)
			p = colon + 1;
		struct in_addr a4;
		if (inet_pton(AF_INET, host, &a4) != 1 && sp_dns_name_check(host, o) < 0)
			return -1;
	}
	if (p && sp_net_parse_port(p, port) < 0) {
		sp_why(o, "'%.80s': the port must be a number from 1 to 65535", s);
		return -1;
	}
	return 0;
}

int sp_net_parse_endpoint(const char *s, struct sockaddr_storage *sa, socklen_t *salen, bool *anyport, sp_outcome *o)
{
	/* a port given is used; without one, the 1 stands for "any" */
	*anyport = false;
	if (sp_net_parse_hostport(s, 0, sa, salen, o) == 0)
		return 0;
	if (sp_net_parse_hostport(s, 1, sa, salen, o) < 0)
		return -1;
	*anyport = true;
	return 0;
}

void sp_net_format_sa(const struct sockaddr *sa, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN] = "?";
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof a);
		snprintf(buf, size, "[%s]:%u", a, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in4 = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &in4->sin_addr, a, sizeof a);
		snprintf(buf, size, "%s:%u", a, ntohs(in4->sin_port));
	}
}

static bool v4_internal(uint32_t a)
{
	return (a >> 24) == 10 || (a >> 24) == 127 || (a >> 24) == 0 || (a >> 16) == 0xa9fe /* 169.254/16 */ ||
	       (a >> 20) == 0xac1 /* 172.16/12 */ || (a >> 16) == 0xc0a8 /* 192.168/16 */ ||
	       (a >> 22) == (100u << 2 | 1) /* 100.64/10 */ || (a >> 28) >= 0xe /* multicast, reserved */;
}

bool sp_net_addr_is_internal(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_internal(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (IN6_IS_ADDR_V4MAPPED(a)) {
		uint32_t v;
		memcpy(&v, &a->s6_addr[12], 4);
		return v4_internal(ntohl(v));
	}
	return IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_UNSPECIFIED(a) ||
	       (a->s6_addr[0] & 0xfe) == 0xfc /* fc00::/7 */ || IN6_IS_ADDR_MULTICAST(a);
}

int sp_dns_build_query(uint8_t *buf, size_t size, uint16_t id, const char *name, uint16_t qtype)
{
	size_t n = 0;
	sp_outcome o = {0};
	if (size < 12 + 2 + 4 || !name || sp_dns_name_check(name, &o) < 0)
		return -1;
	buf[n++] = (uint8_t)(id >> 8);
	buf[n++] = (uint8_t)id;
	buf[n++] = 0x01; /* RD */
	buf[n++] = 0x00;
	buf[n++] = 0;
	buf[n++] = 1; /* QDCOUNT */
	memset(buf + n, 0, 6);
	n += 6;
	const char *p = name;
	while (*p) {
		size_t len = strcspn(p, ".");
		if (len == 0 || len > 63 || n + len + 1 + 5 > size)
			return -1;
		buf[n++] = (uint8_t)len;
		memcpy(buf + n, p, len);
		n += len;
		p += len;
		if (*p == '.')
			p++;
	}
	if (n > 12 + 255)
		return -1;
	buf[n++] = 0;
	buf[n++] = (uint8_t)(qtype >> 8);
	buf[n++] = (uint8_t)qtype;
	buf[n++] = 0;
	buf[n++] = 1; /* IN */
	return (int)n;
}

/* skip a (possibly compressed) name; returns the offset after it or -1 */
static long skip_name(const uint8_t *b, size_t len, size_t off)
{
	for (int guard = 0; guard < 128; guard++) {
		if (off >= len)
			return -1;
		uint8_t l = b[off];
		if (l == 0)
			return (long)off + 1;
		if ((l & 0xc0) == 0xc0)
			return off + 2 <= len ? (long)off + 2 : -1;
		if (l & 0xc0)
			return -1;
		off += 1u + l;
	}
	return -1;
}

int sp_dns_parse_reply(const uint8_t *b, size_t len, uint16_t id, sp_dns_answer *out)
{
	memset(out, 0, sizeof *out);
	if (len < 12)
		return -1;
	if ((uint16_t)(b[0] << 8 | b[1]) != id || !(b[2] & 0x80))
		return -1;
	out->rcode = b[3] & 0x0f;
	out->truncated = (b[2] & 0x02) != 0;
	unsigned qd = (unsigned)(b[4] << 8 | b[5]), an = (unsigned)(b[6] << 8 | b[7]);
	long off = 12;
	for (unsigned i = 0; i < qd; i++) {
		off = skip_name(b, len, (size_t)off);
		if (off < 0 || (size_t)off + 4 > len)
			return -1;
		off += 4;
	}
	for (unsigned i = 0; i < an; i++) {
		off = skip_name(b, len, (size_t)off);
		if (off < 0 || (size_t)off + 10 > len)
			return -1;
		unsigned type = (unsigned)(b[off] << 8 | b[off + 1]);
		unsigned rdlen = (unsigned)(b[off + 8] << 8 | b[off + 9]);
		off += 10;
		if ((size_t)off + rdlen > len)
			return -1;
		if ((type == 1 && rdlen == 4) || (type == 28 && rdlen == 16)) {
			if (out->nanswers < SP_ARRAY_SIZE(out->addrs))
				inet_ntop(type == 1 ? AF_INET : AF_INET6, b + off, out->addrs[out->nanswers],
					  sizeof out->addrs[0]);
			out->nanswers++;
		}
		off += rdlen;
	}
	return 0;
}

bool sp_net_addr_is_own(const struct sockaddr *sa)
{
	struct sockaddr_storage b;
	socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return false;
	memcpy(&b, sa, len);
	if (b.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&b)->sin6_port = 0;
		const struct in6_addr *a = &((struct sockaddr_in6 *)&b)->sin6_addr;
		if (IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127))
			return true;
	} else {
		((struct sockaddr_in *)&b)->sin_port = 0;
		if ((ntohl(((struct sockaddr_in *)&b)->sin_addr.s_addr) >> 24) == 127)
			return true;
	}
	int fd = socket(b.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	if (b.ss_family == AF_INET6) {
		int off = 0;
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
	}
	bool own = bind(fd, (struct sockaddr *)&b, len) == 0;
	close(fd);
	return own;
}

bool sp_netprobe_reached_outside(const sp_netprobe *p)
{
	return sp_netclass_leaked(p->cls) && !p->own_dest && !p->local_refusal;
}

/* a UDP refusal: who sent the ICMP error (IP_RECVERR queued it) */
static void refusal_origin(sp_netprobe *p)
{
	char ctl[512];
	uint8_t data[64];
	struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
	struct sockaddr_storage from;
	struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	if (recvmsg(p->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		bool v4 = cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_RECVERR;
		bool v6 = cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_RECVERR;
		if (!v4 && !v6)
			continue;
		struct sock_extended_err ee;
		memcpy(&ee, CMSG_DATA(cm), sizeof ee);
		if (ee.ee_origin != SO_EE_ORIGIN_ICMP && ee.ee_origin != SO_EE_ORIGIN_ICMP6)
			continue;
		struct sockaddr_storage off;
		memset(&off, 0, sizeof off);
		size_t room = cm->cmsg_len - CMSG_LEN(sizeof ee);
		size_t want = v4 ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		if (cm->cmsg_len < CMSG_LEN(sizeof ee) || room < want)
			continue;
		memcpy(&off, CMSG_DATA(cm) + sizeof ee, want);
		if (off.ss_family != AF_INET && off.ss_family != AF_INET6)
			continue;
		const void *a = off.ss_family == AF_INET ? (const void *)&((struct sockaddr_in *)&off)->sin_addr
							 : (const void *)&((struct sockaddr_in6 *)&off)->sin6_addr;
		inet_ntop(off.ss_family, a, p->refused_by, sizeof p->refused_by);
		p->local_refusal = sp_net_addr_is_own((struct sockaddr *)&off);
		return;
	}
}

static void finish(sp_netprobe *p, sp_netclass c, int err)
{
	if (c == SP_NC_REFUSED && p->fd >= 0 && p->socktype == SOCK_DGRAM)
		refusal_origin(p);
	if (sp_netclass_leaked(c))
		p->own_dest = sp_net_addr_is_own((struct sockaddr *)&p->sa);
	p->local_refusal |= c == SP_NC_REFUSED && p->own_dest;
	p->cls = c;
	p->err = err;
	p->elapsed_us = (sp_now_ns() - p->start_ns) / 1000;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* after the connect completed: TCP without a payload is done, the others
 * send theirs (a fresh socket takes a few hundred bytes at once) */
static void connected(sp_netprobe *p)
{
	if (p->socktype == SOCK_STREAM && p->plen == 0) {
		finish(p, SP_NC_CONNECTED, 0);
		return;
	}
	ssize_t w = send(p->fd, p->payload, p->plen, MSG_NOSIGNAL);
	if (w < 0 && p->socktype == SOCK_STREAM)
		finish(p, SP_NC_CONNECTED, errno); /* connected; the query did not go */
	else if (w < 0)
		finish(p, sp_net_classify_errno(errno), errno);
	else if (p->socktype == SOCK_STREAM && (size_t)w != p->plen)
		finish(p, SP_NC_CONNECTED, EIO);
	else
		p->sent = true;
}

/* TCP with a payload: read the length prefix, then the reply (cut at what
 * reply holds: rlen < rwant then) */
static void step_stream_reply(sp_netprobe *p)
{
	for (;;) {
		bool pfx = p->pgot < 2;
		size_t want = p->rwant < sizeof p->reply ? p->rwant : sizeof p->reply;
		ssize_t n = pfx ? recv(p->fd, p->pfx + p->pgot, 2 - p->pgot, MSG_DONTWAIT)
				: recv(p->fd, p->reply + p->rlen, want - p->rlen, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			/* closed (or reset) before a whole reply: connected, not answered */
			finish(p, SP_NC_CONNECTED, n == 0 ? 0 : errno);
			return;
		}
		if (pfx) {
			p->pgot += (size_t)n;
			if (p->pgot < 2)
				continue;
			p->rwant = (size_t)(p->pfx[0] << 8 | p->pfx[1]);
			want = p->rwant < sizeof p->reply ? p->rwant : sizeof p->reply;
		} else {
			p->rlen += (size_t)n;
		}
		if (p->rlen >= want) {
			finish(p, SP_NC_REPLIED, 0);
			return;
		}
	}
}

static void start_probe(sp_netprobe *p)
{
	p->start_ns = sp_now_ns();
	p->deadline_ns = p->start_ns + (uint64_t)(p->timeout_ms ? p->timeout_ms : 1000) * 1000000ull;
	p->cls = SP_NC_PENDING;
	p->fd = socket(p->sa.ss_family, p->socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, p->proto);
	if (p->fd < 0) {
		int e = errno;
		finish(p, sp_net_classify_errno(e), e);
		return;
	}
	if (p->sa.ss_family == AF_INET6) {
		/* v4-mapped targets must stay possible on the IPv6 socket */
		int off = 0;
		setsockopt(p->fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
	}
	if (p->socktype == SOCK_DGRAM) {
		/* queue ICMP errors with their sender: a refusal from this sandbox's
		 * own stack is not an answer from outside */
		int one = 1;
		if (p->sa.ss_family == AF_INET6)
			setsockopt(p->fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof one);
		setsockopt(p->fd, IPPROTO_IP, IP_RECVERR, &one, sizeof one);
	}
	if (connect(p->fd, (struct sockaddr *)&p->sa, p->salen) == 0) {
		connected(p);
		return;
	}
	if (errno == EINPROGRESS)
		return;
	int e = errno;
	finish(p, sp_net_classify_errno(e), e);
}

/* the probe's fd is ready */
static void step_probe(sp_netprobe *p, short revents)
{
	if (p->socktype == SOCK_STREAM && p->sent) {
		step_stream_reply(p);
		return;
	}
	if (p->socktype == SOCK_STREAM) {
		int e = 0;
		socklen_t el = sizeof e;
		if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
			e = errno;
		if (e == 0 && !(revents & POLLOUT)) {
			/* hung up without an error or a connection: never spin on it */
			if (revents & (POLLHUP | POLLERR | POLLNVAL))
				finish(p, SP_NC_ERROR, EIO);
			return;
		}
		if (e == 0)
			connected(p);
		else
			finish(p, sp_net_classify_errno(e), e);
		return;
	}
	ssize_t n = recv(p->fd, p->reply, sizeof p->reply, MSG_DONTWAIT);
	if (n >= 0) {
		p->rlen = (size_t)n;
		finish(p, SP_NC_REPLIED, 0);
	} else if (errno != EAGAIN && errno != EINTR) {
		int e = errno;
		finish(p, sp_net_classify_errno(e), e);
	}
}

static void start_child(sp_netchild *c)
{
	int pfd[2];
	c->start_ns = sp_now_ns();
	c->deadline_ns = c->start_ns + (uint64_t)(c->timeout_ms ? c->timeout_ms : 1000) * 1000000ull;
	c->fd = -1;
	c->pid = -1;
	fflush(NULL);
	pid_t pid = sp_fork_piped(pfd);
	if (pid < 0) {
		c->start_err = (int)-pid;
		return;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGPIPE, SIG_IGN);
		_exit(c->fn(c->arg, pfd[1]) & 0xff);
	}
	c->pid = pid;
	c->fd = pfd[0];
	c->started = true;
}

static void end_child(sp_netchild *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->elapsed_us = (sp_now_ns() - c->start_ns) / 1000;
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = -1;
	}
}

void sp_net_run_parallel(sp_netprobe *p, size_t n, sp_netchild *c, size_t nc)
{
	/* children first, so they do not inherit the probe sockets */
	for (size_t i = 0; i < nc; i++)
		start_child(&c[i]);
	for (size_t i = 0; i < n; i++) {
		p[i].fd = -1;
		if (!p[i].decided)
			start_probe(&p[i]);
	}
	struct pollfd *pfd = sp_xcalloc(n + nc + 1, sizeof *pfd);
	/* who each pollfd belongs to: i < n a probe, else child i - n */
	size_t *who = sp_xcalloc(n + nc + 1, sizeof *who);
	for (;;) {
		size_t np = 0;
		uint64_t now = sp_now_ns(), next = UINT64_MAX;
		for (size_t i = 0; i < n; i++) {
			if (p[i].fd < 0)
				continue;
			if (now >= p[i].deadline_ns) {
				/* a stream that connected and sent its query stays connected */
				finish(&p[i], p[i].socktype == SOCK_STREAM && p[i].sent ? SP_NC_CONNECTED : SP_NC_TIMEOUT,
				       ETIMEDOUT);
				continue;
			}
			if (p[i].deadline_ns < next)
				next = p[i].deadline_ns;
			pfd[np] = (struct pollfd){.fd = p[i].fd,
						  .events = p[i].socktype == SOCK_STREAM && !p[i].sent ? POLLOUT : POLLIN};
			who[np++] = i;
		}
		for (size_t i = 0; i < nc; i++) {
			if (c[i].fd < 0)
				continue;
			if (now >= c[i].deadline_ns) {
				c[i].timed_out = true;
				end_child(&c[i]);
				continue;
			}
			if (c[i].deadline_ns < next)
				next = c[i].deadline_ns;
			pfd[np] = (struct pollfd){.fd = c[i].fd, .events = POLLIN};
			who[np++] = n + i;
		}
		if (np == 0)
			break;
		int ms = (int)((next - now + 999999) / 1000000ull);
		int r = poll(pfd, np, ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		for (size_t k = 0; k < np; k++) {
			if (!pfd[k].revents)
				continue;
			if (who[k] < n) {
				step_probe(&p[who[k]], pfd[k].revents);
				continue;
			}
			sp_netchild *ch = &c[who[k] - n];
			ssize_t got = ch->got < ch->outsz ? read(ch->fd, (char *)ch->out + ch->got, ch->outsz - ch->got) : 0;
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				ch->got += (size_t)got;
				if (ch->got < ch->outsz)
					continue;
			}
			ch->done = ch->got == ch->outsz;
			end_child(ch);
		}
	}
	free(who);
	free(pfd);
	/* nothing may outlive the run */
	for (size_t i = 0; i < n; i++)
		if (p[i].fd >= 0)
			finish(&p[i], SP_NC_TIMEOUT, ETIMEDOUT);
	for (size_t i = 0; i < nc; i++)
		if (c[i].fd >= 0 || c[i].pid > 0)
			end_child(&c[i]);
}

int sp_net_route_lookup(int af, const char *addr, sp_outcome *o)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	if (af == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons(9);
		inet_pton(AF_INET, addr, &s->sin_addr);
		len = sizeof *s;
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
		s->sin6_family = AF_INET6;
		s->sin6_port = htons(9);
		inet_pton(AF_INET6, addr, &s->sin6_addr);
		len = sizeof *s;
	}
	_cleanup_close_ int fd = socket(af, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sp_why_errno(o, errno, "route lookup to %s: socket: %s", addr, strerror(errno));
	if (connect(fd, (struct sockaddr *)&ss, len) < 0)
		return sp_why_errno(o, errno, "route lookup to %s: %s", addr, strerror(errno));
	return 0;
}

/* ---- the grammars of the network keys (core/policy.h) ------------------------------ */

static int ipport_parse(const char *s, int defport, sp_outcome *o)
{
	struct sockaddr_storage sa;
	socklen_t len;
	return sp_net_parse_hostport(s, defport, &sa, &len, o);
}
static int ipport0(const char *s, sp_outcome *o) { return ipport_parse(s, 0, o); }
static int ipport53(const char *s, sp_outcome *o) { return ipport_parse(s, 53, o); }
static int ipport80(const char *s, sp_outcome *o) { return ipport_parse(s, 80, o); }

static int endpoint_parse(const char *s, sp_outcome *o)
{
	struct sockaddr_storage sa;
	socklen_t len;
	bool any;
	return sp_net_parse_endpoint(s, &sa, &len, &any, o);
}

static int port_parse(const char *s, sp_outcome *o)
{
	unsigned p;
	if (sp_net_parse_port(s, &p) == 0)
		return 0;
	sp_why(o, "'%.80s' is not a port (1 to 65535)", s);
	return -1;
}

static int ip_parse(const char *s, sp_outcome *o)
{
	char canon[INET6_ADDRSTRLEN];
	return sp_net_parse_ip(s, canon, sizeof canon, o);
}

static int dns_name_parse(const char *s, sp_outcome *o)
{
	return sp_dns_name_check(s, o);
}

const sp_policy_type sp_ptype_targets = {.name = "targets", .what = "IP:PORT (an address, not a name)", .list = true,
					 .max = SP_NET_MAX_TARGETS, .parse = ipport0};
const sp_policy_type sp_ptype_target = {.name = "target", .what = "one IP:PORT (an address, not a name)", .parse = ipport0};
const sp_policy_type sp_ptype_targets80 = {.name = "targets80", .what = "IP[:PORT], port 80 when absent", .list = true,
					   .max = SP_NET_MAX_TARGETS, .parse = ipport80};
const sp_policy_type sp_ptype_resolvers = {.name = "resolvers", .what = "IP[:PORT], port 53 when absent", .list = true,
					   .max = SP_NET_MAX_TARGETS, .parse = ipport53};
const sp_policy_type sp_ptype_resolver = {.name = "resolver", .what = "one IP[:PORT], port 53 when absent",
					  .parse = ipport53};
const sp_policy_type sp_ptype_endpoints = {.name = "endpoints", .what = "IP (any port) or IP:PORT", .list = true,
					   .max = SP_NET_MAX_TARGETS, .parse = endpoint_parse};
const sp_policy_type sp_ptype_ports = {.name = "ports", .what = "port numbers (1 to 65535)", .list = true,
				       .parse = port_parse};
const sp_policy_type sp_ptype_dns_names = {.name = "dns_names", .what = "DNS names", .list = true, .max = SP_DNS_MAX_NAMES, .parse = dns_name_parse};
const sp_policy_type sp_ptype_dns_name = {.name = "dns_name", .what = "one DNS name", .parse = dns_name_parse};
/* a DNS name or an IP literal (a TLS server name, verified as either) */
static int host_parse(const char *s, sp_outcome *o)
{
	char canon[INET6_ADDRSTRLEN];
	if (sp_net_parse_ip(s, canon, sizeof canon, o) == 0)
		return 0;
	return sp_dns_name_check(s, o);
}

const sp_policy_type sp_ptype_host = {.name = "host", .what = "one DNS name or IP address", .parse = host_parse};
const sp_policy_type sp_ptype_ip = {.name = "ip", .what = "one IPv4 or IPv6 address", .parse = ip_parse};
