/* checks of category privileges: SP_X(symbol) lines (X-macro, no guard) */
SP_X(caps_effective)
SP_X(caps_bounding)
SP_X(priv_no_new_privs)
