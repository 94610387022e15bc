#!/usr/bin/env python3
"""Runs a command with transparent huge pages disabled for it (Linux prctl), to see how much
of a peak RSS comes from huge pages: scripts/no-thp.py apicompat check DIR ..."""
import ctypes
import os
import sys

PR_SET_THP_DISABLE = 41
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
    sys.exit(f"prctl(PR_SET_THP_DISABLE) failed: {os.strerror(ctypes.get_errno())}")
os.execvp(sys.argv[1], sys.argv[1:])
