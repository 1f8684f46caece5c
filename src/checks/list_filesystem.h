/* checks of category filesystem: SP_X(symbol) lines (X-macro, no guard) */
SP_X(fs_rootfs_readonly)
SP_X(fs_writable_paths)
