/* checks of category tls: SP_X(symbol) lines (X-macro, no guard) */
SP_X(tls_ca_store)
SP_X(tls_ca_env)
SP_X(tls_intercept)
SP_X(tls_denied)
