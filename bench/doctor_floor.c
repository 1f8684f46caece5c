/* The floor for bench/doctor: only the work the full catalogue cannot avoid,
 * done the cheapest way, in the same sandbox: one 10 MiB file written,
 * fsynced, read back and removed, and as many fork/exit probes and
 * fork/exec probes as the catalogue makes (counted by bench/doctor with
 * strace). Prints its own wall time in ms, as the doctor's duration_ms.
 *   doctor_floor FORKS EXECS [DIR] */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--noop"))
		return 0;
	if (argc < 3) {
		fprintf(stderr, "usage: doctor_floor FORKS EXECS [DIR]\n");
		return 2;
	}
	int forks = atoi(argv[1]), execs = atoi(argv[2]);
	const char *dir = argc > 3 ? argv[3] : "/tmp";
	double t0 = now_ms();
	for (int i = 0; i < forks + execs; i++) {
		pid_t p = fork();
		if (p == 0) {
			if (i >= forks)
				execl("/proc/self/exe", "doctor_floor", "--noop", (char *)NULL);
			_exit(0);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	char name[4096];
	snprintf(name, sizeof name, "%s/floor-%d", dir, (int)getpid());
	int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return 1;
	static unsigned char buf[1 << 16];
	uint64_t sum = 0;
	for (size_t off = 0; off < (10u << 20); off += sizeof buf) {
		for (size_t i = 0; i < sizeof buf; i += 8) {
			uint64_t x = (off + i) * 0xbf58476d1ce4e5b9ull;
			memcpy(buf + i, &x, 8);
		}
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			return 1;
	}
	if (fsync(fd) < 0 || lseek(fd, 0, SEEK_SET) != 0)
		return 1;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		sum += buf[0];
	close(fd);
	unlink(name);
	printf("%.3f %llu\n", now_ms() - t0, (unsigned long long)sum);
	return 0;
}
