/* Seccomp profiles: the Docker/containers-common JSON format (names, action,
 * args, includes/excludes, archMap) and the OCI linux.seccomp object
 * (architectures, syscalls). The same rules run on both. */
#include <jansson.h>
#include <string.h>

#include "lint/checkreg.h"
#include "lint/lint.h"

static const sp_lint_jschema seccomp_schema[] = {
	{"", 'o'},
	{"/defaultAction", 's'},
	{"/defaultErrnoRet", 'i'},
	{"/architectures", 'A'},
	{"/architectures/*", 's'},
	{"/archMap", 'A'},
	{"/archMap/*", 'o'},
	{"/archMap/*/architecture", 's'},
	{"/archMap/*/subArchitectures", 'A'},
	{"/archMap/*/subArchitectures/*", 's'},
	{"/syscalls", 'A'},
	{"/syscalls/*", 'o'},
	{"/syscalls/*/names", 'A'},
	{"/syscalls/*/names/*", 's'},
	{"/syscalls/*/name", 's'},
	{"/syscalls/*/action", 's'},
	{"/syscalls/*/args", 'A'},
	{"/syscalls/*/args/*", 'o'},
	{"/syscalls/*/args/*/index", 'i'},
	{"/syscalls/*/args/*/value", 'i'},
	{"/syscalls/*/args/*/valueTwo", 'i'},
	{"/syscalls/*/args/*/op", 's'},
	{"/syscalls/*/includes", 'o'},
	{"/syscalls/*/includes/caps", 'A'},
	{"/syscalls/*/includes/caps/*", 's'},
	{"/syscalls/*/includes/arches", 'A'},
	{"/syscalls/*/includes/arches/*", 's'},
	{"/syscalls/*/excludes", 'o'},
	{"/syscalls/*/excludes/caps", 'A'},
	{"/syscalls/*/excludes/arches", 'A'},
};

int sp_lint_seccomp_validate_at(const sp_lint_file *f, void *obj, const char *prefix, sp_error *err)
{
	if (sp_lint_json_schema(f, obj, prefix, seccomp_schema, SP_ARRAY_SIZE(seccomp_schema), err) < 0)
		return -1;
	if (!json_object_get(obj, "defaultAction"))
		return sp_lint_json_type_error(f, prefix, err, "defaultAction is required");
	return 0;
}

int sp_lint_seccomp_validate(sp_lint_file *f, sp_error *err)
{
	return sp_lint_seccomp_validate_at(f, f->json, "", err);
}

static bool action_allows(const char *a)
{
	return a && (!strcmp(a, "SCMP_ACT_ALLOW") || !strcmp(a, "SCMP_ACT_LOG"));
}

static const char *const dangerous[] = {
	"mount",	"umount2",	    "fsopen",	     "fsmount",	       "move_mount",	   "open_tree",
	"ptrace",	"bpf",		    "keyctl",	     "add_key",	       "request_key",	   "unshare",
	"setns",	"kexec_load",	    "kexec_file_load", "init_module",  "finit_module",	   "delete_module",
	"open_by_handle_at", "userfaultfd", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"personality",
};

/* CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET */
#define NS_FLAGS 0x7E020000ull

enum cond { COND_ALWAYS, COND_CAPS, COND_NOT_HERE };

/* when does a Docker-format entry apply? */
static enum cond entry_condition(json_t *e, const char **cap)
{
	json_t *inc = json_object_get(e, "includes");
	json_t *arches = json_object_get(inc, "arches");
	if (json_array_size(arches)) {
		bool x86 = false;
		size_t i;
		json_t *v;
		json_array_foreach(arches, i, v) {
			const char *a = json_string_value(v);
			if (a && (strstr(a, "amd64") || strstr(a, "x86") || strstr(a, "X86") || strstr(a, "x32") ||
				  strstr(a, "X32")))
				x86 = true;
		}
		if (!x86)
			return COND_NOT_HERE;
	}
	json_t *caps = json_object_get(inc, "caps");
	if (json_array_size(caps)) {
		*cap = json_string_value(json_array_get(caps, 0));
		return COND_CAPS;
	}
	return COND_ALWAYS;
}

/* does entry e name the syscall? *sub gets the pointer suffix of the name */
static bool entry_names(json_t *e, const char *name, char *sub, size_t subsz)
{
	const char *one = json_string_value(json_object_get(e, "name"));
	if (one && !strcmp(one, name)) {
		snprintf(sub, subsz, "/name");
		return true;
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(e, "names"), i, v)
		if (!strcmp(json_string_value(v), name)) {
			snprintf(sub, subsz, "/names/%zu", i);
			return true;
		}
	return false;
}

/* an args filter on clone that pins every namespace flag to zero */
static bool clone_filtered(json_t *args)
{
	size_t i;
	json_t *a;
	json_array_foreach(args, i, a) {
		const char *op = json_string_value(json_object_get(a, "op"));
		json_int_t idx = json_integer_value(json_object_get(a, "index"));
		unsigned long long mask = (unsigned long long)json_integer_value(json_object_get(a, "value"));
		unsigned long long want = (unsigned long long)json_integer_value(json_object_get(a, "valueTwo"));
		if (op && !strcmp(op, "SCMP_CMP_MASKED_EQ") && (idx == 0 || idx == 1) && (mask & NS_FLAGS) == NS_FLAGS &&
		    (want & NS_FLAGS) == 0)
			return true;
	}
	return false;
}

static void check_syscall(sp_lint *l, size_t fi, json_t *sys, const char *prefix, const char *name)
{
	size_t i;
	json_t *e;
	bool reported = false;
	json_array_foreach(sys, i, e) {
		char sub[32];
		if (!entry_names(e, name, sub, sizeof sub) || !action_allows(json_string_value(json_object_get(e, "action"))))
			continue;
		const char *cap = NULL;
		enum cond c = entry_condition(e, &cap);
		if (c == COND_NOT_HERE)
			continue;
		json_t *args = json_object_get(e, "args");
		bool clone = !strcmp(name, "clone"), clone3 = !strcmp(name, "clone3");
		_cleanup_free_ char *p = sp_xasprintf("%s/syscalls/%zu%s", prefix, i, sub);
		if (clone || clone3) {
			if (c != COND_ALWAYS || (clone && clone_filtered(args)) || reported)
				continue;
			reported = true;
			if (clone3)
				sp_lint_report(l, fi, SP_LR_SECCOMP_CLONE_NS, p, 0, 0,
					       "clone3 is allowed: its flags live in memory, seccomp cannot filter them "
					       "(return ENOSYS so that libc falls back to clone)");
			else
				sp_lint_report(l, fi, SP_LR_SECCOMP_CLONE_NS, p, 0, 0,
					       "clone is allowed %s", json_array_size(args) ? "with an argument filter that does not "
										     "mask the CLONE_NEW* flags"
										   : "without an argument filter on its flags");
			continue;
		}
		if (json_array_size(args) || reported)
			continue;
		if (c == COND_CAPS) {
			sp_lint_report(l, fi, SP_LR_SECCOMP_DANGEROUS_CAP, p, 0, 0, "%s is allowed when %s is held", name,
				       cap ? cap : "a capability");
			continue;
		}
		reported = true;
		sp_lint_report(l, fi, SP_LR_SECCOMP_DANGEROUS, p, 0, 0, "%s is allowed without an argument filter", name);
	}
}

static bool arch_listed(json_t *obj, const char *arch)
{
	size_t i, k;
	json_t *v, *s;
	json_array_foreach(json_object_get(obj, "architectures"), i, v)
		if (!strcmp(json_string_value(v), arch))
			return true;
	json_array_foreach(json_object_get(obj, "archMap"), i, v) {
		const char *a = json_string_value(json_object_get(v, "architecture"));
		if (a && !strcmp(a, arch))
			return true;
		json_array_foreach(json_object_get(v, "subArchitectures"), k, s)
			if (!strcmp(json_string_value(s), arch))
				return true;
	}
	return false;
}

/* A filter's rules, run when its default action does not allow (listing
 * what is allowed on top of allow-all would only repeat it): each check
 * below joins this table where it is defined and they run in the order they
 * are written (checkreg.h). */
typedef void seccomp_check(sp_lint *l, size_t fi, json_t *obj, const char *prefix);
SP_LINT_CHECKS(seccomp_checks, seccomp_check);

static void check_dangerous(sp_lint *l, size_t fi, json_t *obj, const char *prefix)
{
	json_t *sys = json_object_get(obj, "syscalls");
	for (size_t k = 0; k < SP_ARRAY_SIZE(dangerous); k++)
		check_syscall(l, fi, sys, prefix, dangerous[k]);
}
SP_LINT_CHECK(seccomp_checks, check_dangerous);

static void check_clone(sp_lint *l, size_t fi, json_t *obj, const char *prefix)
{
	json_t *sys = json_object_get(obj, "syscalls");
	check_syscall(l, fi, sys, prefix, "clone");
	check_syscall(l, fi, sys, prefix, "clone3");
}
SP_LINT_CHECK(seccomp_checks, check_clone);

static void check_arch(sp_lint *l, size_t fi, json_t *obj, const char *prefix)
{
	if (arch_listed(obj, "SCMP_ARCH_X86_64")) {
		bool x86 = arch_listed(obj, "SCMP_ARCH_X86"), x32 = arch_listed(obj, "SCMP_ARCH_X32");
		if (!x86 || !x32) {
			_cleanup_free_ char *p = sp_xasprintf("%s/%s", prefix,
							      json_object_get(obj, "archMap") ? "archMap" : "architectures");
			sp_lint_report(l, fi, SP_LR_SECCOMP_ARCH, p, 0, 0, "SCMP_ARCH_X86_64 is listed without %s%s%s",
				       x86 ? "" : "SCMP_ARCH_X86", !x86 && !x32 ? " and " : "", x32 ? "" : "SCMP_ARCH_X32");
		}
	}
}
SP_LINT_CHECK(seccomp_checks, check_arch);

void sp_lint_seccomp_check_obj(sp_lint *l, size_t fi, void *obj, const char *prefix)
{
	const char *def = json_string_value(json_object_get(obj, "defaultAction"));
	_cleanup_free_ char *dp = sp_xasprintf("%s/defaultAction", prefix);
	if (action_allows(def)) {
		sp_lint_report(l, fi, SP_LR_SECCOMP_DEFAULT_ALLOW, dp, 0, 0,
			       "defaultAction %s: every syscall not listed is allowed", def);
		return;
	}
	for (const struct seccomp_checks_entry *c = seccomp_checks; c; c = c->next)
		c->fn(l, fi, obj, prefix);
}

void sp_lint_seccomp_check(sp_lint *l, size_t fi)
{
	sp_lint_seccomp_check_obj(l, fi, l->files[fi].json, "");
}
