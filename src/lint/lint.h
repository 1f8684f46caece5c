/* sandprobe lint: the static tier. Each file is read once, parsed by the
 * library that owns its format (jansson, libyaml, a line reader for squid),
 * checked by the module of its kind (src/lint/<kind>.c), then checked against
 * the other files given with it (relations.c). Findings carry a stable rule
 * id (rules.h), a severity, the file and a JSON pointer and/or line:column.
 * A file that cannot be read, parsed or type-checked is reported as a
 * finding of rule lint.input_invalid at the place at fault, and the other
 * files are still linted; the command then exits 2 (see sandprobe-lint(1)). */
#ifndef SP_LINT_H
#define SP_LINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "core/util.h"

typedef enum sp_lint_kind {
	SP_LK_AUTO,
	SP_LK_OCI,
	SP_LK_ALLOWLIST,
	SP_LK_SECCOMP,
	SP_LK_COMPOSE,
	SP_LK_KUBE,
	SP_LK_SQUID,
} sp_lint_kind;

typedef enum sp_lint_sev { SP_SEV_NOTE, SP_SEV_WARNING, SP_SEV_ERROR } sp_lint_sev;

#include "lint/rules.h"

typedef enum sp_lint_rule_id {
#define SP_LR_ENUM(sym, ...) SP_LR_##sym,
	SP_LINT_RULES(SP_LR_ENUM)
#undef SP_LR_ENUM
	SP_LR__COUNT
} sp_lint_rule_id;

typedef struct sp_lint_rule {
	const char *id;
	sp_lint_kind kind; /* SP_LK_AUTO: a relation between files */
	sp_lint_sev sev;
	const char *title;
	const char *rationale;
	const char *techniques;
} sp_lint_rule;

extern const sp_lint_rule sp_lint_rules[SP_LR__COUNT];

/* A proxy setting found in a sandbox config (HTTPS_PROXY=...), for relations. */
typedef struct sp_lint_proxyref {
	char *name;  /* HTTPS_PROXY */
	char *value; /* http://127.0.0.1:3128 */
	char *pointer;
	unsigned line, column;
} sp_lint_proxyref;

struct sp_squid;

typedef struct sp_lint_file {
	char *path;
	sp_lint_kind kind;
	char *text;
	size_t len;
	void *json;            /* json_t * for oci, allowlist, seccomp */
	struct sp_squid *squid;
	bool checked;          /* compose, kube: linted while it was read */
	bool failed;           /* some of it could not be linted (lint.input_invalid) */
	bool is_sandbox;       /* oci or compose: may carry proxy settings */
	bool no_external;      /* from sp_lint_opts.no_external_files */
	sp_lint_proxyref *proxies;
	size_t nproxies;
} sp_lint_file;

typedef struct sp_lint_finding {
	sp_lint_rule_id rule;
	size_t file;
	char *pointer; /* JSON pointer (RFC 6901) or NULL */
	unsigned line, column; /* 1-based; 0 when unknown */
	char *message;
} sp_lint_finding;

typedef struct sp_lint_opts {
	const char *require_runtime_class; /* NULL: no RuntimeClass demanded */
	bool no_external_files; /* squid include and "acl file" are not read (fuzzing) */
} sp_lint_opts;

typedef struct sp_lint {
	sp_lint_opts opts;
	sp_lint_file *files;
	size_t nfiles;
	sp_lint_finding *f;
	size_t nf, capf;
} sp_lint;

/* Hard limits on input (a larger file is a usage error, exit 2). */
#define SP_LINT_MAX_FILE (64u << 20)
#define SP_LINT_MAX_DEPTH 64

void sp_lint_init(sp_lint *l, const sp_lint_opts *o);
void sp_lint_free(sp_lint *l);
/* Read path, detect or force its kind, parse it (compose and kube files are
 * linted as they are read, one document at a time). -1 with err on bad
 * input (exit 2: the file is kept, with a lint.input_invalid finding, and
 * the run goes on) or an internal error (exit 3). */
int sp_lint_add_file(sp_lint *l, const char *path, sp_lint_kind kind, sp_error *err);
/* The same from memory (fuzz harnesses, tests); the text is copied. */
int sp_lint_add_buffer(sp_lint *l, const char *name, const char *data, size_t len, sp_lint_kind kind, sp_error *err);
/* Run every file's rules, then the relations, then resolve positions and
 * sort the findings (file order, then line). Never fails. */
void sp_lint_run(sp_lint *l);
/* Worst severity present, or -1 when there is no finding. */
int sp_lint_worst(const sp_lint *l);

/* Add a finding; pointer may be NULL; line/column 0 for "resolve from the pointer". */
void sp_lint_report(sp_lint *l, size_t file, sp_lint_rule_id rule, const char *pointer, unsigned line,
		    unsigned column, const char *fmt, ...) SP_PRINTF(7, 8);

const char *sp_lint_kind_name(sp_lint_kind k);
int sp_lint_kind_parse(const char *s, sp_lint_kind *out);
const char *sp_lint_sev_name(sp_lint_sev s);
int sp_lint_sev_parse(const char *s, sp_lint_sev *out);
const sp_lint_rule *sp_lint_rule_find(const char *id);
/* Record err (a usage error "file[:line[:col]]: msg") as a lint.input_invalid
 * finding of file fi, and mark the file failed. */
void sp_lint_input_error(sp_lint *l, size_t fi, const sp_error *err);

/* Per-kind parsers and checkers (src/lint/<kind>.c). parse: -1 + err on
 * malformed input; check: runs the kind's rule checks, which join the kind's
 * table where each is defined (checkreg.h), and adds their findings. */
int sp_lint_json_parse(sp_lint_file *f, sp_error *err);
/* compose and kube: read, check and lint every document (yamldoc.c) */
int sp_lint_yaml_run(sp_lint *l, size_t fi, bool json, sp_error *err);
int sp_lint_squid_parse(sp_lint_file *f, sp_error *err);
int sp_lint_oci_validate(sp_lint_file *f, sp_error *err);
int sp_lint_seccomp_validate(sp_lint_file *f, sp_error *err);
int sp_lint_allowlist_validate(sp_lint_file *f, sp_error *err);
/* type checks of a seccomp object at pointer prefix (a profile, or OCI linux.seccomp) */
int sp_lint_seccomp_validate_at(const sp_lint_file *f, void *obj, const char *prefix, sp_error *err);
void sp_lint_oci_check(sp_lint *l, size_t fi);
void sp_lint_seccomp_check(sp_lint *l, size_t fi);
/* the seccomp rules on a seccomp object (a profile, or an OCI linux.seccomp) at pointer prefix */
void sp_lint_seccomp_check_obj(sp_lint *l, size_t fi, void *obj, const char *prefix);
void sp_lint_allowlist_check(sp_lint *l, size_t fi);
void sp_lint_squid_check(sp_lint *l, size_t fi);
void sp_lint_relations_check(sp_lint *l);
void sp_lint_squid_free(struct sp_squid *s);

/* Add a proxy reference found in a sandbox config. */
void sp_lint_add_proxyref(sp_lint_file *f, const char *name, const char *value, const char *pointer, unsigned line,
			  unsigned column);

/* JSON text positions (jsonpos.c). */
/* Append "/" + key escaped per RFC 6901 to a heap pointer string; returns it. */
char *sp_jptr_join(const char *base, const char *key);
char *sp_jptr_index(const char *base, size_t idx);
/* For each of n pointers, the line/column of its member key (or array
 * element) in text, or of its nearest ancestor that exists. */
void sp_jpos_resolve(const char *text, size_t len, char *const *ptrs, size_t n, unsigned *lines, unsigned *cols);
/* A type error at pointer in a JSON file: a usage error "file:line:col: pointer: msg". */
int sp_lint_json_type_error(const sp_lint_file *f, const char *pointer, sp_error *err, const char *fmt, ...)
	SP_PRINTF(4, 5);

/* Type checks of the fields a kind reads: each path is a JSON pointer whose
 * "*" segments match any member or element, with a type letter: o object,
 * a array, s string, b boolean, i integer, n number, A array or null. The
 * first value of the wrong type is a usage error with its position. */
typedef struct sp_lint_jschema {
	const char *path;
	char type;
} sp_lint_jschema;
int sp_lint_json_schema(const sp_lint_file *f, void *root, const char *prefix, const sp_lint_jschema *s, size_t n,
			sp_error *err);

/* Host-name helpers shared by allowlist and relations (allowlist.c). */
bool sp_lint_is_raw_ip(const char *h);
bool sp_lint_is_dns_name(const char *h);
/* Runtime sockets (docker, containerd, podman, cri-o, kubelet...) (oci.c). */
bool sp_lint_is_runtime_socket(const char *path);

/* Writers (output.c). */
typedef enum sp_lint_format { SP_LF_TEXT, SP_LF_JSON, SP_LF_SARIF } sp_lint_format;
int sp_lint_format_parse(const char *s, sp_lint_format *out);
/* 0, or -errno when the output cannot be written */
int sp_lint_write(FILE *f, sp_lint_format fmt, const sp_lint *l, sp_lint_sev fail_on);
int sp_lint_write_rules(FILE *f, sp_lint_format fmt);

#endif
