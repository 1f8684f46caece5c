/* The verifier's verdict as JUnit XML and TAP 13 (evidence/ev_ci.c): one
 * test case per hard gate, in the order the verifier judged them. */
#ifndef SP_EV_CI_H
#define SP_EV_CI_H

#include <stdio.h>

#include "evidence/evidence.h"

void sp_verdict_print_junit(const sp_ev_verdict *v, FILE *f);
void sp_verdict_print_tap(const sp_ev_verdict *v, FILE *f);

#endif
