/* checks of category kernel: SP_X(symbol) lines (X-macro, no guard) */
