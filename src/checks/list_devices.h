/* checks of category devices: SP_X(symbol) lines (X-macro, no guard) */
SP_X(dev_host_devices)
SP_X(dev_allowlist)
SP_X(dev_mknod)
SP_X(dev_block_devices)
SP_X(dev_tiocsti)
