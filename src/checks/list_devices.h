/* checks of category devices: SP_X(symbol) lines (X-macro, no guard) */
