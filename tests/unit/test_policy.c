/* Policies: profiles, files, --set, and every way a policy can be wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/check.h"
#include "core/policy.h"
#include "core/runner.h"
#include "core/util.h"
#include "tap.h"

static int load_text(const char *text, sp_error *err)
{
	sp_policy p;
	sp_policy_init(&p);
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

int main(void)
{
	sp_error err;
	sp_policy p;

	for (const struct sp_embedded_policy *e = sp_embedded_policies; e->name; e++) {
		sp_policy_init(&p);
		int r = sp_policy_load_profile(&p, e->name, &err);
		ok(r == 0, "shipped profile %s loads%s%s", e->name, r ? ": " : "", r ? err.msg : "");
		is_str(p.name, e->name, "profile %s names itself", e->name);
		sp_policy_free(&p);
	}
	sp_policy_init(&p);
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
	sp_policy_init(&p);
	sp_policy_load_string(&p, "[fs]\nwritable = /tmp\n  /workspace\n", "t.ini", &err);
	is_str(sp_policy_get(&p, "fs.writable"), "/tmp,/workspace", "continuation appends to the list");
	sp_policy_free(&p);
	ok(load_text("[priv]\nno_new_privs = true\n  false\n", &err) < 0, "continuation of a bool is an error");

	char *f = write_tmp("[policy]\nbase = container\nname = mine\n[fs]\nwritable = /data\n");
	sp_policy_init(&p);
	int r = sp_policy_load_file(&p, f, &err);
	ok(r == 0, "file with a base profile loads%s%s", r ? ": " : "", r ? err.msg : "");
	is_str(p.name, "mine", "its own name");
	is_str(sp_policy_get(&p, "fs.writable"), "/data", "its own value wins");
	is_str(sp_policy_get(&p, "ns.required"), "pid,net,mnt,uts,ipc", "base values inherited");
	sp_policy_free(&p);
	unlink(f);
	free(f);
	f = write_tmp("[policy]\nbase = nosuch\n");
	sp_policy_init(&p);
	ok(sp_policy_load_file(&p, f, &err) < 0, "unknown base profile fails");
	like_str(err.msg, "unknown profile 'nosuch'", "naming it");
	sp_policy_free(&p);
	unlink(f);
	free(f);
	sp_policy_init(&p);
	ok(sp_policy_load_file(&p, "/nonexistent/policy.ini", &err) < 0 && err.exit_code == SP_EXIT_USAGE,
	   "missing policy file is a usage error");
	like_str(err.msg, "/nonexistent/policy.ini", "naming the file");
	ok(sp_policy_load_profile(&p, "nosuch", &err) < 0, "unknown profile fails");
	like_str(err.msg, "shipped: ", "listing the shipped ones");
	sp_policy_free(&p);
	return done_testing();
}
