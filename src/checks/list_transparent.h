/* checks of category network, transparent egress (src/checks/transparent.c):
 * SP_X(symbol) lines (X-macro, no guard) */
SP_X(net_transparent_direct)
SP_X(net_transparent_dns)
SP_X(net_transparent_ruleset)
