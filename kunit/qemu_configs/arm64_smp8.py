# SPDX-License-Identifier: GPL-2.0
#
# kunit.py's QEMU config for the series: the harness' test machine
# (tools/harness/machine.py, TEST_MACHINE: arm64 "virt", Cortex-A57, eight
# CPUs), the one definition every boot of the harness is built from.
# kunit.py loads this file as if it sat in its own qemu_configs/
# directory, hence the relative import of QemuArchParams.

import os
import sys

from ..qemu_config import QemuArchParams

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
				'..', '..', 'tools'))
from harness.machine import TEST_MACHINE  # noqa: E402

QEMU_ARCH = QemuArchParams(**TEST_MACHINE.kunit_params())
