/* checks of category devices: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(dev_host_devices, "dev.host_devices")
SP_X(dev_allowlist, "dev.allowlist")
SP_X(dev_mknod, "dev.mknod")
SP_X(dev_block_devices, "dev.block_devices")
SP_X(dev_tiocsti, "dev.tiocsti")
