/* checks of category cgroups: SP_X(symbol) lines (X-macro, no guard) */
