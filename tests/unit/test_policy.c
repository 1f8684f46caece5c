/* Policies: profiles, files, --set, and every way a policy can be wrong. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "checks/registry.h"
#include "core/check.h"
#include "core/policy.h"
#include "core/runner.h"
#include "core/util.h"
#include "tap.h"

static int load_text(const char *text, sp_error *err)
{
	sp_policy p;
	sp_policy_init(&p, &sp_doctor_registry);
	int r = sp_policy_load_string(&p, text, "t.ini", err);
	sp_policy_free(&p);
	return r;
}

static char *write_tmp(const char *text)
{
	char *path = sp_xstrdup("/tmp/sandprobe-policy-XXXXXX");
	int fd = mkstemp(path);
	if (fd >= 0) {
		sp_write_all(fd, text, strlen(text));
		close(fd);
	}
	return path;
}


/* A malformed and a well-formed value of every type with a grammar: the
 * test fails when a type is registered without a line here. */
static const struct {
	const char *type, *bad, *good, *why;
} cases[] = {
	{"bool", "maybe", "true", "expected true or false"},
	{"int", "-1", "7", "non-negative integer"},
	{"caps", "cap_chown,cap_flying", "chown, CAP_KILL", "unknown capability 'cap_flying'"},
	{"targets", "example.com:443", "10.0.0.1:443, [fd00::1]:80", "not an IP literal"},
	{"target", "10.0.0.1:0", "10.0.0.1:8443", "between 1 and 65535"},
	{"targets80", "10.0.0.1:0", "169.254.169.254", "between 1 and 65535"},
	{"resolvers", "[::1", "10.0.0.53, [fd00::53]:5353", "unterminated"},
	{"resolver", "10.0.0.1:53:1", "[fd00::53]:53", "[addr]:port"},
	{"endpoints", "10.0.0.1:x", "10.0.0.1, 10.0.0.2:3128", "between 1 and 65535"},
	{"ports", "0", "22, 443", "'0' is not a port"},
	{"dns_names", "a..b", "canary.example.net", "label"},
	{"dns_name", "bad name!", "proxy.sandbox.internal", "cannot be in a DNS name"},
	{"host", "a/b", "10.0.0.1", "cannot be in a DNS name"},
	{"iface_addrs", "eth0=10.0.0.1/33", "eth0=10.0.0.2/24, lo=::1", "too long"},
	{"route_mode", "maybe", "absent", "expected present, absent or any"},
	{"mount_facts", "/w=virtiofs:rx", "/workspace=virtiofs:rw, /=overlay:ro", "the mode is ro or rw"},
	{"mount_facts", "/t=tmpfs:rw:size=lots", "/tmp=tmpfs:rw:noexec:nosuid:size=64m:mode=1777, /w=9p:rw:trans=virtio",
	 "size= takes"},
	{"mount_facts", "/t=tmpfs:rw:mode=8", "/t=tmpfs:rw:mode=755", "mode= takes"},
	{"mount_facts", "/t=tmpfs:rw::noexec", "/t=tmpfs:ro:nodev", "empty or over-long option"},
	{"block_devs", "../sda", "vdb, loop3, nvme0n1p2", "not a block device name"},
	{"pkg_managers", "pip, yum", "pip, dpkg, apt, npm", "'yum': expected pip, dpkg, apt or npm"},
	{"user_paths", "_apt:relative", "_apt:/var/cache/apt/archives/partial, www-data:/srv/spool", "not an absolute path"},
	{"user_paths", "a%b:/x", "svc-1:/x", "not a user name"},
	{"dns_fakes", "api.test=10.0.0", "api.test=10.0.0.7, v6.test=fd00::7", "IPv4 or IPv6 address"},
	{"ip", "10.0.0", "::1", "IPv4 or IPv6 address"},
	{"ipv6", "yes", "loopback", "expected off, loopback or any"},
	{"proxy_url", "https://10.0.0.1:3128", "http://u:pw@10.0.0.1:3128", "https://"},
	{"proxy_hosts", "host:99999", "api.example.com:443, 10.0.0.5", "port"},
	{"proxy_host", "http://x", "canary.example.net", "port"},
	{"tls_hosts", "[::1]x", "api.example.com, [::1]:8443", "after ']'"},
	{"sha256s", "abc", "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89",
	 "SHA-256"},
	{"redirects", "sctp/1", "tcp/80, udp/53, 443", "expected tcp/PORT"},
	{"probes", "ls --version", "python3 --version => ^Python 3; ls => .", "PROGRAM ARG... => REGEX"},
	{"mcp_command", "node 'server.js", "node /srv/mcp/index.js stdio", "unterminated ' quote"},
	{"mcp_url", "http://mcp.example:8080/mcp", "http://127.0.0.1:3001/mcp", "not an IP address"},
	{"env_values", "HOME", "HOME=/root; PATH~^/usr", "NAME=VALUE or NAME~REGEX"},
	{"release", "~(", "~^6\\.", "bad regex"},
	{"version", "6.x", "6.1", "kernel version"},
	{"swap", "sometimes", "off", "expected on, off or any"},
	{"proc_names", "ssh[", "sshd*, /usr/sbin/cron", "unterminated '['"},
	{"syscalls", "mount,fly", "mount, ptrace", "'fly' is not a syscall"},
	{"namespaces", "pid,foo", "pid, net", "'foo' is not a namespace type"},
	{"propagation", "weird", "private, slave", "expected private, slave"},
	{"cgroup_layouts", "v3", "v2, hybrid", "expected v1, v2"},
	{"devices", "../sda", "null, net/tun", "'..' component"},
	{"paths", "/tmp,proc/kcore", "/tmp, /var/tmp", "not an absolute path"},
	{"boundaries", "vm", "user-space, guest", "expected user-space or guest"},
};

/* every "key:type" any check declares, and the runner's */
static void each_decl(void (*fn)(const char *key, const char *type, const char *who))
{
	for (size_t i = 0; i <= sp_checks_count; i++) {
		const char *decl = i < sp_checks_count ? sp_checks[i]->policy_keys : sp_policy_runner_keys;
		const char *who = i < sp_checks_count ? sp_checks[i]->id : "the runner";
		sp_strv items;
		sp_strv_split(&items, decl, ",");
		for (size_t k = 0; k < items.n; k++) {
			char *colon = strchr(items.v[k], ':');
			if (colon)
				*colon = '\0';
			fn(items.v[k], colon ? colon + 1 : "str", who);
		}
		sp_strv_free(&items);
	}
}

static sp_strv seen_keys, seen_types;
static size_t bad_decls;

static void check_decl(const char *key, const char *type, const char *who)
{
	if (!sp_policy_type_find(&sp_doctor_registry, type)) {
		bad_decls++;
		ok(0, "%s declares %s with type '%s', which is registered nowhere", who, key, type);
	}
	for (size_t i = 0; i < seen_keys.n; i++)
		if (!strcmp(seen_keys.v[i], key) && strcmp(seen_types.v[i], type)) {
			bad_decls++;
			ok(0, "%s declares %s as %s, another check as %s", who, key, type, seen_types.v[i]);
		}
	sp_strv_push(&seen_keys, key);
	sp_strv_push(&seen_types, type);
}

static size_t keys_tested;

/* a malformed value of key, from a file and from --set: exit 2, the place and the key named */
static void test_key(const char *key, const char *type, const char *who)
{
	(void)who;
	size_t c;
	for (c = 0; c < SP_ARRAY_SIZE(cases); c++)
		if (!strcmp(cases[c].type, type))
			break;
	if (c == SP_ARRAY_SIZE(cases))
		return;
	sp_error err;
	sp_policy p;
	const char *dot = strchr(key, '.');
	_cleanup_free_ char *text = sp_xasprintf("; a policy\n[%.*s]\n%s = %s\n", (int)(dot - key), key, dot + 1, cases[c].bad);
	_cleanup_free_ char *place = sp_xasprintf("t.ini:3: %s: ", key);
	sp_policy_init(&p, &sp_doctor_registry);
	int r = sp_policy_load_string(&p, text, "t.ini", &err);
	ok(r < 0 && err.exit_code == SP_EXIT_USAGE && sp_startswith(err.msg, place) && strstr(err.msg, cases[c].why) &&
		   !strchr(err.msg, '\n'),
	   "%s = %s in a file: one line naming t.ini:3 and the key (%s)", key, cases[c].bad, r < 0 ? err.msg : "accepted");
	sp_policy_free(&p);
	_cleanup_free_ char *set = sp_xasprintf("%s=%s", key, cases[c].bad);
	_cleanup_free_ char *setplace = sp_xasprintf("--set %s=%s: %s: ", key, cases[c].bad, key);
	sp_policy_init(&p, &sp_doctor_registry);
	r = sp_policy_set(&p, set, &err);
	ok(r < 0 && err.exit_code == SP_EXIT_USAGE && sp_startswith(err.msg, setplace) && strstr(err.msg, cases[c].why),
	   "--set %s: usage error naming the argument and the key (%s)", set, r < 0 ? err.msg : "accepted");
	_cleanup_free_ char *good = sp_xasprintf("%s=%s", key, cases[c].good);
	r = sp_policy_set(&p, good, &err);
	ok(r == 0 && !strcmp(sp_policy_get(&p, key), cases[c].good), "--set %s is accepted%s%s", good, r ? ": " : "",
	   r ? err.msg : "");
	sp_policy_free(&p);
	keys_tested++;
}

int main(void)
{
	sp_error err;
	sp_policy p;

	for (const struct sp_embedded_policy *e = sp_embedded_policies; e->name; e++) {
		sp_policy_init(&p, &sp_doctor_registry);
		int r = sp_policy_load_profile(&p, e->name, &err);
		ok(r == 0, "shipped profile %s loads%s%s", e->name, r ? ": " : "", r ? err.msg : "");
		is_str(p.name, e->name, "profile %s names itself", e->name);
		sp_policy_free(&p);
	}
	sp_policy_init(&p, &sp_doctor_registry);
	ok(sp_policy_load_profile(&p, "strict", &err) == 0, "strict loads");
	is_str(sp_policy_get(&p, "ns.required"), "pid,net,mnt,uts,ipc,user,cgroup", "dotted key from [ns] required");
	ok(sp_policy_bool(&p, "priv.no_new_privs", false), "bool key");
	sp_strv l;
	sp_policy_list(&p, "ns.required", &l);
	is_int(l.n, 7, "list key splits");
	sp_strv_free(&l);
	is_int(sp_policy_expect(&p, "ns.pid"), SP_EXPECT_REQUIRED, "strict: required");
	ok(sp_policy_set(&p, "ns.required=pid", &err) == 0, "--set overrides");
	is_str(sp_policy_get(&p, "ns.required"), "pid", "override visible");
	ok(sp_policy_set(&p, " fs.writable = /tmp , /work ", &err) == 0, "--set trims");
	is_str(sp_policy_get(&p, "fs.writable"), "/tmp , /work", "trimmed value");
	ok(sp_policy_set(&p, "bogus.key=1", &err) < 0 && err.exit_code == SP_EXIT_USAGE, "--set of an unknown key fails");
	like_str(err.msg, "unknown policy key 'bogus.key'", "naming the key");
	ok(sp_policy_set(&p, "novalue", &err) < 0, "--set without '=' fails");
	ok(sp_policy_set(&p, "priv.no_new_privs=maybe", &err) < 0, "bool key rejects 'maybe'");
	like_str(err.msg, "expected true or false", "with the expected type");
	ok(sp_policy_set(&p, "caps.effective=cap_chown,cap_flying", &err) < 0, "unknown capability rejected");
	like_str(err.msg, "cap_flying", "naming the capability");
	ok(sp_policy_set(&p, "caps.effective=CAP_NET_BIND_SERVICE, chown", &err) == 0, "capability names in any spelling");
	ok(sp_policy_set(&p, "expect.ns.*=off", &err) == 0, "expect glob");
	is_int(sp_policy_expect(&p, "ns.net"), SP_EXPECT_OFF, "expect off applies");
	ok(sp_policy_set(&p, "expect.zz.*=off", &err) < 0, "expect glob matching nothing fails");
	ok(sp_policy_set(&p, "expect.ns.pid=sometimes", &err) < 0, "expect value must be required/advisory/off");
	sp_policy_free(&p);

	ok(load_text("[ns]\nrequired = pid\n[bogus]\nthing = 1\n", &err) < 0, "unknown key in a file fails");
	like_str(err.msg, "t.ini:4: unknown policy key 'bogus.thing'", "with file and line");
	ok(load_text("[ns]\nrequired = pid\nthis line is not ini\n", &err) < 0, "malformed line fails");
	like_str(err.msg, "t.ini:3:", "with its line");
	ok(load_text("[ns\nrequired = pid\n", &err) < 0, "unclosed section fails");
	ok(load_text("[priv]\nno_new_privs = perhaps\n", &err) < 0, "bad bool in file fails");
	like_str(err.msg, "t.ini:2:", "with its line");
	char longline[400];
	snprintf(longline, sizeof longline, "[fs]\nwritable = /%0300d\n", 0);
	ok(load_text(longline, &err) < 0, "over-long line refused");
	like_str(err.msg, "line too long", "says so");
	ok(load_text("[fs]\nwritable = /tmp\n  /workspace\n", &err) == 0, "continuation line accepted");
	sp_policy_init(&p, &sp_doctor_registry);
	sp_policy_load_string(&p, "[fs]\nwritable = /tmp\n  /workspace\n", "t.ini", &err);
	is_str(sp_policy_get(&p, "fs.writable"), "/tmp,/workspace", "continuation appends to the list");
	sp_policy_free(&p);
	ok(load_text("[priv]\nno_new_privs = true\n  false\n", &err) < 0, "continuation of a bool is an error");

	char *f = write_tmp("[policy]\nbase = container\nname = mine\n[fs]\nwritable = /data\n");
	sp_policy_init(&p, &sp_doctor_registry);
	int r = sp_policy_load_file(&p, f, &err);
	ok(r == 0, "file with a base profile loads%s%s", r ? ": " : "", r ? err.msg : "");
	is_str(p.name, "mine", "its own name");
	is_str(sp_policy_get(&p, "fs.writable"), "/data", "its own value wins");
	is_str(sp_policy_get(&p, "ns.required"), "pid,net,mnt,uts,ipc", "base values inherited");
	sp_policy_free(&p);
	unlink(f);
	free(f);
	f = write_tmp("[policy]\nbase = nosuch\n");
	sp_policy_init(&p, &sp_doctor_registry);
	ok(sp_policy_load_file(&p, f, &err) < 0, "unknown base profile fails");
	like_str(err.msg, "unknown profile 'nosuch'", "naming it");
	sp_policy_free(&p);
	unlink(f);
	free(f);
	sp_policy_init(&p, &sp_doctor_registry);
	ok(sp_policy_load_file(&p, "/nonexistent/policy.ini", &err) < 0 && err.exit_code == SP_EXIT_USAGE,
	   "missing policy file is a usage error");
	like_str(err.msg, "/nonexistent/policy.ini", "naming the file");
	ok(sp_policy_load_profile(&p, "nosuch", &err) < 0, "unknown profile fails");
	like_str(err.msg, "shipped: ", "listing the shipped ones");
	sp_policy_free(&p);

	/* ---- value grammars -------------------------------------------------------- */
	sp_strv_split(&seen_keys, NULL, ",");
	sp_strv_split(&seen_types, NULL, ",");
	each_decl(check_decl);
	ok(bad_decls == 0, "every declared key's type is registered, and each key has one type");
	for (size_t i = 0; i < sp_policy_types_count; i++) {
		const sp_policy_type *t = sp_policy_types[i];
		ok(t->name && t->what && *t->what && (t->parse || t->choices) && !strpbrk(t->name, ":, "),
		   "type %s: a name, words for the docs and a grammar", t->name);
		ok(sp_policy_type_find(&sp_doctor_registry, t->name) == t, "type %s: its name is its own", t->name);
		bool tested = false;
		for (size_t c = 0; c < SP_ARRAY_SIZE(cases); c++)
			tested = tested || !strcmp(cases[c].type, t->name);
		ok(tested, "type %s has a malformed and a good value in this test", t->name);
		bool used = sp_strv_contains(&seen_types, t->name);
		ok(used, "type %s is declared by some key", t->name);
	}
	each_decl(test_key);
	ok(keys_tested > 60, "%zu keys with a grammar tested from a file and from --set", keys_tested);
	sp_strv_free(&seen_keys);
	sp_strv_free(&seen_types);

	/* an inherited base profile, then a bad value: the file's line */
	f = write_tmp("[policy]\nbase = strict\n[net]\negress.deny = 10.0.0.1:80, example.com:80\n");
	sp_policy_init(&p, &sp_doctor_registry);
	ok(sp_policy_load_file(&p, f, &err) < 0 && err.exit_code == SP_EXIT_USAGE, "a bad value after a base profile fails");
	_cleanup_free_ char *want = sp_xasprintf("%s:4: net.egress.deny: 'example.com:80'", f);
	like_str(err.msg, want, "naming the file's line, key and entry");
	sp_policy_free(&p);
	unlink(f);
	free(f);
	/* a continuation line is checked with the value it extends */
	ok(load_text("[net]\negress.deny = 10.0.0.1:80,\n  10.0.0.2\n", &err) < 0, "a bad continuation line fails");
	like_str(err.msg, "t.ini:3: net.egress.deny: '10.0.0.2'", "naming the continuation's line");
	ok(load_text("[tools]\nprobes = ls => .;\n  sh -c 'exit 0' => (\n", &err) < 0, "a bad probe on a continuation fails");
	like_str(err.msg, "t.ini:3: tools.probes:", "naming that line");
	ok(load_text("[tools]\nprobes = ls => .;\n  sh -c 'exit 0' => ^$\n", &err) == 0, "good continuation lines pass");
	/* a regex whose compile time explodes (glibc copies repetitions out) is
	 * refused before regcomp sees it: the loader has no timeout */
	static const char *const costly[] = {"tools.probes=ls => ^P+++++++++++++++++++++++++++++++++++++++",
					     "env.values=X~a{1,255}{1,255}", "env.kernel_release=~((a{1,20}){1,20}){1,20}",
					     "env.values=X~x{32767}"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(costly); i++) {
		ok(sp_policy_set(&p, costly[i], &err) < 0, "refused: %s", costly[i]);
		like_str(err.msg, "repetitions multiply out", "... saying why");
	}
	static const char *const fine[] = {"tools.probes=ls => ^P++++++++", "env.values=X~[]a-z[:digit:]]{1,200}",
					   "env.kernel_release=~^(6|7)\\.[0-9]{1,3}\\.", "env.values=X~a{2,}b{0,9}|c?d*"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(fine); i++) {
		sp_error_clear(&err);
		ok(sp_policy_set(&p, fine[i], &err) == 0, "accepted: %s%s%s", fine[i], err.msg[0] ? ": " : "", err.msg);
	}

	/* more entries than the check probes: refused, not dropped */
	ok(sp_policy_set(&p, "tls.denied_hosts=a.example,b.example,c.example,d.example,e.example", &err) < 0,
	   "a fifth tls.denied_hosts entry is refused (four are probed)");
	like_str(err.msg, "5 entries, at most 4", "saying how many are probed");
	/* credentials in a URL never reach the error */
	ok(sp_policy_set(&p, "net.proxy=http://agent:hunter2@10.0.0.1:99999", &err) < 0, "bad proxy port refused");
	ok(!strstr(err.msg, "hunter2"), "the proxy's password is not in the message (%s)", err.msg);
	like_str(err.msg, "--set net.proxy=http://<redacted>@10.0.0.1:99999: net.proxy:", "the rest of the place is");
	/* an empty value is "unset" for every grammar but bool and int */
	ok(sp_policy_set(&p, "net.proxy=", &err) == 0 && sp_policy_set(&p, "tools.probes=", &err) == 0,
	   "an empty grammar value is accepted (unset)");
	ok(sp_policy_set(&p, "cgroup.pids_max=", &err) < 0, "an empty int is not");
	ok(sp_policy_set(&p, "cgroup.pids_max=9223372036854775808", &err) < 0, "an int beyond what the checks read is refused");
	sp_policy_free(&p);

	/* the loader knows only the registry it is handed (core knows no checks) */
	static const char *const colours[] = {"red", "blue", NULL};
	static const sp_policy_type t_colour = {.name = "colour", .what = "red or blue", .choices = colours};
	static const sp_policy_type *const u_types[] = {&t_colour};
	static const sp_check u_check = {.id = "u.one", .category = "unit", .policy_keys = "u.size:int,u.paint:colour"};
	static const sp_check *const u_checks[] = {&u_check};
	static const sp_registry u_reg = {.checks = u_checks, .nchecks = 1, .types = u_types, .ntypes = 1,
					  .runner_keys = "u.runner:bool"};
	sp_policy_init(&p, &u_reg);
	ok(sp_policy_set(&p, "u.size=12", &err) == 0 && sp_policy_int(&p, "u.size", 0) == 12, "own registry: its int key");
	ok(sp_policy_set(&p, "u.size=big", &err) < 0 && err.exit_code == SP_EXIT_USAGE, "own registry: its key's type is checked");
	ok(sp_policy_set(&p, "u.paint=blue", &err) == 0, "own registry: its registered grammar accepts");
	ok(sp_policy_set(&p, "u.paint=green", &err) < 0, "own registry: its registered grammar refuses");
	ok(sp_policy_set(&p, "u.runner=yes", &err) == 0, "own registry: its runner keys");
	ok(sp_policy_set(&p, "ns.required=pid", &err) < 0, "own registry: the doctor's keys are unknown to it");
	ok(sp_policy_set(&p, "expect.u.*=advisory", &err) == 0 && sp_policy_expect(&p, "u.one") == SP_EXPECT_ADVISORY,
	   "own registry: expect globs match its checks");
	ok(sp_policy_set(&p, "expect.ns.*=off", &err) < 0, "own registry: and not the doctor's");
	ok(sp_policy_type_find(&u_reg, "colour") == &t_colour && !sp_policy_type_find(&sp_doctor_registry, "colour"),
	   "types are looked up in the registry given");
	ok(sp_policy_load_profile(&p, "strict", &err) < 0, "a shipped profile does not load against a foreign registry");
	sp_policy_free(&p);
	ok(p.reg == &u_reg, "sp_policy_free keeps the registry");

	/* the runner judges against the boundary it is handed, not one it detects */
	sp_policy_init(&p, &sp_doctor_registry);
	ok(sp_policy_set(&p, "kernel.separate_kernel=user-space", &err) == 0, "kernel.separate_kernel=user-space");
	sp_ctx kctx = {.policy = &p, .profile = "unit"};
	static const sp_check k_check = {.id = "u.kernel", .category = "unit", .flags = SP_CHECK_KERNEL_USERSPACE};
	sp_boundary gvisor = {.kind = SP_KERNEL_USERSPACE};
	snprintf(gvisor.kernel, sizeof gvisor.kernel, "gVisor");
	sp_boundary host = {.kind = SP_KERNEL_HOST};
	snprintf(host.kernel, sizeof host.kernel, "host");
	ok(sp_boundary_accepts(&kctx, &gvisor, SP_CHECK_KERNEL_USERSPACE), "a user-space kernel the policy accepts");
	ok(!sp_boundary_accepts(&kctx, &gvisor, SP_CHECK_KERNEL_GUEST), "not for a check that only a guest kernel covers");
	ok(!sp_boundary_accepts(&kctx, &host, SP_CHECK_KERNEL), "the host's kernel is never a separate one");
	sp_result kr = {.status = SP_STATUS_FAIL};
	snprintf(kr.detail, sizeof kr.detail, "probe failed");
	sp_judge_boundary(&kctx, &gvisor, &k_check, &kr);
	is_int(kr.status, SP_STATUS_PASS, "judged against the given user-space boundary: pass");
	like_str(kr.observed, "kernel boundary: user-space (gVisor), accepted by kernel.separate_kernel",
		 "observed names the given boundary");
	sp_result hr = {.status = SP_STATUS_FAIL};
	sp_judge_boundary(&kctx, &host, &k_check, &hr);
	is_int(hr.status, SP_STATUS_FAIL, "judged against the given host boundary: the failure stands");
	is_str(hr.observed, "judged against the host's kernel", "saying so");
	sp_policy_free(&p);
	return done_testing();
}
