/* One entry point per verb; each parses its own arguments and returns an exit
 * code from core/error.h. Only these functions (and main) print errors. */
#ifndef SP_CMD_H
#define SP_CMD_H

int cmd_doctor(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_soak(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_atlas(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
/* sandprobe-doctor --live-lane NONCE ...: the doctor as a live lane's entrypoint, no shell needed (live_lane.c) */
int cmd_live_lane(int argc, char **argv);

#endif
