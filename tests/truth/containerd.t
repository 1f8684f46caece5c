#!/usr/bin/env bash
# Ground truth on containerd (a private one, tests/lib/engines.sh) through
# ctr: an image-less container from the truth rootfs with the default runc
# shim (ctr applies no seccomp profile unless asked), the same with
# --seccomp (containerd's default profile) and --read-only, and gVisor
# through a runsc wrapper as the shim's runc binary. Facts and expectations:
# tests/truth/lib.sh.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need containerd "containerd not installed (Debian package containerd)"
need ctr
truth_rootfs "$TR/rootfs"
sp_containerd_start || skip_all "the private containerd did not start"
NS=sp-truth-$$
c_default() { ctr -n "$NS" run --rm --env PATH=/bin --rootfs "$TR/rootfs" "ctr-$$-a" /bin/sh -c "$1"; }
c_hard() { ctr -n "$NS" run --rm --env PATH=/bin --seccomp --rootfs "$TR/rootfs" "ctr-$$-b" /bin/sh -c "$1"; }
cell ctr-runc host c_default && assert_cell ctr-runc
cell ctr-runc-seccomp host c_hard && assert_cell ctr-runc-seccomp
expect_engine ctr-runc containerd runc
expect_engine ctr-runc-seccomp containerd runc
if command -v runsc >/dev/null 2>&1; then
	sp_runsc_wrapper "$TR/runsc-wrap"
	c_runsc() { ctr -n "$NS" run --rm --env PATH=/bin --runc-binary "$TR/runsc-wrap" --rootfs "$TR/rootfs" "ctr-$$-g" /bin/sh -c "$1"; }
	# the wrapper starts runsc with --network=none (tests/lib/engines.sh): gVisor's netstack
	cell_inside ctr-runsc user-space c_runsc && echo "gvisor.network none" >>"$TR/ctr-runsc.facts" &&
		assert_cell ctr-runsc
	expect_engine ctr-runsc containerd gvisor
else
	skip "runsc not installed"
fi
done_testing
