/* checks of category workflows: SP_X(symbol) lines (X-macro, no guard) */
