/* Scope-bound cleanup helpers (GCC/Clang cleanup attribute), as in crun and
 * systemd: a variable marked _cleanup_X_ is released when it goes out of
 * scope; hand ownership out visibly with steal_pointer()/steal_fd(). */
#ifndef SP_CLEANUP_H
#define SP_CLEANUP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static inline void sp_freep(void *p) { free(*(void **)p); }
static inline void sp_closep(int *fd) { if (*fd >= 0) close(*fd); }
static inline void sp_fclosep(FILE **f) { if (*f) fclose(*f); }
static inline void sp_closedirp(DIR **d) { if (*d) closedir(*d); }

#define _cleanup_free_ __attribute__((cleanup(sp_freep)))
#define _cleanup_close_ __attribute__((cleanup(sp_closep)))
#define _cleanup_fclose_ __attribute__((cleanup(sp_fclosep)))
#define _cleanup_closedir_ __attribute__((cleanup(sp_closedirp)))

static inline void *sp_steal_pointer(void *pp)
{
	void **p = pp;
	void *v = *p;
	*p = NULL;
	return v;
}
#define steal_pointer(pp) sp_steal_pointer(pp)

static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

#endif
