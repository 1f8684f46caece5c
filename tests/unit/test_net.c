/* Unit tests for the network probe engine's parsers and classifiers, the
 * credential shapes, the manifest's mode parser and the workflow digest. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "checks/environment.h"
#include "checks/manifest.h"
#include "checks/net_probe.h"
#include "checks/net_proxy.h"
#include "checks/roundtrip.h"
#include "tap.h"

static void test_ipv4_forms(void)
{
	uint32_t a;
	is_int(sp_net_parse_ipv4_any("10.203.0.1", &a), 0, "dotted parses");
	is_int(a, 0x0acb0001, "dotted value");
	is_int(sp_net_parse_ipv4_any("012.0313.0.01", &a), 0, "octal parts parse");
	is_int(a, 0x0acb0001, "octal value");
	is_int(sp_net_parse_ipv4_any("0x0a.0xcb.0x00.0x01", &a), 0, "hex parts parse");
	is_int(a, 0x0acb0001, "hex value");
	is_int(sp_net_parse_ipv4_any("181075969", &a), 0, "integer parses");
	is_int(a, 0x0acb0001, "integer value");
	is_int(sp_net_parse_ipv4_any("0x0acb0001", &a), 0, "hex integer parses");
	is_int(a, 0x0acb0001, "hex integer value");
	is_int(sp_net_parse_ipv4_any("10.13303809", &a), 0, "a.b form (inet_aton) parses");
	is_int(a, 0x0acb0001, "a.b value");
	is_int(sp_net_parse_ipv4_any("10.203.1", &a), 0, "a.b.c form parses");
	is_int(a, 0x0acb0001, "a.b.c value");
	is_int(sp_net_parse_ipv4_any("256.1.1.1", &a), -1, "a part over 255 is refused");
	is_int(sp_net_parse_ipv4_any("1.2.3.4.5", &a), -1, "five parts refused");
	is_int(sp_net_parse_ipv4_any("08.1.1.1", &a), -1, "8 is not an octal digit");
	is_int(sp_net_parse_ipv4_any("1..2", &a), -1, "empty part refused");
	is_int(sp_net_parse_ipv4_any("0x", &a), -1, "bare 0x refused");
	is_int(sp_net_parse_ipv4_any("4294967296", &a), -1, "integer over 32 bits refused");
	is_int(sp_net_parse_ipv4_any("1.2.3.", &a), -1, "trailing dot refused");
	/* every generated form decodes back to the address, as libc's inet_aton would */
	uint32_t addrs[] = {0x0acb0001, 0x01010101, 0xa9fea9fe, 0xffffffff, 0};
	for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++)
		for (sp_ipform f = SP_IPF_DOTTED; f <= SP_IPF_HEXINT; f++) {
			char txt[64];
			sp_ipv4_format(addrs[i], f, txt, sizeof txt);
			struct in_addr libc;
			ok(sp_net_parse_ipv4_any(txt, &a) == 0 && a == addrs[i] && inet_aton(txt, &libc) == 1 &&
				   ntohl(libc.s_addr) == addrs[i],
			   "form %s '%s' decodes to %08x (ours and inet_aton agree)", sp_ipform_name(f), txt, addrs[i]);
		}
	char m[64];
	sp_ipv4_format(0x0acb0001, SP_IPF_MAPPED, m, sizeof m);
	is_str(m, "::ffff:10.203.0.1", "v4-mapped form");
}

static void test_hostport(void)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char txt[80];
	sp_outcome o = {0};
	is_int(sp_net_parse_hostport("10.203.0.1:80", 0, &sa, &len, &o), 0, "IPv4 host:port");
	sp_net_format_sa((struct sockaddr *)&sa, txt, sizeof txt);
	is_str(txt, "10.203.0.1:80", "formats back");
	is_int(sp_net_parse_hostport("[fd00:5a9d::1]:443", 0, &sa, &len, &o), 0, "[IPv6]:port");
	sp_net_format_sa((struct sockaddr *)&sa, txt, sizeof txt);
	is_str(txt, "[fd00:5a9d::1]:443", "IPv6 formats back");
	is_int(sp_net_parse_hostport("10.0.0.1", 53, &sa, &len, &o), 0, "default port applies");
	is_int(ntohs(((struct sockaddr_in *)&sa)->sin_port), 53, "default port is 53");
	is_int(sp_net_parse_hostport("10.0.0.1", 0, &sa, &len, &o), -1, "no port and no default: error");
	is_int(sp_net_parse_hostport("example.com:80", 0, &sa, &len, &o), -1, "names are refused");
	like_str(o.why, "not an IP literal", "the reason says why");
	is_int(sp_net_parse_hostport("fd00::1:80", 0, &sa, &len, &o), -1, "bare IPv6 with port refused");
	is_int(sp_net_parse_hostport("10.0.0.1:70000", 0, &sa, &len, &o), -1, "port out of range");
	is_int(sp_net_parse_hostport("[::1", 0, &sa, &len, &o), -1, "unterminated bracket");
	sp_net_parse_hostport("169.254.169.254:80", 0, &sa, &len, &o);
	ok(sp_net_addr_is_internal((struct sockaddr *)&sa), "metadata address is internal");
	sp_net_parse_hostport("[fd00:ec2::254]:80", 0, &sa, &len, &o);
	ok(sp_net_addr_is_internal((struct sockaddr *)&sa), "fd00::/8 is internal");
	sp_net_parse_hostport("1.1.1.1:80", 0, &sa, &len, &o);
	ok(!sp_net_addr_is_internal((struct sockaddr *)&sa), "a public address is not internal");
}

static void test_classify(void)
{
	is_int(sp_net_classify_errno(ECONNREFUSED), SP_NC_REFUSED, "ECONNREFUSED: refused");
	ok(sp_netclass_leaked(SP_NC_REFUSED), "a refusal is a leak (a packet came back)");
	ok(sp_netclass_leaked(SP_NC_CONNECTED) && sp_netclass_leaked(SP_NC_REPLIED), "connected/replied are leaks");
	is_int(sp_net_classify_errno(ENETUNREACH), SP_NC_UNREACH, "ENETUNREACH: unreachable");
	is_int(sp_net_classify_errno(EHOSTUNREACH), SP_NC_UNREACH, "EHOSTUNREACH: unreachable");
	is_int(sp_net_classify_errno(ETIMEDOUT), SP_NC_TIMEOUT, "ETIMEDOUT: timeout");
	is_int(sp_net_classify_errno(EPERM), SP_NC_FILTERED, "EPERM: filtered");
	is_int(sp_net_classify_errno(EACCES), SP_NC_FILTERED, "EACCES: filtered");
	is_int(sp_net_classify_errno(EAFNOSUPPORT), SP_NC_NOFAMILY, "EAFNOSUPPORT: no family");
	is_int(sp_net_classify_errno(EBADF), SP_NC_ERROR, "anything else: error");
	ok(!sp_netclass_blocked(SP_NC_ERROR) && !sp_netclass_leaked(SP_NC_ERROR), "an error is neither a block nor a leak");
}

static void test_dns(void)
{
	uint8_t q[300];
	int n = sp_dns_build_query(q, sizeof q, 0x1234, "a.example", 1);
	is_int(n, 12 + 1 + 1 + 1 + 7 + 1 + 4, "query length");
	ok(q[0] == 0x12 && q[1] == 0x34 && q[2] == 0x01, "id and RD bit");
	uint8_t scratch[300];
	is_int(sp_dns_build_query(scratch, sizeof scratch, 1, "bad..name", 1), -1, "empty label refused");
	/* build a reply: the query + one A answer */
	uint8_t r[300];
	memcpy(r, q, (size_t)n);
	r[2] = 0x81;
	r[3] = 0x80;
	r[7] = 1; /* ANCOUNT */
	uint8_t rr[] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 203, 0, 77};
	memcpy(r + n, rr, sizeof rr);
	sp_dns_answer a;
	is_int(sp_dns_parse_reply(r, (size_t)n + sizeof rr, 0x1234, &a), 0, "reply parses");
	is_int(a.rcode, 0, "NOERROR");
	is_int(a.nanswers, 1, "one address");
	is_str(a.addrs[0], "10.203.0.77", "the address");
	is_int(sp_dns_parse_reply(r, (size_t)n + sizeof rr, 0x9999, &a), -1, "wrong id refused");
	is_int(sp_dns_parse_reply(r, (size_t)n + 5, 0x1234, &a), -1, "truncated answer refused");
	r[3] = 0x83;
	r[7] = 0;
	is_int(sp_dns_parse_reply(r, (size_t)n, 0x1234, &a), 0, "NXDOMAIN parses");
	is_int(a.rcode, 3, "rcode 3");
	/* a compression loop must not hang */
	uint8_t loop[] = {0x12, 0x34, 0x81, 0x80, 0, 0, 0, 1, 0, 0, 0, 0, 0xc0, 0x0c};
	is_int(sp_dns_parse_reply(loop, sizeof loop, 0x1234, &a), -1, "pointer loop refused");
}

/* replies are untrusted network input: mutate a valid one many times and
 * parse each (run under ASan/UBSan by tests/run --san) */
static void test_dns_mutations(void)
{
	uint8_t q[300], r[300];
	int n = sp_dns_build_query(q, sizeof q, 0x4242, "mut.example", 1);
	memcpy(r, q, (size_t)n);
	r[2] = 0x81;
	r[3] = 0x80;
	r[7] = 2;
	uint8_t rr[] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 203, 0, 1,
			0xc0, 0x0c, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16, 0xfd, 0, 0x5a, 0x9d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	memcpy(r + n, rr, sizeof rr);
	size_t len = (size_t)n + sizeof rr;
	sp_dns_answer a;
	is_int(sp_dns_parse_reply(r, len, 0x4242, &a), 0, "A + AAAA reply parses");
	is_int(a.nanswers, 2, "two addresses");
	is_str(a.addrs[1], "fd00:5a9d::1", "the AAAA address");
	uint32_t x = 2463534242u;
	size_t parsed = 0;
	for (int i = 0; i < 50000; i++) {
		uint8_t m[300];
		memcpy(m, r, len);
		size_t ml = len;
		for (int k = 0; k < 1 + i % 4; k++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			m[x % len] = (uint8_t)(x >> 8);
		}
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		if (i % 3 == 0)
			ml = x % (len + 1);
		m[0] = 0x42, m[1] = 0x42;
		parsed += sp_dns_parse_reply(m, ml, 0x4242, &a) == 0;
		if (a.nanswers > 64) {
			ok(0, "absurd answer count %u", a.nanswers);
			return;
		}
	}
	ok(parsed > 0, "50000 mutated replies parsed without a crash (%zu accepted)", parsed);
}

static void test_http(void)
{
	is_int(sp_http_status("HTTP/1.1 403 Forbidden\r\n\r\n"), 403, "status line");
	is_int(sp_http_status("HTTP/1.0 200 Connection established\r\n\r\n"), 200, "CONNECT status");
	is_int(sp_http_status("SSH-2.0-OpenSSH\r\n"), -1, "not HTTP");
}

static void test_credentials(void)
{
	/* synthetic values in the shapes of real tokens; none is a real credential */
	static const char *const bad[] = {
		"X=AKIAABCDEFGHIJKLMNOP",
		"GH=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345",
		"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
		"GOOGLE=AIzaSyAbcdefghijklmnopqrstuvwxyz0123456",
		"SLACK=xoxb-1234567890-abcdefghij",
		"T=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
		"K=-----BEGIN OPENSSH PRIVATE KEY-----",
		"DATABASE_URL=postgres://app:hunter2pass@db.internal/app",
		"MY_SECRET=abcdefgh12345678",
		"GITLAB=glpat-abcdefghijklmnopqrst",
		"HF=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
		/* by name, whatever the value's shape */
		"DB_PASSWORD=hunter2",
		"API_TOKEN=a/b+c",
		"MYAPP_PASS=correct horse battery",
		"STRIPE_API_KEY=abc",
		"GITHUB_PAT=x1",
		"BASIC_AUTH=user:pw",
		"aws_secret_access_key=short",
		/* by shape, whatever the name */
		"BLOB=Zq8vT2mNx4Lr7Ws1Kd9Fh3Yb6Gc0Pj5Ue2Ia8Oz",
		"SLACK2=xoxe-1234567890-abcdefghij",
		"V=hvs.CAESIabcdefghijklmnopqrstuvwxyz",
		"K2=-----BEGIN EC PRIVATE KEY-----",
		"AKEY=ASIAQQQQQQQQQQQQQQQQ",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(sp_env_credential_shape(bad[i]) != NULL, "flagged: %.*s...", 12, bad[i]);
	static const char *const good[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=/home/agent",
		"LANG=C.UTF-8",
		"TOKEN_FILE=/run/secrets/token",
		"HTTPS_PROXY=http://10.0.0.1:3128",
		"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1",
		"PASSWORD=",
		"TERM=xterm-256color",
		"PWD=/home/agent/work",
		"OLDPWD=/home/agent",
		"GIT_AUTHOR_NAME=Jane Doe",
		"XAUTHORITY=/home/agent/.Xauthority",
		"TOKENIZERS_PARALLELISM=false",
		"AWS_ACCESS_KEY_ID_FILE=/run/secrets/id",
		"API_TOKEN=${API_TOKEN}",
		"AUTH_URL=https://login.example.com/auth",
		"CLIENT_ID=app",
		"GIT_COMMIT=0123456789abcdef0123456789abcdef01234567",
		"JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64",
		"LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35",
		"MANPATH=/usr/local/share/man:/usr/share/man",
		"HOSTNAME=abcdef012345",
		"DESCRIPTION=the quick brown fox jumps over the lazy dog again",
		"UUID=123e4567-e89b-12d3-a456-426614174000",
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		ok(sp_env_credential_shape(good[i]) == NULL, "not flagged: %s", good[i]);
	is_str(sp_env_credential_shape("A=ghp_abcdefghijklmnopqrstuvwxyz0123456789"), "GitHub token", "shape named");

	/* lines of agent configuration files (JSON, TOML, YAML, dotenv) */
	static const char *const conf_bad[] = {
		"  \"apiKey\": \"a1b2c3d4e5f6g7h8\",",
		"password = \"hunter2hunter22\"",
		"access_token: 0123456789abcdef",
		"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
		"{\"env\":{\"GITHUB_TOKEN\":\"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}}",
		"client_secret='Zx9-Zx9-Zx9-Zx9'",
		"url = \"https://agent:s3cretpass@registry.internal/\"",
	};
	for (size_t i = 0; i < sizeof conf_bad / sizeof conf_bad[0]; i++)
		ok(sp_text_credential_shape(conf_bad[i]) != NULL, "config line flagged: %.*s...", 14, conf_bad[i]);
	static const char *const conf_good[] = {
		"\"max_tokens\": 4096,",
		"\"tokenizer\": \"cl100k_base_tokenizer_v2\",",
		"\"apiKey\": \"OPENAI_API_KEY_VARIABLE\",",
		"password = \"${DB_PASSWORD}\"",
		"password_min_length = 123456789012",
		"token_file = /run/secrets/token123456789",
		"api_key: <your key here>",
		"model = \"claude-sonnet-4-20250514\"",
		"",
	};
	for (size_t i = 0; i < sizeof conf_good / sizeof conf_good[0]; i++)
		ok(sp_text_credential_shape(conf_good[i]) == NULL, "config line not flagged: %s", conf_good[i]);
	is_str(sp_text_credential_shape("key = \"hunter2hunter2\" # password: abcdefgh12345678"), "secret-named key",
	       "a secret-named key later in the line is found");
}

static void test_manifest_mode(void)
{
	unsigned m;
	is_int(sp_manifest_parse_mode("0640", &m), 0, "0640");
	is_int(m, 0640, "value 0640");
	is_int(sp_manifest_parse_mode("1777", &m), 0, "1777");
	is_int(m, 01777, "sticky bit kept");
	is_int(sp_manifest_parse_mode("640", &m), 0, "three digits");
	is_int(sp_manifest_parse_mode("0800", &m), -1, "8 is not octal");
	is_int(sp_manifest_parse_mode("64", &m), -1, "too short");
	is_int(sp_manifest_parse_mode("017777", &m), -1, "too long");
}

static void test_digest(void)
{
	uint64_t h;
	uint64_t h2, h3;
	unsigned char blk[4096];
	for (size_t i = 0; i < sizeof blk; i++)
		blk[i] = (unsigned char)(i * 31 + 7);
	sp_wf_digest_init(&h);
	sp_wf_digest_update(&h, blk, sizeof blk);
	sp_wf_digest_init(&h2);
	sp_wf_digest_update(&h2, blk, sizeof blk);
	is_int((long long)h, (long long)h2, "digest is deterministic");
	blk[1234] ^= 0x10;
	sp_wf_digest_init(&h3);
	sp_wf_digest_update(&h3, blk, sizeof blk);
	ok(h3 != h, "one flipped bit changes the digest");
	blk[1234] ^= 0x10;
	sp_wf_digest_init(&h3);
	sp_wf_digest_update(&h3, blk, sizeof blk - 1);
	ok(h3 != h, "a truncated block changes the digest");
	sp_wf_digest_init(&h3);
	sp_wf_digest_update(&h3, blk, 5);
	sp_wf_digest_init(&h2);
	sp_wf_digest_update(&h2, "\0\0\0\0\0", 5);
	ok(h3 != h2, "tail bytes count");
	sp_wf_digest_init(&h3);
	sp_wf_digest_update(&h3, "", 0);
	sp_wf_digest_init(&h2);
	ok(h3 != h2, "an empty update still changes the state (length closes it)");
}

/* the engine on loopback only: a listener connects, a closed port refuses */
static void test_engine_loopback(void)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 4) < 0) {
		ok(1, "# SKIP no loopback");
		return;
	}
	socklen_t al = sizeof a;
	getsockname(l, (struct sockaddr *)&a, &al);
	/* a second socket bound but not listening: its port refuses */
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in b = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	bind(c, (struct sockaddr *)&b, sizeof b);
	socklen_t bl = sizeof b;
	getsockname(c, (struct sockaddr *)&b, &bl);
	sp_netprobe p[2];
	memset(p, 0, sizeof p);
	for (int i = 0; i < 2; i++) {
		p[i].check = "t";
		p[i].socktype = SOCK_STREAM;
		p[i].timeout_ms = 500;
		memcpy(&p[i].sa, i ? (void *)&b : (void *)&a, sizeof a);
		p[i].salen = sizeof a;
	}
	sp_net_run_parallel(p, 2, NULL, 0);
	is_int(p[0].cls, SP_NC_CONNECTED, "listening loopback port: connected");
	is_int(p[1].cls, SP_NC_REFUSED, "closed loopback port: refused");
	is_int(p[0].fd, -1, "probe sockets closed after the run");
	close(l);
	close(c);
}

int main(void)
{
	test_ipv4_forms();
	test_hostport();
	test_classify();
	test_dns();
	test_dns_mutations();
	test_http();
	test_credentials();
	test_manifest_mode();
	test_digest();
	test_engine_loopback();
	return done_testing();
}
