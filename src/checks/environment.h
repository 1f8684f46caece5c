/* Environment checks (src/checks/environment.c). */
#ifndef SP_ENVIRONMENT_H
#define SP_ENVIRONMENT_H

/* The credential shape a "NAME=value" entry matches ("GitHub token",
 * "secret-named variable" ...), or NULL. Never returns the value. */
const char *sp_env_credential_shape(const char *entry);

/* The credential shape found in one line of a configuration file (JSON,
 * TOML, YAML, INI, dotenv), or NULL: a known token shape anywhere in the
 * line, or a secret-named key ("api_key", "token", "password" ...) with a
 * token-like value (12+ characters of [A-Za-z0-9_+=-], at least one digit).
 * Never returns the value. */
const char *sp_text_credential_shape(const char *line);

#endif
