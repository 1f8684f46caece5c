/* Sockets with a deadline: connect, wait, read exactly, send all, each
 * bounded by an sp_now_ns() deadline (blocking helpers for forked probes
 * and clients). Syscall-like primitives: they return -errno like the
 * kernel (-ETIMEDOUT at the deadline) and the caller classifies it. */
#ifndef SP_NETIO_H
#define SP_NETIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Connect with a deadline: returns a non-blocking fd, or -errno
 * (-ETIMEDOUT at the deadline). */
int sp_net_connect_deadline(const struct sockaddr *sa, socklen_t salen, uint64_t deadline_ns);
/* poll fd for ev until the deadline: its revents, -ETIMEDOUT or -errno */
int sp_net_wait(int fd, short ev, uint64_t deadline_ns);
/* exactly len bytes before the deadline: len, 0 at EOF before len, or -errno */
ssize_t sp_net_read_exact(int fd, void *buf, size_t len, uint64_t deadline_ns);
/* all of buf before the deadline: 0, -ETIMEDOUT or -errno; with
 * stop_on_input, 1 (early) as soon as the peer has something to say */
int sp_net_send_all(int fd, const void *buf, size_t len, uint64_t deadline_ns, bool stop_on_input);
/* Read a response head (HTTP): until "\r\n\r\n", EOF, size-1 bytes or the
 * deadline; buf is NUL-terminated. bytewise: one byte a read, so nothing
 * past the head is consumed (a TLS stream follows a CONNECT's answer), the
 * end seen in the last four bytes; else as much as there is, the end looked
 * for with strstr. The bytes read, or -errno (-ETIMEDOUT) when none were. */
ssize_t sp_net_read_head(int fd, char *buf, size_t size, uint64_t deadline_ns, bool bytewise);

#endif
