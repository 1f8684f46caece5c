/* checks of category tls: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(tls_ca_store, "tls.ca_store")
SP_X(tls_ca_env, "tls.ca_env")
SP_X(tls_intercept, "tls.intercept")
SP_X(tls_denied, "tls.denied")
