/* net.iface.*: interface facts an agent sandbox declares.
 *   net.iface.address        each net.iface.addresses IFACE=ADDR[/LEN] is on
 *                            that interface (netlink's list, getifaddrs) and
 *                            the kernel treats it as local (bind(2) to it)
 *   net.iface.virtual        no real NIC: every interface in /sys/class/net
 *                            lacks a device link, unless net.iface.physical_allowed
 *   net.iface.default_route  a default route present or absent as declared
 *                            (/proc/net/route, /proc/net/ipv6_route, and a
 *                            route lookup: UDP connect, nothing sent) */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "checks/net_probe.h"
#include "core/check.h"
#include "core/cleanup.h"
#include "core/policy.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* IFACE=ADDR[/LEN] */
static int ifaddr_split(const char *s, char *ifn, size_t isz, char *ip, size_t ipsz, int *plen, sp_outcome *o)
{
	const char *eq = strchr(s, '=');
	if (!eq || eq == s || (size_t)(eq - s) >= isz || (size_t)(eq - s) >= IFNAMSIZ) {
		sp_why(o, "'%.80s': expected IFACE=ADDR[/LEN] (an interface name of 1 to 15 characters)", s);
		return -1;
	}
	memcpy(ifn, s, (size_t)(eq - s));
	ifn[eq - s] = '\0';
	if (strpbrk(ifn, "/ \t:")) {
		sp_why(o, "'%.80s': not an interface name", ifn);
		return -1;
	}
	char a[80];
	snprintf(a, sizeof a, "%s", eq + 1);
	*plen = -1;
	char *sl = strchr(a, '/');
	if (sl) {
		*sl = '\0';
		unsigned long long v;
		if (sp_parse_u64(sl + 1, &v) < 0 || v > 128) {
			sp_why(o, "'%.80s': the prefix length is 0 to 128", s);
			return -1;
		}
		*plen = (int)v;
	}
	if (sp_net_parse_ip(a, ip, ipsz, o) < 0)
		return -1;
	if (*plen > (strchr(ip, ':') ? 128 : 32)) {
		sp_why(o, "'%.80s': the prefix length is too long for the address", s);
		return -1;
	}
	return 0;
}

static int ifaddr_parse(const char *s, sp_outcome *o)
{
	char ifn[64], ip[INET6_ADDRSTRLEN];
	int plen;
	if (ifaddr_split(s, ifn, sizeof ifn, ip, sizeof ip, &plen, o) == 0)
		return 0;
	return -1;
}

const sp_policy_type sp_ptype_iface_addrs = {.name = "iface_addrs", .what = "IFACE=ADDR[/LEN]", .list = true, .max = 16, .parse = ifaddr_parse};

static int mask_len(const struct sockaddr *m)
{
	const uint8_t *b;
	size_t n;
	if (!m)
		return -1;
	if (m->sa_family == AF_INET) {
		b = (const uint8_t *)&((const struct sockaddr_in *)m)->sin_addr;
		n = 4;
	} else if (m->sa_family == AF_INET6) {
		b = ((const struct sockaddr_in6 *)m)->sin6_addr.s6_addr;
		n = 16;
	} else {
		return -1;
	}
	int l = 0;
	for (size_t i = 0; i < n; i++)
		l += __builtin_popcount(b[i]);
	return l;
}

static void run_address(const sp_ctx *ctx, sp_result *r)
{
	sp_strv v;
	sp_policy_list(ctx->policy, "net.iface.addresses", &v);
	sp_expected(r, "every net.iface.addresses IFACE=ADDR[/LEN] is assigned to that interface and local to the kernel");
	if (v.n == 0) {
		sp_skip(r, "net.iface.addresses is empty: no interface address declared");
		sp_strv_free(&v);
		return;
	}
	struct ifaddrs *ifa = NULL;
	if (getifaddrs(&ifa) < 0) {
		sp_errorr(r, "getifaddrs: %s: the interfaces' addresses could not be listed", strerror(errno));
		sp_strv_free(&v);
		return;
	}
	size_t bad = 0;
	for (size_t i = 0; i < v.n; i++) {
		char ifn[64], ip[INET6_ADDRSTRLEN];
		int plen;
		sp_outcome o = {0};
		if (ifaddr_split(v.v[i], ifn, sizeof ifn, ip, sizeof ip, &plen, &o) < 0) {
			sp_errorr(r, "net.iface.addresses: %s", o.why);
			goto out;
		}
		bool iface_seen = false, found = false;
		int got_len = -1;
		for (struct ifaddrs *p = ifa; p; p = p->ifa_next) {
			if (strcmp(p->ifa_name, ifn))
				continue;
			iface_seen = true;
			if (!p->ifa_addr || (p->ifa_addr->sa_family != AF_INET && p->ifa_addr->sa_family != AF_INET6))
				continue;
			char t[INET6_ADDRSTRLEN];
			const void *a = p->ifa_addr->sa_family == AF_INET
						? (const void *)&((struct sockaddr_in *)p->ifa_addr)->sin_addr
						: (const void *)&((struct sockaddr_in6 *)p->ifa_addr)->sin6_addr;
			inet_ntop(p->ifa_addr->sa_family, a, t, sizeof t);
			if (strcmp(t, ip))
				continue;
			found = true;
			got_len = mask_len(p->ifa_netmask);
			/* the kernel's own word that the address is local here */
			if (!sp_net_addr_is_own(p->ifa_addr))
				found = false;
			break;
		}
		if (!iface_seen) {
			sp_observed_add(r, "%s: no such interface", ifn);
			bad++;
		} else if (!found) {
			sp_observed_add(r, "%s: %s not assigned (or not local: bind refused)", ifn, ip);
			bad++;
		} else if (plen >= 0 && got_len != plen) {
			sp_observed_add(r, "%s: %s/%d, not /%d", ifn, ip, got_len, plen);
			bad++;
		} else {
			sp_observed_add(r, "%s: %s/%d (bind to it accepted)", ifn, ip, got_len);
		}
	}
	if (bad)
		sp_failr(r, "%zu of %zu declared interface address%s missing or different", bad, v.n, v.n == 1 ? "" : "es");
	else
		sp_pass(r, "all %zu declared interface address%s present", v.n, v.n == 1 ? "" : "es");
out:
	freeifaddrs(ifa);
	sp_strv_free(&v);
}

static void run_virtual(const sp_ctx *ctx, sp_result *r)
{
	if (!sp_policy_bool(ctx->policy, "net.iface.no_physical", false)) {
		sp_expected(r, "not declared (net.iface.no_physical is false)");
		sp_skip(r, "net.iface.no_physical is not set: no claim that the sandbox has no real NIC");
		return;
	}
	sp_strv allowed;
	sp_policy_list(ctx->policy, "net.iface.physical_allowed", &allowed);
	sp_expected(r, "every interface in /sys/class/net is virtual (no device link)%s",
		    allowed.n ? ", or in net.iface.physical_allowed" : "");
	_cleanup_closedir_ DIR *d = opendir("/sys/class/net");
	if (!d) {
		sp_errorr(r, "/sys/class/net: %s: the interfaces could not be listed", strerror(errno));
		sp_strv_free(&allowed);
		return;
	}
	size_t n = 0, phys = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		char p[PATH_MAX], t[PATH_MAX];
		snprintf(p, sizeof p, "/sys/class/net/%s/device", e->d_name);
		ssize_t l = readlink(p, t, sizeof t - 1);
		if (l < 0)
			continue;
		t[l] = '\0';
		bool ok = sp_strv_contains(&allowed, e->d_name);
		sp_observed_add(r, "%s: a device (%s)%s", e->d_name, t, ok ? ", allowed" : "");
		phys += !ok;
	}
	if (n == 0)
		sp_errorr(r, "/sys/class/net lists no interface (not even lo): sysfs is not this namespace's");
	else if (phys)
		sp_failr(r, "%zu of %zu interfaces %s a real device", phys, n, phys == 1 ? "is" : "are");
	else
		sp_pass(r, "all %zu interfaces are virtual or allowed", n);
	sp_strv_free(&allowed);
}

/* default routes in /proc/net/route and /proc/net/ipv6_route; -1 when neither is readable */
static int proc_defaults(int *n4, int *n6)
{
	*n4 = *n6 = 0;
	int ok = 0;
	_cleanup_fclose_ FILE *f = fopen("/proc/net/route", "re");
	char line[512];
	if (f) {
		ok++;
		while (fgets(line, sizeof line, f)) {
			char ifn[64];
			unsigned dst, gw, flags, mask;
			if (sscanf(line, "%63s %x %x %x %*s %*s %*s %x", ifn, &dst, &gw, &flags, &mask) == 5 && dst == 0 &&
			    mask == 0 && (flags & 1))
				(*n4)++;
		}
	}
	_cleanup_fclose_ FILE *g = fopen("/proc/net/ipv6_route", "re");
	if (g) {
		ok++;
		while (fgets(line, sizeof line, g)) {
			char dst[40], ifn[64];
			unsigned plen, flags;
			if (sscanf(line, "%32s %x %*s %*s %*s %*s %*s %*s %x %63s", dst, &plen, &flags, ifn) == 4 &&
			    plen == 0 && !strcmp(dst, "00000000000000000000000000000000") && (flags & 1) && strcmp(ifn, "lo"))
				(*n6)++;
		}
	}
	return ok ? 0 : -1;
}

static const char *const route_modes[] = {"present", "absent", "any", NULL};
const sp_policy_type sp_ptype_route_mode = {.name = "route_mode", .what = "present, absent or any", .choices = route_modes};

static void run_default_route(const sp_ctx *ctx, sp_result *r)
{
	const char *want = sp_policy_get(ctx->policy, "net.iface.default_route");
	if (!want || !*want || !strcmp(want, "any")) {
		sp_expected(r, "any");
		sp_skip(r, "net.iface.default_route is unset or any: nothing declared");
		return;
	}
	bool present = !strcmp(want, "present");
	sp_expected(r, "%s", present ? "a default route (IPv4 or IPv6)" : "no default route (IPv4 or IPv6)");
	int n4, n6;
	if (proc_defaults(&n4, &n6) < 0) {
		sp_errorr(r, "neither /proc/net/route nor /proc/net/ipv6_route is readable");
		return;
	}
	/* documentation addresses: never dialed, only looked up */
	sp_outcome o4 = {0}, o6 = {0};
	int l4 = sp_net_route_lookup(AF_INET, "192.0.2.1", &o4), l6 = sp_net_route_lookup(AF_INET6, "2001:db8::1", &o6);
	sp_observed(r, "default routes: %d IPv4, %d IPv6 in /proc/net; route lookup to 192.0.2.1: %s, to 2001:db8::1: %s",
		    n4, n6, l4 == 0 ? "routable" : strerrorname_np(o4.errnum), l6 == 0 ? "routable" : strerrorname_np(o6.errnum));
	bool proc = n4 + n6 > 0, routed = l4 == 0 || l6 == 0;
	if (present && proc && routed)
		sp_pass(r, "a default route is present and a lookup off the host is routed");
	else if (present)
		sp_failr(r, "no default route%s", proc ? " that routes a lookup off the host" : "");
	else if (!proc && !routed)
		sp_pass(r, "no default route and no lookup off the host is routed");
	else
		sp_failr(r, "a route off the host exists%s", routed ? " (proven by route lookup)" : "");
}

/* with nothing declared the runner skips the check without a probe child */
static bool declared(const sp_ctx *ctx, const char *key, sp_outcome *o)
{
	const char *v = sp_policy_get(ctx->policy, key);
	if (v && *v)
		return true;
	sp_why(o, "%s is unset: nothing declared", key);
	return false;
}
static bool has_addrs(const sp_ctx *c, sp_outcome *o) { return declared(c, "net.iface.addresses", o); }
static bool has_nophys(const sp_ctx *c, sp_outcome *o)
{
	if (sp_policy_bool(c->policy, "net.iface.no_physical", false))
		return true;
	sp_why(o, "net.iface.no_physical is not set: no claim that the sandbox has no real NIC");
	return false;
}
static bool has_route(const sp_ctx *c, sp_outcome *o)
{
	const char *v = sp_policy_get(c->policy, "net.iface.default_route");
	if (v && *v && strcmp(v, "any"))
		return true;
	sp_why(o, "net.iface.default_route is unset or any: nothing declared");
	return false;
}

const sp_check sp_check_net_iface_address = {
	.id = SP_CKID(net_iface_address),
	.supported = has_addrs,
	.category = "network",
	.title = "each declared interface address is assigned and local",
	.rationale = "a sandbox's network plan (its gateway, its proxy, its allowlist) rests on the addresses it was given",
	.techniques = "",
	.policy_keys = "net.iface.addresses:iface_addrs",
	.method = "action",
	.run = run_address,
};

const sp_check sp_check_net_iface_virtual = {
	.id = SP_CKID(net_iface_virtual),
	.supported = has_nophys,
	.category = "network",
	.title = "no real network device is visible in the sandbox",
	.rationale = "a physical NIC inside the sandbox is the host's network, outside every filter meant for the sandbox",
	.techniques = "AML.T0086",
	.policy_keys = "net.iface.no_physical:bool,net.iface.physical_allowed:list",
	.method = "read",
	.run = run_virtual,
};

const sp_check sp_check_net_iface_default_route = {
	.id = SP_CKID(net_iface_default_route),
	.supported = has_route,
	.category = "network",
	.title = "a default route is present or absent as declared",
	.rationale = "a sandbox meant to reach only its proxy has no default route; one meant to go out needs one",
	.techniques = "AML.T0086,AML.T0025",
	.policy_keys = "net.iface.default_route:route_mode",
	.method = "action",
	.run = run_default_route,
};
