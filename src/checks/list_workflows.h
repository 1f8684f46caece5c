/* checks of category workflows: SP_X(symbol) lines (X-macro, no guard) */
SP_X(wf_write_read)
SP_X(wf_fork_exec)
SP_X(wf_pipes)
SP_X(wf_bigfile)
SP_X(wf_tmpdir)
SP_X(wf_signals)
