# SPDX-License-Identifier: GPL-2.0
#
# kunit.py's QEMU config for the debug kernel: the harness' debug machine
# (tools/harness/machine.py, DEBUG_MACHINE: the test machine with all
# eight vCPUs in one host thread; its comment says why). Loaded by
# kunit.py as arm64_smp8.py is.

import os
import sys

from ..qemu_config import QemuArchParams

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
				'..', '..', 'tools'))
from harness.machine import DEBUG_MACHINE  # noqa: E402

QEMU_ARCH = QemuArchParams(**DEBUG_MACHINE.kunit_params())
