/* Test helper: give a file a capability (security.capability, v2, permitted
 * + effective cap_net_raw), as `setcap cap_net_raw+ep FILE` would.
 *   setfcap FILE */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: setfcap FILE\n");
		return 2;
	}
	struct vfs_cap_data d;
	memset(&d, 0, sizeof d);
	d.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
	d.data[0].permitted = 1u << CAP_NET_RAW;
	if (setxattr(argv[1], "security.capability", &d, XATTR_CAPS_SZ_2, 0) < 0) {
		perror("setfcap");
		return 1;
	}
	return 0;
}
