/* checks of category injection: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(inject_env, "inject.env")
SP_X(inject_files, "inject.files")
