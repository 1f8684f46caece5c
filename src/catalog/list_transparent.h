/* checks of category network, transparent egress (src/checks/transparent.c):
 * SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(net_transparent_direct, "net.transparent.direct")
SP_X(net_transparent_dns, "net.transparent.dns")
SP_X(net_transparent_ruleset, "net.transparent.ruleset")
SP_X(net_transparent_proxied, "net.transparent.proxied")
SP_X(net_transparent_denied, "net.transparent.denied")
