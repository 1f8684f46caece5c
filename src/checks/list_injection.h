/* checks of category injection: SP_X(symbol) lines (X-macro, no guard) */
