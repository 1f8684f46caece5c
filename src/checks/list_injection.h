/* checks of category injection: SP_X(symbol) lines (X-macro, no guard) */
SP_X(inject_env)
SP_X(inject_files)
