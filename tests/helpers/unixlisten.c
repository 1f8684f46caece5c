/* Test helper: listen on a unix stream socket and accept (then close)
 * connections until killed. The parent returns once the socket is bound and
 * listening, printing the listener's pid.
 *   unixlisten PATH        a socket file
 *   unixlisten @NAME       an abstract socket */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: unixlisten PATH|@NAME\n");
		return 2;
	}
	struct sockaddr_un a;
	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	size_t len = strlen(argv[1]);
	if (len + 1 >= sizeof a.sun_path)
		return 2;
	socklen_t sl;
	if (argv[1][0] == '@') {
		memcpy(a.sun_path + 1, argv[1] + 1, len - 1);
		sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	} else {
		memcpy(a.sun_path, argv[1], len);
		sl = sizeof a;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sl) < 0 || listen(fd, 16) < 0) {
		perror("unixlisten");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		printf("%d\n", (int)pid);
		return 0;
	}
	setsid();
	if (!freopen("/dev/null", "w", stdout))
		return 1;
	for (;;) {
		int c = accept(fd, NULL, NULL);
		if (c >= 0)
			close(c);
	}
}
