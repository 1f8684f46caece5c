/* Environment checks (src/checks/environment.c). */
#ifndef SP_ENVIRONMENT_H
#define SP_ENVIRONMENT_H

/* The credential shape a "NAME=value" entry matches ("GitHub token",
 * "secret-named variable" ...), or NULL. Never returns the value. */
const char *sp_env_credential_shape(const char *entry);

#endif
