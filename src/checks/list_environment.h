/* checks of category environment: SP_X(symbol) lines (X-macro, no guard) */
SP_X(env_required)
SP_X(env_credentials)
SP_X(env_hostname)
SP_X(env_platform)
SP_X(env_mounts)
SP_X(env_clock)
SP_X(env_locale)
