/* The rule checks of a kind, found through a table each check joins where
 * it is defined, so that no dispatcher names them. A kind declares its
 * table once, with the type every check of it has:
 *
 *     typedef void compose_check(sp_lint *l, size_t fi, const struct svc *s);
 *     SP_LINT_CHECKS(compose_checks, compose_check);
 *
 * each check is a function of that type followed by the line that joins it:
 *
 *     static void check_user(sp_lint *l, size_t fi, const struct svc *s) { ... }
 *     SP_LINT_CHECK(compose_checks, check_user);
 *
 * (a function of another type does not compile), and the kind runs them:
 *
 *     for (const struct compose_checks_entry *c = compose_checks; c; c = c->next)
 *             c->fn(l, fi, s);
 *
 * The checks join at start-up (a constructor each) and run in the order of
 * their SP_LINT_CHECK lines in the file, whatever order the constructors
 * ran in: the findings reach the sort (lint.c) in the same order every run,
 * so equal keys keep one order. A table and its checks live in one file. */
#ifndef SP_LINT_CHECKREG_H
#define SP_LINT_CHECKREG_H

#define SP_LINT_CHECKS(table, fntype) \
	struct table##_entry { \
		fntype *fn; \
		unsigned line; /* the SP_LINT_CHECK line: the run order */ \
		struct table##_entry *next; \
	}; \
	static struct table##_entry *table

#define SP_LINT_CHECK(table, check) \
	static struct table##_entry table##_##check; \
	__attribute__((constructor)) static void table##_join_##check(void) \
	{ \
		struct table##_entry **p = &table; \
		while (*p && (*p)->line < table##_##check.line) \
			p = &(*p)->next; \
		table##_##check.next = *p; \
		*p = &table##_##check; \
	} \
	static struct table##_entry table##_##check = {check, __LINE__, NULL}

#endif
