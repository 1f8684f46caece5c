/* checks of category seccomp: SP_X(symbol) lines (X-macro, no guard) */
SP_X(seccomp_mode)
