# SPDX-License-Identifier: GPL-2.0
#
# kunit.py QEMU config for the series: arm64 "virt" with eight CPUs, so that
# suites can attach CPUs 0-3 to CPU, cluster and system PM domains, and run
# OS-initiated sequences on one cluster of eight CPUs.
# kunit.py loads this file as if it sat in its own qemu_configs/ directory,
# hence the relative import.

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_SMP=y
CONFIG_NR_CPUS=8''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'cortex-a57',
					      '-smp', '8'])
