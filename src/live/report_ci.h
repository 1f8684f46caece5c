/* The live report as JUnit XML and TAP 13 (live/report_ci.c). */
#ifndef SP_LIVE_REPORT_CI_H
#define SP_LIVE_REPORT_CI_H

#include <stdio.h>

#include "live/live.h"

void sp_live_write_junit(FILE *f, const sp_live_run *run);
void sp_live_write_tap(FILE *f, const sp_live_run *run);

#endif
