/* checks of category workflows: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(wf_write_read, "wf.write_read")
SP_X(wf_fork_exec, "wf.fork_exec")
SP_X(wf_pipes, "wf.pipes")
SP_X(wf_bigfile, "wf.bigfile")
SP_X(wf_tmpdir, "wf.tmpdir")
SP_X(wf_signals, "wf.signals")
