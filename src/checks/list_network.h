/* checks of category network: SP_X(symbol) lines (X-macro, no guard) */
