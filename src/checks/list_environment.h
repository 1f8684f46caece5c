/* checks of category environment: SP_X(symbol) lines (X-macro, no guard) */
