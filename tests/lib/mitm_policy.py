"""mitmproxy addon for the agent tests: refuse the hosts in --set sp_deny
(a comma-separated list) with 403, at CONNECT and for requests (by Host, or
by the TLS server name the client sent: a transparent or reverse proxy's
only sight of the name), and
mark every answer it relays with a Via header (how a client tells the proxy
answered, not the origin)."""
from mitmproxy import ctx, http


def load(loader):
    loader.add_option("sp_deny", str, "", "hosts to refuse, comma-separated")


def _denied(host):
    return host in [h for h in ctx.options.sp_deny.split(",") if h]


def _refuse(flow):
    flow.response = http.Response.make(403, b"blocked by the sandbox policy\n",
                                       {"Content-Type": "text/plain", "Via": "1.1 sp-sandbox-proxy"})


def http_connect(flow):
    if _denied(flow.request.host):
        _refuse(flow)


def request(flow):
    if _denied(flow.request.pretty_host) or _denied(flow.client_conn.sni or ""):
        _refuse(flow)


def response(flow):
    flow.response.headers["Via"] = "1.1 sp-sandbox-proxy"
