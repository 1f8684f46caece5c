#include "core/netio.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

int sp_net_wait(int fd, short ev, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now = sp_now_ns();
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = ev};
		int r = poll(&p, 1, (int)((deadline_ns - now + 999999) / 1000000ull));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r > 0)
			return p.revents;
	}
}

ssize_t sp_net_read_exact(int fd, void *buf, size_t len, uint64_t deadline_ns)
{
	size_t got = 0;
	while (got < len) {
		int ev = sp_net_wait(fd, POLLIN, deadline_ns);
		if (ev < 0)
			return ev;
		ssize_t n = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int sp_net_send_all(int fd, const void *buf, size_t len, uint64_t deadline_ns, bool stop_on_input)
{
	size_t off = 0;
	while (off < len) {
		int ev = sp_net_wait(fd, (short)(POLLOUT | (stop_on_input ? POLLIN : 0)), deadline_ns);
		if (ev < 0)
			return ev;
		if (stop_on_input && (ev & POLLIN))
			return 1;
		ssize_t n = send(fd, (const char *)buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

int sp_net_connect_deadline(const struct sockaddr *sa, socklen_t salen, uint64_t deadline_ns)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, sa, salen) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		return -e;
	}
	int w = sp_net_wait(fd, POLLOUT, deadline_ns);
	if (w < 0) {
		close(fd);
		return w;
	}
	int e = 0;
	socklen_t el = sizeof e;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
	if (e) {
		close(fd);
		return -e;
	}
	return fd;
}

ssize_t sp_net_read_head(int fd, char *buf, size_t size, uint64_t deadline_ns, bool bytewise)
{
	size_t got = 0;
	buf[0] = '\0';
	while (got + 1 < size) {
		int ev = sp_net_wait(fd, POLLIN, deadline_ns);
		if (ev < 0)
			return got ? (ssize_t)got : ev;
		ssize_t n = recv(fd, buf + got, bytewise ? 1 : size - 1 - got, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return got ? (ssize_t)got : -errno;
		if (n == 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (bytewise ? got >= 4 && !memcmp(buf + got - 4, "\r\n\r\n", 4) : strstr(buf, "\r\n\r\n") != NULL)
			break;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}
